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
    supervisor.action = SimulateStepsServer(supervisor)
    supervisor.extras = Extras(supervisor)
    setattr(node, _ATTRIBUTE, supervisor)


def shutdown(node: Any) -> None:
    supervisor = getattr(node, _ATTRIBUTE, None)
    if supervisor is None:
        return
    supervisor.extras.destroy()
    supervisor.action.destroy()
    supervisor.destroy()
