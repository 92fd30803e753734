"""Supervisor services of the simulation node: the ROS 2 ``simulation_interfaces`` standard
(:mod:`.services`, :mod:`.actions`, advertised in :mod:`.features`) plus Webots-Supervisor
extras (:mod:`.extras`). The node loads this package as an extension: :func:`init` after the
node is built, :func:`shutdown` when it stops. Semantics and the extras' interfaces:
docs/supervisor.md.
"""

from __future__ import annotations

from typing import Any

_ATTRIBUTE = 'supervisor'


def init(node: Any) -> None:
    try:
        from .actions import SimulateStepsServer
        from .extras import Extras
        from .services import Supervisor
    except ModuleNotFoundError as err:  # simulation_interfaces not built: run without
        node.get_logger().error(f'no supervisor services: {err}')
        return
    supervisor = Supervisor(node)
    action = SimulateStepsServer(supervisor)
    extras = Extras(supervisor)
    setattr(node, _ATTRIBUTE, (extras, action, supervisor))  # taken down in this order


def shutdown(node: Any) -> None:
    for part in getattr(node, _ATTRIBUTE, ()):
        part.destroy()
