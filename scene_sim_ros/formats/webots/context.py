"""State shared by one Webots load (:class:`Context`: diagnostics, ``strict``, url resolution),
the drafts of an entity's links, joints and sensors while it is built (:class:`LinkDraft`,
:class:`EntityDraft`) and small node helpers (Webots' unique names, a node's pose, what a Slot
holds)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ...scene import geometry as shapes
from ...scene.inertia import Inertia6, combine
from ...scene.model import Collision, Inertial, Joint, Link, Propeller, Visual
from ...scene.sensors import Sensor
from ...scene.transforms import Pose, Vec3
from .geometry import GeometryContext
from .nodes import Node


class NameSet(set[str]):
    """Names taken, with the next free ``(n)`` suffix of each base name: a world of 13,000
    unnamed Solids named them in 17 s when every name searched ``solid(1)`` onwards."""

    def __init__(self) -> None:
        super().__init__()
        self.next_suffix: dict[str, int] = {}


def unique(name: str, used: set[str]) -> str:
    """Webots' way: the second ``solid`` is ``solid(1)``."""
    count = used.next_suffix.get(name, 0) if isinstance(used, NameSet) else 0
    candidate = f'{name}({count})' if count else name
    while candidate in used:
        count += 1
        candidate = f'{name}({count})'
    used.add(candidate)
    if isinstance(used, NameSet):
        used.next_suffix[name] = count + 1
    return candidate


def node_pose(node: Node) -> Pose:
    return Pose(node.vec3('translation', (0.0, 0.0, 0.0)), node.rotation())


def through_slots(node: Node) -> Node | None:
    """What a Slot (or a pair of them) holds: the first endPoint that is not a Slot."""
    seen: set[int] = set()
    current: Node | None = node
    while current is not None and current.type == 'Slot' and current.missing_url is None:
        if id(current) in seen:
            return None
        seen.add(id(current))
        current = current.node('endPoint')
    return current


@dataclass
class Context:
    file: str
    y_up: bool
    strict: bool
    step_length: float = 0.032
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warned_types: set[tuple[str, str]] = field(default_factory=set)
    # finds a Mesh/ImageTexture url (see resolve.py); without one, only local files are found
    locate: Callable[[Node, str], Path | None] | None = None

    def warn(self, node: Node, message: str, name: str | None = None) -> None:
        file, line = node.where(name)
        text = f'{file}:{line}: {message}'
        (self.errors if self.strict else self.warnings).append(text)

    def warn_once(self, node: Node, message: str) -> None:
        key = (node.file, node.type)
        if key not in self.warned_types:
            self.warned_types.add(key)
            self.warn(node, message)

    def resolve_url(self, node: Node, url: str) -> Path | None:
        if self.locate is not None:
            return self.locate(node, url)
        if url.startswith(('webots://', 'http://', 'https://', 'root://')):
            return None
        path = Path(url.removeprefix('file://'))
        if not path.is_absolute():
            path = Path(node.file).parent / path
        return path.resolve() if path.is_file() else None

    @property
    def geometry(self) -> GeometryContext:
        return GeometryContext(self.y_up, self.resolve_url, self.warn)


@dataclass
class LinkDraft:
    name: str
    collisions: list[Collision] = field(default_factory=list)
    visuals: list[Visual] = field(default_factory=list)
    mass_parts: list[tuple[float, Vec3, Inertia6]] = field(default_factory=list)

    def freeze(self) -> Link:
        mass, com, inertia = combine(self.mass_parts)
        return Link(self.name, Inertial(mass, com, inertia), tuple(self.collisions),
                    tuple(self.visuals))


@dataclass
class EntityDraft:
    name: str
    links: list[LinkDraft] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    propellers: list[Propeller] = field(default_factory=list)
    link_names: set[str] = field(default_factory=NameSet)
    joint_names: set[str] = field(default_factory=NameSet)
    sensor_names: set[str] = field(default_factory=NameSet)

    def new_link(self, name: str) -> LinkDraft:
        link = LinkDraft(unique(name, self.link_names))
        self.links.append(link)
        return link


class DeviceHost(Protocol):
    """What a device handler uses of the :class:`~.mapping.EntityBuilder` that calls it (a
    Protocol, so that the device modules, :mod:`.devices` and :mod:`.optical_devices`, do not
    import :mod:`.mapping`, which imports them)."""

    @property
    def context(self) -> Context: ...

    def bounding(self, node: Node | None, pose: Pose) -> list[tuple[shapes.Shape, Pose]]: ...
