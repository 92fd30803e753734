"""RaiSim world XML (``<raisim>``) into a :class:`Scene`.

Supported subset (RaiSim 1.x/2.x world configuration files):

- Top level: ``time_step``/``timestep`` (default 0.005 s), ``gravity`` (default 0 0 -9.81),
  ``erp`` (``erp``; ``erp2`` kept in metadata), ``material`` (``default`` and ``pair_prop``:
  friction, restitution, restitution_threshold; ``static_friction*`` are ignored with a warning),
  ``objects``, ``wire``, ``include``, ``params``, ``camera`` (kept in metadata).
- Objects: ``sphere``, ``box``, ``capsule``, ``cylinder`` (``dim``), ``compound`` (``children``
  of primitives with their own ``state`` pose, ``com``), ``mesh`` (``file_name``, ``scale``,
  ``com``), ``ground`` (``height``), ``heightmap`` (inline ``height``, ``text`` file, ``png``,
  or ``terrain_properties``: see :mod:`.terrain`), ``articulated_system`` (``urdf_path``,
  ``res_dir``; ``state qpos qvel``; URDF via :mod:`scene_sim_ros.formats.urdf`, sensor sets via
  :mod:`.sensors`). Common attributes: ``name``, ``mass``, ``material``, ``appearance`` (a colour
  name, ``r,g,b,a`` or ``hidden``), ``body_type`` dynamic/kinematic/static,
  ``collision_group``/``collision_mask``, ``exist``; children ``inertia`` (about the COM; derived
  from the shape when absent) and ``state`` (``pos``, ``quat`` as **w x y z**, ``lin_vel``,
  ``ang_vel``).
- ``wire``: ``type`` stiff, compliant (``stiffness``, N/m) or custom (``tension``, N; RaiSim sets
  it from a program, absent: 0 with a warning), ``stretch_type`` (STRETCH_RESISTANCE_ONLY,
  COMPRESSION_RESISTANCE_ONLY, BOTH), ``length`` (default: the distance between the attachment
  points at the start), ``object1``/``object2`` with ``name`` plus ``pos`` (body frame of a
  single body) or ``frame`` (a joint or link of an articulated system); simulated by
  :mod:`scene_sim_ros.sim.wires`.
- ``com`` of any single body (primitives, ``compound``, ``mesh``): the centre of mass in the
  body frame (the inertial frame's offset).
- Templates: ``@@name`` from ``<params>`` and the ``parameters`` argument (which wins),
  ``{math}`` (see :mod:`.expressions`), ``<array idx="@@i" start end increment>`` with ``end``
  exclusive, ``<include value="file"/>`` (its top-level elements are merged in place).
- camelCase and snake_case names are both accepted (``timeStep`` = ``time_step``); vectors may be
  comma- or space-separated; ``[THIS_DIR]`` is the directory of the file it appears in and other
  relative paths are relative to that directory as well.
- Repeated object names are made unique (``box``, ``box_1``, ...) with one warning per name.
- A missing mesh file or URDF mesh is a warning and the shape (or the mesh object) is dropped;
  a missing height-map PNG is a warning and a flat map at ``z_offset`` of the given size stands
  in for it; a missing URDF is an error.

Articulated-system joints get the URDF loader's default servo motors, holding ``qpos``.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np
from lxml import etree

from ...errors import SceneLoadError
from ...scene import (
    Box,
    Capsule,
    Collision,
    ContactDefaults,
    Cylinder,
    Entity,
    Heightfield,
    Inertial,
    Link,
    MaterialPair,
    MeshFile,
    Plane,
    Scene,
    Sphere,
    Visual,
    Wire,
)
from ...scene.geometry import GREY, RGBA, Shape
from ...scene.inertia import Inertia6, combine, primitive_inertia, rotate_inertia, sphere_inertia
from ...scene.model import WireKind, WireStretch
from ...scene.transforms import IDENTITY, Pose, Vec3, quat_from_axis_angle, quat_normalized
from .. import limits, paths
from .. import urdf as urdf_format
from . import expressions, sensors, terrain

DEFAULT_TIME_STEP = 0.005
DEFAULT_GRAVITY: Vec3 = (0.0, 0.0, -9.81)
ALIASES = {'timestep': 'time_step', 'linvel': 'lin_vel', 'angvel': 'ang_vel'}
COLORS: dict[str, RGBA] = {
    'red': (0.8, 0.1, 0.1, 1.0), 'green': (0.1, 0.7, 0.1, 1.0), 'blue': (0.1, 0.2, 0.8, 1.0),
    'white': (1.0, 1.0, 1.0, 1.0), 'black': (0.05, 0.05, 0.05, 1.0),
    'gray': (0.5, 0.5, 0.5, 1.0), 'grey': (0.5, 0.5, 0.5, 1.0),
    'yellow': (0.9, 0.8, 0.1, 1.0), 'orange': (1.0, 0.5, 0.0, 1.0),
    'purple': (0.5, 0.1, 0.6, 1.0), 'brown': (0.5, 0.3, 0.1, 1.0),
}
PRIMITIVES = ('sphere', 'box', 'capsule', 'cylinder')
_CAMEL = re.compile(r'(?<=[a-z0-9])([A-Z])')
_SEPARATORS = re.compile(r'[,\s]+')


def normalize_name(name: str) -> str:
    """``timeStep`` -> ``time_step``; spellings RaiSim accepts map to one key."""
    key = _CAMEL.sub(r'_\1', name).lower()
    return ALIASES.get(key, key)


# --- reading elements with substitution ------------------------------------------------------

@dataclass
class _Loader:
    strict: bool
    user_parameters: Mapping[str, str]
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # parameter -> first location
    metadata: dict = field(default_factory=dict)
    include_stack: list[Path] = field(default_factory=list)
    once: dict[str, tuple[int, int]] = field(default_factory=dict)  # message -> (index, count)
    budget: limits.ElementBudget = field(default_factory=limits.ElementBudget)

    def warn(self, file: Path, line: int | None, message: str) -> None:
        text = f'{file}:{line}: {message}' if line else f'{file}: {message}'
        (self.errors if self.strict else self.warnings).append(text)

    def error(self, file: Path, line: int | None, message: str) -> None:
        self.errors.append(f'{file}:{line}: {message}' if line else f'{file}: {message}')

    def warn_once(self, file: Path, line: int | None, message: str) -> None:
        """One warning per distinct ``message`` (at its first place) with the count of the
        places it applies to: an unknown attribute used 150 times is one warning."""
        target = self.errors if self.strict else self.warnings
        seen = self.once.get(message)
        if seen is None:
            self.once[message] = (len(target), 1)
            self.warn(file, line, message)
            return
        index, count = seen
        self.once[message] = (index, count + 1)
        text = target[index].removesuffix(f' ({count} times)')
        target[index] = f'{text} ({count + 1} times)'


class Node:
    """An element of a RaiSim file with normalised names and template substitution.

    Reading marks attributes as used; :meth:`finish` warns about the rest.
    """

    def __init__(self, element: etree._Element, file: Path, scope: Mapping[str, str],
                 loader: _Loader):
        self.element = element
        self.file = file
        self.scope = scope
        self.loader = loader
        self.tag = normalize_name(element.tag) if isinstance(element.tag, str) else ''
        self.line = element.sourceline
        self.attributes = {normalize_name(k): (k, v) for k, v in element.attrib.items()}
        self.used: set[str] = set()

    def children(self) -> Iterator[Node]:
        for child in self.element:
            if isinstance(child.tag, str):
                yield Node(child, self.file, self.scope, self.loader)

    def child(self, tag: str) -> Node | None:
        for node in self.children():
            if node.tag == tag:
                return node
        return None

    def has(self, name: str) -> bool:
        return name in self.attributes

    def raw(self, name: str) -> str | None:
        self.used.add(name)
        found = self.attributes.get(name)
        return None if found is None else found[1]

    def get(self, name: str, default: str | None = None) -> str | None:
        raw = self.raw(name)
        if raw is None:
            return default
        return self.substitute(raw, name)

    def substitute(self, raw: str, name: str) -> str | None:
        missing = expressions.missing_parameters(raw, self.scope)
        if missing:
            for parameter in missing:
                self.loader.missing.setdefault(parameter, f'{self.file}:{self.line}')
            return None
        try:
            return expressions.substitute(raw, self.scope)
        except expressions.ExpressionError as err:
            self.loader.error(self.file, self.line, f'{name}: {err}')
            return None

    def number(self, name: str, default: float | None = None) -> float | None:
        text = self.get(name)
        if text is None:
            return default
        try:
            return limits.number(text)
        except ValueError as err:
            self.loader.error(self.file, self.line,
                              limits.why_not(err, f'{name}="{text}" is not a number'))
            return default

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.number(name)
        if value is None:
            return default
        if not value.is_integer():
            self.loader.error(self.file, self.line, f'{name}="{value}" must be an integer')
            return default
        return int(value)

    def vector(self, name: str, count: int | None, default: tuple[float, ...] | None = None
               ) -> tuple[float, ...] | None:
        text = self.get(name)
        if text is None:
            return default
        parts = [p for p in _SEPARATORS.split(text.strip()) if p]
        try:
            values = tuple(limits.number(p) for p in parts)
        except ValueError as err:
            self.loader.error(self.file, self.line,
                              limits.why_not(err, f'{name}="{text}" is not a list of numbers'))
            return default
        if count is not None and len(values) != count:
            self.loader.error(self.file, self.line,
                              f'{name} needs {count} numbers, got {len(values)}')
            return default
        return values

    def vec3(self, name: str, default: Vec3 | None = None) -> Vec3 | None:
        values = self.vector(name, 3)
        return default if values is None else (values[0], values[1], values[2])

    def path(self, name: str) -> Path | None:
        text = self.get(name)
        if text is None:
            return None
        text = text.replace('[THIS_DIR]', str(self.file.parent))
        path = Path(text)
        path = Path(os.path.normpath(path if path.is_absolute() else self.file.parent / path))
        return paths.confine(path, f'{name}', self.file, self.line)

    def boolean(self, name: str, default: bool) -> bool:
        text = self.get(name)
        if text is None:
            return default
        lowered = text.strip().lower()
        if lowered in ('true', '1', 'yes', 'on'):
            return True
        if lowered in ('false', '0', 'no', 'off'):
            return False
        try:
            return float(lowered) != 0.0
        except ValueError:
            self.loader.error(self.file, self.line, f'{name}="{text}" is not a boolean')
            return default

    def warn(self, message: str) -> None:
        self.loader.warn(self.file, self.line, message)

    def error(self, message: str) -> None:
        self.loader.error(self.file, self.line, message)

    def finish(self, known_children: tuple[str, ...] = ()) -> None:
        for key, (raw_name, _) in self.attributes.items():
            if key not in self.used:
                self.loader.warn_once(self.file, self.line, f'unknown attribute {raw_name!r} of '
                                      f'<{self.element.tag}> ignored')
        for child in self.children():
            if child.tag not in known_children:
                self.loader.warn_once(child.file, child.line, f'unknown element '
                                      f'<{child.element.tag}> in <{self.element.tag}> ignored')


# --- the world ---------------------------------------------------------------------------------

@dataclass
class _World:
    time_step: float = DEFAULT_TIME_STEP
    gravity: Vec3 = DEFAULT_GRAVITY
    erp: float | None = None
    contact_defaults: ContactDefaults = ContactDefaults()
    material_pairs: list[MaterialPair] = field(default_factory=list)
    entities: list[tuple[Entity, Node]] = field(default_factory=list)
    wires: list[Node] = field(default_factory=list)


def read_root(path: Path) -> etree._Element:
    text = limits.read_text(path)
    try:
        root = urdf_format.parse_xml(text, path)
    except etree.XMLSyntaxError as err:
        raise SceneLoadError(f'not well-formed XML: {err.msg}', path, err.lineno) from None
    return root


def load_world(path: Path, parameters: Mapping[str, str] | None, strict: bool,
               shown_as: Path | None = None) -> Scene:
    """Load the world at ``path`` (absolute); the missing-parameter message names files as
    ``shown_as`` (the path the user gave) leads to them."""
    path = Path(path)
    shown = _shown_paths(path, shown_as or path)
    loader = _Loader(strict, {k: str(v) for k, v in (parameters or {}).items()})
    root = read_root(path)
    if normalize_name(root.tag) != 'raisim':
        raise SceneLoadError(f'expected a <raisim> root element, found <{root.tag}>', path,
                             root.sourceline)
    scope = _collect_parameters(root, path, loader)
    world = _World()
    loader.include_stack.append(path.resolve())
    _top_level(Node(root, path, scope, loader), world)
    if loader.missing:
        listed = ', '.join(f'{name} (first used at {shown(where)}'
                           f'{_parameter_hint(name, scope, loader)})'
                           for name, where in loader.missing.items())
        loader.errors.insert(0, f'{shown(str(path))}: missing template parameters: {listed}; '
                             'supply them as parameters (e.g. --param name=value)')
    entities = _unique_names(world.entities, loader)
    wires = tuple(w for w in (_wire(node, entities) for node in world.wires) if w is not None)
    if loader.errors:
        raise SceneLoadError(limits.joined(loader.errors))
    loader.metadata['parameters'] = dict(scope)
    return Scene(name=path.stem, entities=tuple(entities), format='raisim', source=path,
                 step_length=world.time_step, gravity=world.gravity, erp=world.erp,
                 contact_defaults=world.contact_defaults,
                 material_pairs=tuple(world.material_pairs), wires=wires,
                 warnings=tuple(loader.warnings), metadata=loader.metadata)


def _shown_paths(path: Path, shown_as: Path) -> Callable[[str], str]:
    """Rewrites a location under ``path``'s folder to start with ``shown_as``'s folder."""
    folder = str(path.parent) + os.sep
    shown_folder = '' if str(shown_as.parent) == '.' else str(shown_as.parent) + os.sep

    def shown(location: str) -> str:
        return shown_folder + location[len(folder):] if location.startswith(folder) else location
    return shown


def _parameter_hint(name: str, scope: Mapping[str, str], loader: _Loader) -> str:
    """'; did you mean ...' for a missing ``@@name``: a given parameter that looks like a typo
    of it, or a defined one that it looks like a typo of."""
    given = [p for p in loader.user_parameters if p not in loader.missing]
    match = difflib.get_close_matches(name, given, n=1)
    if match:
        return f'; {match[0]} was given: did you mean {name}?'
    match = difflib.get_close_matches(name, [p for p in scope if p not in loader.missing], n=1)
    return f'; did you mean @@{match[0]}?' if match else ''


def _collect_parameters(root: etree._Element, path: Path, loader: _Loader) -> dict[str, str]:
    """``<params>`` of the file and its includes (first definition wins), then user values."""
    scope: dict[str, str] = {}
    seen: set[Path] = set()

    def visit(element: etree._Element, file: Path) -> None:
        if file.resolve() in seen:
            return
        seen.add(file.resolve())
        for child in element:
            if not isinstance(child.tag, str):
                continue
            tag = normalize_name(child.tag)
            if tag == 'params':
                for entry in child:
                    if isinstance(entry.tag, str) and entry.get('value') is not None:
                        scope.setdefault(entry.tag, entry.get('value', ''))
            elif tag == 'include':
                included = _include_path(Node(child, file, {}, loader))
                if included is not None and paths.is_file(included):
                    visit(read_root(included), included)

    visit(root, path)
    scope.update(loader.user_parameters)
    return scope


def _include_path(node: Node) -> Path | None:
    for name in ('value', 'file', 'path'):
        if node.has(name):
            node.used.add(name)
            raw = node.attributes[name][1].replace('[THIS_DIR]', str(node.file.parent))
            path = Path(raw)
            # not normalised: messages name the file as the user's path leads to it
            path = path if path.is_absolute() else node.file.parent / path
            return paths.confine(path, 'included file', node.file, node.line)
    return None


def _top_level(root: Node, world: _World) -> None:
    root.raw('version')
    for node in root.children():
        handler = TOP_LEVEL.get(node.tag)
        if handler is None:
            node.warn(f'unknown element <{node.element.tag}> ignored')
            continue
        handler(node, world)
    root.finish(tuple(node.tag for node in root.children()))  # children were reported above


def _time_step(node: Node, world: _World) -> None:
    value = node.number('value', DEFAULT_TIME_STEP)
    if value is not None and value <= 0.0:
        node.error(f'time step must be positive, got {value}')
    world.time_step = value or DEFAULT_TIME_STEP
    node.finish()


def _gravity(node: Node, world: _World) -> None:
    world.gravity = node.vec3('value', DEFAULT_GRAVITY) or DEFAULT_GRAVITY
    node.finish()


def _erp(node: Node, world: _World) -> None:
    world.erp = node.number('erp', node.number('value'))
    erp2 = node.number('erp2')
    if erp2 is not None:
        node.loader.metadata['erp2'] = erp2
    node.finish()


def _material(node: Node, world: _World) -> None:
    ignored = ('static_friction', 'static_friction_velocity_threshold')
    ignored_seen: set[str] = set()
    for child in node.children():
        if child.tag == 'default':
            world.contact_defaults = ContactDefaults(
                friction=child.number('friction', 0.8) or 0.0,
                restitution=child.number('restitution', 0.0) or 0.0,
                restitution_threshold=child.number('restitution_threshold'))
        elif child.tag == 'pair_prop':
            world.material_pairs.append(MaterialPair(
                child.get('name1', '') or '', child.get('name2', '') or '',
                friction=child.number('friction'), restitution=child.number('restitution'),
                restitution_threshold=child.number('restitution_threshold')))
        else:
            continue
        unsupported = [a for a in ignored if child.has(a)]
        child.used.update(unsupported)
        if unsupported and not ignored_seen:
            child.warn(f'{", ".join(unsupported)} not supported (one friction coefficient per '
                       'pair); ignored in this <material>')
        ignored_seen.update(unsupported)
        child.finish()
    node.finish(('default', 'pair_prop'))


def _objects(node: Node, world: _World) -> None:
    for child in node.children():
        _object(child, world)
    node.finish(tuple(OBJECTS) + ('array',))


def _object(node: Node, world: _World) -> None:
    if node.tag == 'array':
        _array(node, world)
        return
    handler = OBJECTS.get(node.tag)
    if handler is None:
        node.warn(f'unknown object <{node.element.tag}> ignored')
        return
    if not node.boolean('exist', True):
        return
    entity = handler(node)
    if entity is not None:
        world.entities.append((entity, node))


def _array(node: Node, world: _World) -> None:
    variable = node.raw('idx') or ''
    name = variable[2:] if variable.startswith('@@') else variable
    start, end = node.integer('start'), node.integer('end')
    increment = node.integer('increment', 1)
    node.finish(tuple(OBJECTS) + ('array',))
    if any(expressions.missing_parameters(value, node.scope)
           for key, (_, value) in node.attributes.items() if key != 'idx'):
        return  # listed with all missing template parameters
    if not name or start is None or end is None or not increment:
        node.error('<array> needs idx="@@name", integer start, end and a non-zero increment')
        return
    values = range(start, end, increment)
    elements = sum(1 for child in node.element if isinstance(child.tag, str))
    try:
        copies = len(values) * elements
    except OverflowError:  # more than sys.maxsize values
        copies = node.loader.budget.limit + 1
    node.loader.budget.spend(copies, 'objects (<array> copies)', node.file, node.line)
    for value in values:
        scope = {**node.scope, name: str(value)}
        for child in node.element:
            if isinstance(child.tag, str):
                _object(Node(child, node.file, scope, node.loader), world)


def _include(node: Node, world: _World) -> None:
    path = _include_path(node)
    node.finish()
    if path is None:
        node.error('<include> needs value="file"')
        return
    if not paths.is_file(path):
        node.error(f'included file {path} not found')
        return
    if path.resolve() in node.loader.include_stack:
        node.error(f'{path} includes itself')
        return
    limits.check_depth(len(node.loader.include_stack) + 1, 'includes', node.file, node.line)
    root = read_root(path)
    node.loader.include_stack.append(path.resolve())
    _top_level(Node(root, path, node.scope, node.loader), world)
    node.loader.include_stack.pop()


def _camera(node: Node, world: _World) -> None:
    node.loader.metadata['camera'] = {k: v for k, v in node.element.attrib.items()}
    node.used.update(node.attributes)
    node.finish()


def _wire_node(node: Node, world: _World) -> None:
    world.wires.append(node)


def _params(node: Node, world: _World) -> None:
    """Collected before everything else (see :func:`_collect_parameters`)."""


TOP_LEVEL: dict[str, Callable[[Node, _World], None]] = {
    'time_step': _time_step, 'gravity': _gravity, 'erp': _erp, 'material': _material,
    'objects': _objects, 'include': _include, 'camera': _camera, 'wire': _wire_node,
    'params': _params,
}


# --- single bodies -----------------------------------------------------------------------------

def _state_pose(node: Node) -> tuple[Pose, Vec3, Vec3]:
    state = node.child('state')
    if state is None:
        return IDENTITY, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    position = state.vec3('pos', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    wxyz = state.vector('quat', 4, (1.0, 0.0, 0.0, 0.0)) or (1.0, 0.0, 0.0, 0.0)
    try:
        orientation = quat_normalized((wxyz[1], wxyz[2], wxyz[3], wxyz[0]))
    except ValueError:
        state.error('quat must not be zero')
        orientation = IDENTITY.orientation
    linear = state.vec3('lin_vel', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    angular = state.vec3('ang_vel', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    state.finish()
    return Pose(position, orientation), linear, angular


def _primitive_shape(node: Node) -> Shape | None:
    dim = node.child('dim')
    if dim is None:
        node.error(f'<{node.element.tag}> needs <dim>')
        return None
    shape: Shape | None
    if node.tag == 'sphere':
        shape = Sphere(dim.number('radius', 0.0) or 0.0)
    elif node.tag == 'box':
        shape = Box((dim.number('x', 0.0) or 0.0, dim.number('y', 0.0) or 0.0,
                     dim.number('z', 0.0) or 0.0))
    elif node.tag == 'capsule':
        shape = Capsule(dim.number('radius', 0.0) or 0.0, dim.number('height', 0.0) or 0.0)
    else:
        shape = Cylinder(dim.number('radius', 0.0) or 0.0, dim.number('height', 0.0) or 0.0)
    dim.finish()
    return shape


def shape_inertia(shape: Shape, mass: float) -> Inertia6:
    """Inertia of a uniform solid ``shape`` of ``mass`` about its centre (anything but a
    primitive: that of a 0.1 m sphere)."""
    primitive = primitive_inertia(shape, mass)
    return primitive if primitive is not None else sphere_inertia(mass, 0.1)


def shape_volume(shape: Shape) -> float:
    if isinstance(shape, Sphere):
        return 4.0 / 3.0 * math.pi * shape.radius ** 3
    if isinstance(shape, Box):
        return shape.size[0] * shape.size[1] * shape.size[2]
    if isinstance(shape, Capsule):
        return math.pi * shape.radius ** 2 * (shape.length + 4.0 / 3.0 * shape.radius)
    if isinstance(shape, Cylinder):
        return math.pi * shape.radius ** 2 * shape.length
    return 0.0


def _given_inertia(node: Node) -> Inertia6 | None:
    inertia = node.child('inertia')
    if inertia is None:
        return None
    xx, xy, xz, yy, yz, zz = (inertia.number(k, 0.0) or 0.0 for k in ('xx', 'xy', 'xz', 'yy', 'yz', 'zz'))
    inertia.finish()
    return (xx, xy, xz, yy, yz, zz)


def _appearance(node: Node) -> RGBA | None:
    """The colour of ``appearance``; ``None`` when hidden."""
    text = (node.get('appearance') or '').strip()
    if not text:
        return GREY
    if text.lower() == 'hidden':
        return None
    parts = [p for p in _SEPARATORS.split(text) if p]
    if len(parts) in (3, 4):
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if values:
            return (values[0], values[1], values[2], values[3] if len(values) == 4 else 1.0)
    return COLORS.get(text.lower(), GREY)


def _common(node: Node, link: Link, pose: Pose, linear: Vec3, angular: Vec3) -> Entity:
    body_type = (node.get('body_type') or 'dynamic').lower()
    if body_type not in ('dynamic', 'kinematic', 'static'):
        node.warn(f'unknown body_type {body_type!r}; dynamic assumed')
        body_type = 'dynamic'
    name = node.get('name') or node.tag
    return Entity(name=name, kind='static' if body_type == 'static' else 'object',
                  links=(link,), pose=pose, fixed_base=body_type == 'static',
                  kinematic=body_type == 'kinematic',
                  linear_velocity=linear if body_type != 'static' else (0.0, 0.0, 0.0),
                  angular_velocity=angular if body_type != 'static' else (0.0, 0.0, 0.0),
                  collision_group=node.integer('collision_group'),
                  collision_mask=node.integer('collision_mask'), source=str(node.file))


def _single_link(name: str, shape: Shape, inertial: Inertial, material: str | None,
                 color: RGBA | None, pose: Pose = IDENTITY) -> Link:
    visuals = () if color is None else (Visual(shape, pose, color, name=f'{name}_visual'),)
    return Link(name, inertial, (Collision(shape, pose, material, f'{name}_collision'),), visuals)


def _primitive(node: Node) -> Entity | None:
    shape = _primitive_shape(node)
    if shape is None:
        return None
    mass = node.number('mass', 1.0) or 0.0
    inertia = _given_inertia(node) or shape_inertia(shape, mass)
    pose, linear, angular = _state_pose(node)
    name = node.get('name') or node.tag
    com = node.vec3('com', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    link = _single_link(name, shape, Inertial(mass, com, inertia),
                        node.get('material'), _appearance(node))
    entity = _common(node, link, pose, linear, angular)
    node.finish(('dim', 'inertia', 'state'))
    return entity


def _compound(node: Node) -> Entity | None:
    mass = node.number('mass', 1.0) or 0.0
    com = node.vec3('com', None)
    given = _given_inertia(node)
    compound_color = _appearance(node)
    material = node.get('material')
    name = node.get('name') or 'compound'
    children = node.child('children')
    collisions: list[Collision] = []
    visuals: list[Visual] = []
    parts = []
    if children is None:
        node.error('<compound> needs <children>')
        return None
    for child in children.children():
        if child.tag not in PRIMITIVES:
            child.warn(f'<{child.element.tag}> is not a compound child (sphere, box, capsule, '
                       'cylinder); ignored')
            continue
        shape = _primitive_shape(child)
        if shape is None:
            continue
        pose, _, _ = _state_pose(child)
        child_mass = child.number('mass')
        child_name = child.get('name') or f'{name}_{child.tag}{len(collisions)}'
        collisions.append(Collision(shape, pose, child.get('material') or material,
                                    child_name))
        color = _appearance(child) if child.has('appearance') else compound_color
        if color is not None:
            visuals.append(Visual(shape, pose, color, name=f'{child_name}_visual'))
        parts.append((shape, pose, child_mass))
        child.finish(('dim', 'state'))
    children.finish(PRIMITIVES)
    inertial = _compound_inertial(parts, mass, com, given)
    link = Link(name, inertial, tuple(collisions), tuple(visuals))
    pose, linear, angular = _state_pose(node)
    entity = _common(node, link, pose, linear, angular)
    node.finish(('inertia', 'children', 'state'))
    return entity


def _compound_inertial(parts: list[tuple[Shape, Pose, float | None]], mass: float,
                       com: Vec3 | None, given: Inertia6 | None) -> Inertial:
    if given is not None:
        return Inertial(mass, com or (0.0, 0.0, 0.0), given)
    volumes = [shape_volume(shape) for shape, _, _ in parts]
    weights = [m if m is not None else v for (_, _, m), v in zip(parts, volumes)]
    total = sum(weights)
    if total <= 0.0:
        return Inertial(mass, com or (0.0, 0.0, 0.0), sphere_inertia(mass, 0.1))
    pieces = []
    for (shape, pose, _), weight in zip(parts, weights):
        part_mass = mass * weight / total  # scaled so that the parts add up to the given mass
        pieces.append((part_mass, pose.position,
                       rotate_inertia(shape_inertia(shape, part_mass), pose.orientation)))
    total_mass, centre, inertia = combine(pieces)
    return Inertial(total_mass, com or centre, inertia)


def _mesh(node: Node) -> Entity | None:
    path = node.path('file_name')
    name = node.get('name') or 'mesh'
    mass = node.number('mass', 1.0) or 0.0
    scale = node.vec3('scale', (1.0, 1.0, 1.0)) or (1.0, 1.0, 1.0)
    com = node.vec3('com', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    inertia = _given_inertia(node)
    color = _appearance(node)
    material = node.get('material')
    pose, linear, angular = _state_pose(node)
    entity = None
    if path is None:
        node.error('<mesh> needs file_name')
    elif not paths.is_file(path):
        node.warn(f'mesh file {path} not found; object {name!r} dropped')
    else:
        if inertia is None:
            node.warn(f'mesh {name!r} without <inertia>: using that of a 0.1 m solid sphere')
            inertia = sphere_inertia(mass, 0.1)
        shape = MeshFile(path.resolve(), scale)
        link = _single_link(name, shape, Inertial(mass, com, inertia), material, color)
        entity = _common(node, link, pose, linear, angular)
    node.used.update(('body_type', 'collision_group', 'collision_mask'))
    node.finish(('inertia', 'state'))
    return entity


def _ground(node: Node) -> Entity | None:
    height = node.number('height', 0.0) or 0.0
    name = node.get('name') or 'ground'
    color = _appearance(node)
    link = _single_link(name, Plane(), Inertial(), node.get('material'), color)
    entity = Entity(name=name, kind='static', links=(link,), pose=Pose((0.0, 0.0, height)),
                    fixed_base=True, collision_group=node.integer('collision_group'),
                    collision_mask=node.integer('collision_mask'), source=str(node.file))
    node.finish()
    return entity


def _heightmap(node: Node) -> Entity | None:
    name = node.get('name') or 'heightmap'
    center = (node.number('center_x', 0.0) or 0.0, node.number('center_y', 0.0) or 0.0)
    color = _appearance(node)
    material = node.get('material')
    field_ = _heightfield(node)
    if field_ is None:
        node.finish(('terrain_properties',))
        return None
    link = _single_link(name, field_, Inertial(), material, color)
    entity = Entity(name=name, kind='static', links=(link,),
                    pose=Pose((center[0], center[1], 0.0)), fixed_base=True,
                    collision_group=node.integer('collision_group'),
                    collision_mask=node.integer('collision_mask'), source=str(node.file))
    node.finish(('terrain_properties',))
    return entity


def _heightfield(node: Node) -> Heightfield | None:
    try:
        if node.has('text'):
            path = node.path('text')
            if path is None:
                return None
            text_map = terrain.read_text_height_map(path)
            return Heightfield(text_map.heights, text_map.x_size, text_map.y_size)
        x_size, y_size = node.number('x_size'), node.number('y_size')
        if node.has('png'):
            path = node.path('png')
            z_scale = node.number('z_scale', 1.0) or 0.0
            z_offset = node.number('z_offset', 0.0) or 0.0
            if path is None or x_size is None or y_size is None:
                node.error('a PNG height map needs png, x_size and y_size')
                return None
            if not paths.is_file(path):
                node.warn(f'height-map image {path} not found; a flat height map at z_offset '
                          'stands in for it')
                return Heightfield(np.full((2, 2), z_offset), x_size, y_size)
            return Heightfield(terrain.png_heights(path, z_scale, z_offset), x_size, y_size)
        x_samples, y_samples = node.integer('x_sample'), node.integer('y_sample')
        if x_size is None or y_size is None or x_samples is None or y_samples is None:
            node.error('a height map needs x_sample, y_sample, x_size and y_size '
                       '(or text="file")')
            return None
        if node.has('height'):
            heights = node.vector('height', None) or ()
            return Heightfield(terrain.heights_from_vector(list(heights), x_samples, y_samples),
                               x_size, y_size)
        properties = node.child('terrain_properties')
        if properties is None:
            node.error('a height map needs height, text, png or <terrain_properties>')
            return None
        props = terrain.TerrainProperties(
            frequency=properties.number('frequency', 0.2) or 0.0,
            z_scale=properties.number('z_scale', 1.0) or 0.0,
            octaves=properties.integer('fractal_octaves', 3) or 1,
            lacunarity=properties.number('fractal_lacunarity', 2.0) or 2.0,
            gain=properties.number('fractal_gain', 0.5) or 0.0,
            step_size=properties.number('step_size', 0.0) or 0.0,
            height_offset=properties.number('height_offset', 0.0) or 0.0,
            seed=properties.integer('seed', 0) or 0)
        properties.finish()
        return Heightfield(terrain.fractal_heights(props, x_samples, y_samples, x_size, y_size),
                           x_size, y_size)
    except (terrain.TerrainError, OSError) as err:
        node.error(str(err))
        return None


def _articulated_system(node: Node) -> Entity | None:
    name = node.get('name') or 'robot'
    urdf_path = node.path('urdf_path')
    res_dir = node.path('res_dir')
    group, mask = node.integer('collision_group'), node.integer('collision_mask')
    state = node.child('state')
    node.finish(('state',))
    if urdf_path is None:
        node.error('<articulated_system> needs urdf_path')
        return None
    try:
        text = limits.read_text(urdf_path)
    except SceneLoadError as err:
        node.error(f'cannot read URDF: {err}')
        return None
    try:
        model = urdf_format.parse_urdf(text, file=urdf_path, name=name,
                                       res_dir=res_dir or urdf_path.parent,
                                       strict=node.loader.strict)
    except SceneLoadError as err:
        node.error(f'in URDF of {name!r}: {err}')
        return None
    node.loader.warnings.extend(model.warnings)
    entity = sensors.attach_sensor_sets(model, urdf_path, res_dir, node.loader.warnings,
                                        node.loader.metadata, node.loader.strict)
    entity = dataclasses.replace(entity, collision_group=group, collision_mask=mask)
    if state is not None:
        entity = _articulated_state(state, model, entity)
    return entity


def _articulated_state(state: Node, model: urdf_format.UrdfModel, entity: Entity) -> Entity:
    joints = model.joint_order
    base = 7 if model.floating else 0
    qpos = state.vector('qpos', None)
    qvel = state.vector('qvel', None)
    state.finish()
    if qpos is not None:
        if len(qpos) != base + len(joints):
            state.error(f'qpos has {len(qpos)} values; {entity.name!r} needs {base + len(joints)}'
                        f' ({"7 for the floating base + " if base else ""}{len(joints)} joints)')
            return entity
        if base:
            w, x, y, z = qpos[3:7]
            try:
                orientation = quat_normalized((x, y, z, w))
            except ValueError:
                state.error('qpos base quaternion must not be zero')
                orientation = IDENTITY.orientation
            entity = dataclasses.replace(entity, pose=Pose((qpos[0], qpos[1], qpos[2]),
                                                           orientation))
        entity = urdf_format.with_initial_positions(entity, dict(zip(joints, qpos[base:])))
    if qvel is not None:
        dofs = (6 if base else 0) + len(joints)
        if len(qvel) != dofs:
            state.error(f'qvel has {len(qvel)} values; {entity.name!r} needs {dofs}')
            return entity
        if base:
            entity = dataclasses.replace(entity, linear_velocity=(qvel[0], qvel[1], qvel[2]),
                                         angular_velocity=(qvel[3], qvel[4], qvel[5]))
        if any(v != 0.0 for v in qvel[(6 if base else 0):]):
            state.warn('initial joint velocities are not supported; they start at rest')
    return entity


OBJECTS: dict[str, Callable[[Node], Entity | None]] = {
    'sphere': _primitive, 'box': _primitive, 'capsule': _primitive, 'cylinder': _primitive,
    'compound': _compound, 'mesh': _mesh, 'ground': _ground, 'heightmap': _heightmap,
    'articulated_system': _articulated_system,
}


# --- names and wires ---------------------------------------------------------------------------

def _unique_names(entities: list[tuple[Entity, Node]], loader: _Loader) -> list[Entity]:
    taken = {entity.name for entity, _ in entities}
    counts: dict[str, int] = {}
    renamed: dict[str, list[str]] = {}
    first_node: dict[str, Node] = {}
    out: list[Entity] = []
    seen: set[str] = set()
    for entity, node in entities:
        name = entity.name
        if name in seen:
            count = counts.get(name, 0)
            new = name
            while new in taken:
                count += 1
                new = f'{name}_{count}'
            counts[name] = count
            taken.add(new)
            renamed.setdefault(name, []).append(new)
            entity = _renamed(entity, new)
        else:
            seen.add(name)
            first_node[name] = node
        out.append(entity)
    for name, new_names in renamed.items():
        node = first_node[name]
        shown = new_names[0] if len(new_names) == 1 else f'{new_names[0]} .. {new_names[-1]}'
        loader.warnings.append(f'{node.file}:{node.line}: object name {name!r} is used '
                               f'{len(new_names) + 1} times; the later ones are renamed {shown}')
    return out


def _renamed(entity: Entity, name: str) -> Entity:
    if len(entity.links) == 1 and not entity.joints and entity.links[0].name == entity.name:
        link = dataclasses.replace(entity.links[0], name=name)
        return dataclasses.replace(entity, name=name, links=(link,))
    return dataclasses.replace(entity, name=name)


def _wire(node: Node, entities: list[Entity]) -> Wire | None:
    by_name: dict[str, Entity] = {}
    for entity in entities:
        by_name.setdefault(entity.name, entity)
    name = node.get('name') or f'wire{node.line}'
    kind = (node.get('type') or 'stiff').lower()
    stretch = _wire_stretch(node)
    stiffness = node.number('stiffness')
    tension = node.number('tension')
    length = node.number('length')
    ends = []
    for tag in ('object1', 'object2'):
        end = node.child(tag)
        if end is None:
            node.error(f'<wire> {name!r} needs <{tag}>')
            return None
        ends.append(_wire_end(end, by_name))
    node.finish(('object1', 'object2'))
    end_a, end_b = ends
    if end_a is None or end_b is None:
        return None
    (body_a, point_a, world_a), (body_b, point_b, world_b) = end_a, end_b
    if length is None:
        length = math.dist(world_a, world_b)
    if kind not in ('stiff', 'compliant', 'custom'):
        node.warn(f'wire type {kind!r} not supported; treated as stiff')
        kind = 'stiff'
    if kind == 'compliant':
        if stiffness is None:
            node.warn(f'compliant wire {name!r} has no stiffness; 1000 N/m assumed')
        stiffness = stiffness if stiffness is not None else 1000.0
    else:
        stiffness = None
    if kind == 'custom' and tension is None:
        node.warn(f'custom wire {name!r}: its tension is set by a RaiSim program at run time; '
                  f'none given (tension attribute), so it pulls with 0 N')
    return Wire(name, body_a, point_a, body_b, point_b, length, stiffness,
                kind=cast(WireKind, kind), stretch=stretch, tension=tension or 0.0)


def _wire_stretch(node: Node) -> WireStretch:
    """RaiSim's ``stretch_type``: STRETCH_RESISTANCE_ONLY (default), COMPRESSION_RESISTANCE_ONLY
    or BOTH."""
    raw = (node.get('stretch_type') or '').lower()
    if not raw or 'stretch' in raw:
        return 'stretch'
    if 'compression' in raw:
        return 'compression'
    if 'both' in raw:
        return 'both'
    node.warn(f'unknown stretch_type {raw!r}; stretch resistance only assumed')
    return 'stretch'


def _wire_end(node: Node, by_name: Mapping[str, Entity]
              ) -> tuple[str, Vec3, Vec3] | None:
    """``entity/link``, the point in the link frame and its initial world position."""
    name = node.get('name') or ''
    entity = by_name.get(name)
    position = node.vec3('pos', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    node.raw('local_index')
    frame = node.get('frame')
    node.finish()
    if entity is None:
        node.error(f'wire end names unknown object {name!r}')
        return None
    link_name = entity.links[0].name
    if frame:
        frame_link = _frame_link(entity, frame)
        if frame_link is None:
            node.error(f'{name!r} has no frame {frame!r}')
            return None
        link_name = frame_link
    world = link_poses(entity)[link_name].transform_point(position)
    return f'{entity.name}/{link_name}', position, world


def _frame_link(entity: Entity, frame: str) -> str | None:
    for link in entity.links:
        if link.name == frame:
            return link.name
    for joint in entity.joints:
        if joint.name == frame:
            return joint.child
    return None


def link_poses(entity: Entity) -> dict[str, Pose]:
    """World poses of an entity's links at the joints' initial positions."""
    poses = {entity.links[0].name: entity.pose}
    for joint in entity.joints:  # depth-first order: parents come first
        parent = poses.get(joint.parent, entity.pose)
        motion = IDENTITY
        if joint.type == 'revolute':
            motion = Pose(orientation=quat_from_axis_angle(joint.axis, joint.initial_position))
        elif joint.type == 'prismatic':
            q = joint.initial_position
            motion = Pose((joint.axis[0] * q, joint.axis[1] * q, joint.axis[2] * q))
        poses[joint.child] = parent * joint.origin * motion
    return poses
