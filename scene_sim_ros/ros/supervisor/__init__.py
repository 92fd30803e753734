"""Supervisor services of the simulation node: the ROS 2 ``simulation_interfaces`` standard
(:mod:`.services`, :mod:`.world_services`, :mod:`.scene_services`, :mod:`.actions`, advertised
in :mod:`.features`) plus Webots-Supervisor extras (:mod:`.extras`). The node loads this
package as an extension: :func:`init` after the node is built, :func:`shutdown` when it stops.
Semantics and the extras' interfaces: docs/supervisor.md.
"""

from __future__ import annotations

from typing import Any

_ATTRIBUTE = 'supervisor'


def init(node: Any) -> None:
    try:
        from scene_sim_ros.ros.supervisor.actions import SimulateStepsServer
        from scene_sim_ros.ros.supervisor.extras import Extras
        from scene_sim_ros.ros.supervisor.scene_services import SceneServices
        from scene_sim_ros.ros.supervisor.services import Supervisor
        from scene_sim_ros.ros.supervisor.world_services import WorldServices
    except ModuleNotFoundError as err:  # simulation_interfaces not built: run without
        node.get_logger().error(f'no supervisor services: {err}')
        return
    supervisor = Supervisor(node)
    worlds = WorldServices(supervisor)
    scene_services = SceneServices(supervisor, worlds)
    action = SimulateStepsServer(supervisor)
    extras = Extras(supervisor)
    # taken down in this order
    setattr(node, _ATTRIBUTE, (extras, action, scene_services, worlds, supervisor))


def shutdown(node: Any) -> None:
    for part in getattr(node, _ATTRIBUTE, ()):
        part.destroy()
