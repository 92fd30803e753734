"""Node extension: recording (``record.*``) and the Foxglove live view (``foxglove.*``).

Parameters (read-only, set at start; ``scene-sim-ros run --record FILE.mcap --foxglove [PORT]``;
declared from the option table, :mod:`scene_sim_ros.ros.options`):

- ``record.path``: rosbag2 MCAP file to record into (empty: no recording);
- ``record.topics``: globs of the topics to record (``/rover/*``, ``*image*``; empty: all);
- ``record.max_size_mb``: the recording ends once the file is that big (0: no limit);
- ``foxglove.port``: serve the Foxglove WebSocket protocol on this port (0: off);
- ``foxglove.address``: the address it listens on (default 127.0.0.1, only this machine).

Both are fed by one :class:`~.tap.Tap` (a second node with a thread of its own) that only
exists when one of them is on, so a plain run pays nothing.
"""

from __future__ import annotations

from typing import Any

from scene_sim_ros.ros.option_parameters import declare_options

_STATE = '_outputs'


def _value(node: Any, name: str) -> Any:
    param = node.get_parameter_or(name, None)
    return None if param is None else param.value


def init(node: Any) -> None:
    declare_options(node, 'outputs')
    path = str(node.get_parameter('record.path').value or '')
    port = int(node.get_parameter('foxglove.port').value or 0)
    state: dict[str, Any] = {}
    setattr(node, _STATE, state)
    if not path and not port:
        return
    from scene_sim_ros.ros.outputs.tap import start_in_node
    tap = start_in_node(node)
    state['tap'] = tap
    if path:
        from scene_sim_ros.ros.outputs.recorder import Recorder
        topics = [t for t in _value(node, 'record.topics') or [] if t]
        state['recorder'] = Recorder(
            path, topics=topics, logger=node.get_logger(),
            max_size_mb=float(node.get_parameter('record.max_size_mb').value or 0))
        tap.add_sink(state['recorder'])
    if port:
        try:
            from scene_sim_ros.ros.outputs.foxglove_bridge import FoxgloveBridge
        except ImportError as err:
            node.get_logger().error(f'--foxglove needs foxglove-sdk (pip install foxglove-sdk): '
                                    f'{err}')
        else:
            state['foxglove'] = FoxgloveBridge(
                node, tap, port=port,
                address=str(node.get_parameter('foxglove.address').value or '127.0.0.1'))
            tap.add_sink(state['foxglove'])
    tap.start()


def shutdown(node: Any) -> None:
    state = getattr(node, _STATE, {})
    tap = state.get('tap')
    if tap is not None:
        tap.stop()
    for key in ('foxglove', 'recorder'):
        sink = state.get(key)
        if sink is not None:
            sink.close()
