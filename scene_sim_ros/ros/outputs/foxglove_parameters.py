"""The live view's Parameters capability: a viewer reads and sets the simulation node's
parameters (Lichtblick's and Foxglove's Parameters panel), named as foxglove_bridge names them,
``<node>.<parameter>`` (``/scene_sim.real_time_factor``). A refused set (a read-only parameter,
a wrong type, a value out of range) leaves the value as it was and tells the viewer why in a
status message; the node's log gets one line."""

from __future__ import annotations

from typing import Any


class NodeParameters:
    """``get`` and ``set`` for the foxglove server listener (its threads)."""

    def __init__(self, node: Any, status: Any):
        self.node = node
        self.prefix = node.get_fully_qualified_name() + '.'
        self._status = status   # (text) -> None: a warning to the viewers

    def get(self, names: list[str]) -> list[Any]:
        """Every parameter for no names; unknown names are left out."""
        own = [self._own_name(n) for n in names] if names else \
            list(self.node.list_parameters([], 0).names)
        return [self._foxglove(name) for name in own if name and self.node.has_parameter(name)]

    def set(self, parameters: list[Any]) -> list[Any]:
        from rclpy.parameter import Parameter
        answered = []
        for parameter in parameters:
            name = self._own_name(parameter.name)
            if not name or not self.node.has_parameter(name):
                self._refuse(parameter.name, 'no such parameter')
                continue
            try:
                result = self.node.set_parameters([Parameter(name, value=parameter.get_value())])[0]
                reason = '' if result.successful else result.reason
            except Exception as err:  # noqa: BLE001 - a value rclpy cannot take (type, range)
                reason = str(err)
            if reason:
                self._refuse(parameter.name, reason)
            answered.append(self._foxglove(name))
        return answered

    def _own_name(self, name: str) -> str:
        return name[len(self.prefix):] if name.startswith(self.prefix) else ''

    def _foxglove(self, name: str) -> Any:
        from foxglove.websocket import Parameter
        value = self.node.get_parameter(name).value
        if isinstance(value, tuple):
            value = list(value)
        return Parameter(self.prefix + name, value=value)

    def _refuse(self, name: str, reason: str) -> None:
        text = f'parameter {name} not set: {reason}'
        self.node.get_logger().warning(f'Foxglove: {text}')
        self._status(text)
