"""The option table's node parameters declared on the node (:mod:`scene_sim_ros.ros.options`).

Each part of the node declares its own options when it starts (:data:`.options.DECLARERS`):
``declare_options(node, 'outputs')``. The descriptor is the table's: description, read-only,
dynamic typing for numbers that take integers too; string arrays get a typed value even when
empty (the node's ``declare_string_array``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from rcl_interfaces.msg import ParameterDescriptor

from scene_sim_ros.ros.options import OPTIONS, Option, declared_by


class DeclaringNode(Protocol):
    def has_parameter(self, name: str) -> bool: ...

    def declare_parameter(self, name: str, value: Any, descriptor: ParameterDescriptor) -> Any: ...

    def declare_string_array(self, name: str, default: list[str],
                             described: ParameterDescriptor) -> None: ...


def parameter_descriptor(option: Option) -> ParameterDescriptor:
    return ParameterDescriptor(description=option.description, read_only=option.read_only,
                               dynamic_typing=option.dynamic_typing)


def declare_option(node: DeclaringNode, option: Option) -> None:
    """Declare ``option`` unless it is declared already (a world loaded later declares again)."""
    if node.has_parameter(option.name):
        return
    default = option.parameter_default
    if option.is_string_array and isinstance(default, list):
        node.declare_string_array(option.name, [str(v) for v in default],
                                  parameter_descriptor(option))
    else:
        node.declare_parameter(option.name, default, parameter_descriptor(option))


def declare_options(node: DeclaringNode, declarer: str, options: Iterable[Option] = OPTIONS) -> None:
    """Declare the options ``declarer`` declares (a key of :data:`.options.DECLARERS`)."""
    for option in declared_by(declarer, options):
        declare_option(node, option)
