"""The syntax tree of a Webots world: nodes with untyped field values and typed getters.

The reader does not know the field types of built-in nodes, so a field keeps what the file
wrote: a list of items (``float``, ``str``, ``bool``, :class:`Node` or ``None`` for ``NULL``)
and whether it was bracketed (an MF value). The mapping asks for the type it expects
(``node.vec3('translation', default)``) and a value of the wrong shape is a ``file:line`` error.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Union

from ...errors import SceneLoadError
from ...scene.transforms import IDENTITY_QUAT, Quat, Vec3, quat_from_axis_angle

Item = Union[float, str, bool, 'Node', None]


@dataclass(slots=True)
class IsRef:
    """``field IS protoField`` inside a PROTO body."""

    name: str
    line: int


@dataclass(slots=True)
class Value:
    items: list[Item]
    bracketed: bool
    line: int
    origin: str | None = None  # the file that wrote it, where not the node's own (IS values)
    holds: str = 'any'  # 'numbers' or 'scalars' (no nodes) where known: long rows skip tree walks

    @property
    def has_nodes(self) -> bool:
        return self.holds == 'any'


@dataclass(eq=False, slots=True)
class Node:
    type: str
    fields: dict[str, Value | IsRef] = field(default_factory=dict)
    file: str = ''
    line: int = 0
    def_name: str | None = None
    proto: str | None = None  # name of the PROTO this node was expanded from
    missing_url: str | None = None  # an instance of a remote PROTO that is not available here

    def where(self, name: str | None = None) -> tuple[str, int]:
        value = self.fields.get(name) if name else None
        return self.file, value.line if value is not None else self.line

    def error(self, message: str, name: str | None = None) -> SceneLoadError:
        return SceneLoadError(message, *self.where(name))

    def has(self, name: str) -> bool:
        return name in self.fields

    def value(self, name: str) -> Value | None:
        found = self.fields.get(name)
        if isinstance(found, IsRef):
            raise self.error(f'{self.type}.{name} IS {found.name} outside a PROTO body', name)
        return found

    def _numbers(self, name: str) -> list[float] | None:
        value = self.value(name)
        if value is None:
            return None
        if value.holds == 'numbers':
            return list(value.items)  # type: ignore[arg-type]  # floats, as the parser read them
        numbers = [i for i in value.items if isinstance(i, float)]
        if len(numbers) != len(value.items):
            raise self.error(f'{self.type}.{name}: expected numbers', name)
        return numbers

    def floats(self, name: str, count: int, default: tuple[float, ...]) -> tuple[float, ...]:
        numbers = self._numbers(name)
        if numbers is None:
            return default
        if len(numbers) != count:
            raise self.error(f'{self.type}.{name}: expected {count} numbers, got {len(numbers)}',
                             name)
        return tuple(numbers)

    def float(self, name: str, default: float) -> float:
        return self.floats(name, 1, (default,))[0]

    def int(self, name: str, default: int) -> int:
        return int(self.float(name, float(default)))

    def vec3(self, name: str, default: Vec3) -> Vec3:
        x, y, z = self.floats(name, 3, default)
        return (x, y, z)

    def color(self, name: str, default: Vec3) -> Vec3:
        return self.vec3(name, default)

    def rotation(self, name: str = 'rotation') -> Quat:
        """An SFRotation (axis x y z, angle in radians) as a quaternion."""
        x, y, z, angle = self.floats(name, 4, (0.0, 0.0, 1.0, 0.0))
        if angle == 0.0 or (x, y, z) == (0.0, 0.0, 0.0):
            return IDENTITY_QUAT
        return quat_from_axis_angle((x, y, z), angle)

    def mf_numbers(self, name: str) -> list[builtins.float]:
        return self._numbers(name) or []

    def mf_vec(self, name: str, width: builtins.int) -> list[tuple[builtins.float, ...]]:
        numbers = self.mf_numbers(name)
        if len(numbers) % width:
            raise self.error(f'{self.type}.{name}: expected groups of {width} numbers', name)
        return list(zip(*[iter(numbers)] * width))

    def string(self, name: str, default: str) -> str:
        value = self.value(name)
        if value is None or not value.items:
            return default
        item = value.items[0]
        if not isinstance(item, str):
            raise self.error(f'{self.type}.{name}: expected a string', name)
        return item

    def strings(self, name: str) -> list[str]:
        value = self.value(name)
        if value is None:
            return []
        if not all(isinstance(i, str) for i in value.items):
            raise self.error(f'{self.type}.{name}: expected strings', name)
        return [str(i) for i in value.items]

    def bool(self, name: str, default: bool) -> bool:
        value = self.value(name)
        if value is None or not value.items:
            return default
        item = value.items[0]
        if not isinstance(item, bool):
            raise self.error(f'{self.type}.{name}: expected TRUE or FALSE', name)
        return item

    def node(self, name: str) -> Node | None:
        value = self.value(name)
        if value is None or not value.items:
            return None
        item = value.items[0]
        if item is not None and not isinstance(item, Node):
            raise self.error(f'{self.type}.{name}: expected a node', name)
        return item

    def nodes(self, name: str) -> list[Node]:
        value = self.value(name)
        if value is None:
            return []
        found = [i for i in value.items if i is not None]
        nodes = [i for i in found if isinstance(i, Node)]
        if len(nodes) != len(found):
            raise self.error(f'{self.type}.{name}: expected nodes', name)
        return nodes

    def walk(self) -> Iterator[Node]:
        """This node and every node below it (depth first, shared USE nodes repeated)."""
        yield self
        for value in self.fields.values():
            if isinstance(value, Value) and value.has_nodes:
                for item in value.items:
                    if isinstance(item, Node):
                        yield from item.walk()


def finite(value: float) -> bool:
    return math.isfinite(value)
