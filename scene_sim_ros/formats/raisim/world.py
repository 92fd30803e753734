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
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError
from ...scene import ContactDefaults, Entity, MaterialPair, Scene
from ...scene.transforms import Vec3
from .. import paths
from .. import urdf as urdf_format
from . import expressions
from .node import Loader, Node, normalize_name
from .objects import OBJECTS
from .wires import wire

DEFAULT_TIME_STEP = 0.005
DEFAULT_GRAVITY: Vec3 = (0.0, 0.0, -9.81)


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
    loader = Loader(strict, {k: str(v) for k, v in (parameters or {}).items()})
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
    wires = tuple(w for w in (wire(node, entities) for node in world.wires) if w is not None)
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


def _parameter_hint(name: str, scope: Mapping[str, str], loader: Loader) -> str:
    """'; did you mean ...' for a missing ``@@name``: a given parameter that looks like a typo
    of it, or a defined one that it looks like a typo of."""
    given = [p for p in loader.user_parameters if p not in loader.missing]
    match = difflib.get_close_matches(name, given, n=1)
    if match:
        return f'; {match[0]} was given: did you mean {name}?'
    match = difflib.get_close_matches(name, [p for p in scope if p not in loader.missing], n=1)
    return f'; did you mean @@{match[0]}?' if match else ''


def _collect_parameters(root: etree._Element, path: Path, loader: Loader) -> dict[str, str]:
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
    budget = node.loader.budget
    try:
        copies = len(values) * elements
    except OverflowError:  # more than sys.maxsize values
        copies = budget.limit + 1
    # nested arrays multiply: refuse at the first copy what all copies of the enclosing arrays
    # would spend (30 nested arrays of 2 took 14 s to reach the limit one copy at a time)
    enclosing = node.loader.array_copies
    if enclosing * copies > budget.limit:
        budget.spend(budget.limit + 1, 'objects (<array> copies)', node.file, node.line)
    budget.spend(copies, 'objects (<array> copies)', node.file, node.line)
    node.loader.array_copies = enclosing * max(len(values), 1)
    try:
        for value in values:
            scope = {**node.scope, name: str(value)}
            for child in node.element:
                if isinstance(child.tag, str):
                    _object(Node(child, node.file, scope, node.loader), world)
    finally:
        node.loader.array_copies = enclosing


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


# --- unique names ------------------------------------------------------------------------------

def _unique_names(entities: list[tuple[Entity, Node]], loader: Loader) -> list[Entity]:
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
