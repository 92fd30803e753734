"""Webots worlds (``.wbt``) and PROTO files (``.proto``) -> :class:`~scene_sim_ros.scene.Scene`.

Syntax (:mod:`.lexer`, :mod:`.parser`): the ``#VRML_SIM`` header and its version, nodes with
SF/MF fields (numbers, vectors, axis-angle rotations, strings with escapes, ``TRUE``/``FALSE``,
nodes, ``NULL``), comments, ``DEF``/``USE``, ``PROTO`` definitions in the world and in
``.proto`` files (``IS`` bindings, interface defaults, nesting), ``EXTERNPROTO`` to local paths,
and the simple procedural templates (``%<= fields.x.value >%``; :mod:`.template`).

Mapping (:mod:`.mapping`): ``WorldInfo`` (gravity, ``basicTimeStep`` ms -> ``step_length`` s,
ERP/CFM, ``contactProperties`` -> ``material_pairs``, and Webots' default ContactProperties
(bounce 0.5 above 0.01 m/s) -> ``contact_defaults``; worlds before R2022a are Y-up and are
turned Z-up by +90 degrees about x), ``Background.skyColor``, lights, ``Solid``/``Robot`` trees
with ``Physics`` (mass or density x bounding volume, centre of mass, inertia matrix),
bounding objects (Box, Sphere, Cylinder, Capsule, Plane, IndexedFaceSet, Mesh (local files),
ElevationGrid (R2022a+), Group, Transform/Pose), ``Shape`` appearances (PBRAppearance
baseColor, Material diffuseColor, transparency, local ImageTextures) -> visuals,
``HingeJoint``/``SliderJoint`` -> revolute/prismatic joints, ``Hinge2Joint`` -> two revolute
joints through a 1 g intermediate link, ``BallJoint`` -> 'ball', ``Propeller`` -> a
velocity-controlled revolute joint (its motor's name) turning a 1 g helix on the shaft axis and
a :class:`~scene_sim_ros.scene.Propeller` whose thrust and torque laws the simulation applies
(Webots' ``T = t1 |w| w - t2 |w| V``, ``Q = q1 |w| w - q2 |w| V``); ``RotationalMotor``/
``LinearMotor`` -> :class:`ServoMotor` (position control as in Webots: ``controlPID``,
``maxVelocity``, ``maxTorque``/``maxForce``; the P gain is raised to at least 1/step so that
a far target is approached at ``maxVelocity`` as in Webots, because our servo slew-limits its
set-point first; ``minPosition``/``maxPosition`` or the joint stops
as limits; the motor's name names the joint), ``PositionSensor`` -> joint position sensor,
``Camera``, ``RangeFinder`` and ``Lidar`` -> (depth) cameras, ``DistanceSensor`` (range from
the lookup table), ``TouchSensor`` -> collision sensor, ``Accelerometer``, ``Gyro``,
``InertialUnit``, ``GPS``, ``Compass``, ``Emitter``/``Receiver`` (range, aperture, channel,
type), ``LED``, ``LightSensor``; lights switched off (``on FALSE``) are left out. Since R2022a
Webots devices look along +x with z up, as our sensors do; older cameras looked along -z with y
up and are rotated accordingly.
Modules: :mod:`.mapping` (Solid/Robot trees: solids, shapes, joints, devices' placement),
:mod:`.devices` (devices -> sensors), :mod:`.world` (WorldInfo, lights), :mod:`.appearance`
(Phong surfaces of appearances), :mod:`.context` (the load's context, link and entity drafts).

Entities: a top-level ``Robot`` is a 'robot' (fixed to the world when it has no Physics, as
in Webots); a top-level ``Solid`` with joints or devices is a 'robot', with Physics an
'object', else 'static'. A Solid nested without a joint is fused into its parent when it has
no Physics, else attached by a fixed joint. Names come from ``name`` fields, made unique the
Webots way (``solid``, ``solid(1)``).

PROTOs, meshes and textures are found as Webots finds them (:mod:`.resolve`): locally, in a
Webots installation (``WEBOTS_HOME``), in the user cache, or downloaded into it (parameters
``webots.proto_path``, ``webots.home``, ``webots.cache_dir``, ``webots.download``); each PROTO's
source is in ``scene.metadata['webots_protos']``. A PROTO found nowhere that is part of a robot
(inside a Robot, an endPoint, a geometry, or a top-level instance with robot fields such as
``controller``) is an error naming every place looked and the remedies, because leaving it out
would change the robot. Decorative instances (top-level arenas and backgrounds, appearances)
are left out with one warning each, or are errors with ``strict=True``; the floor PROTOs
``RectangleArena`` and ``Floor`` are replaced by a static plane at their pose (with a warning
saying so), so that the Webots device sample worlds load and their robots stand on a floor.

Procedural PROTOs (JavaScript or Lua templates) are expanded by :mod:`.template`; the
``webots.template_time_limit`` (seconds, default 2) and ``webots.template_memory_limit`` (MiB,
default 256) parameters bound each expansion.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from ...errors import SceneLoadError
from ...scene.geometry import GREY, Box, Plane
from ...scene.model import Collision, ContactDefaults, Entity, Light, Scene, Visual
from ...scene.transforms import IDENTITY, Pose
from . import fields
from .context import Context, EntityDraft, NameSet, node_pose, unique
from .mapping import EntityBuilder, build_entity
from .nodes import Node, Value
from .parser import Document, parse_file
from .protos import BASE_NODES, ProtoLibrary
from .resolve import REMEDIES, RefusedPath, Resolver, ResolverSettings
from .template import Limits
from .world import Y_UP_TO_Z_UP, contact_pairs, gravity, light

ROBOT_FIELDS = frozenset({'controller', 'controllerArgs', 'supervisor', 'extensionSlot',
                          'bodySlot', 'toolSlot', 'sensorSlot'})
IGNORED_TOP_LEVEL = frozenset({'Viewpoint', 'Fog'})
LIGHTS = frozenset({'DirectionalLight', 'PointLight', 'SpotLight'})
NEW_AXES_YEAR = 2022
MAX_EXPLAINED = 3  # missing PROTOs whose every looked-in place the error lists
# Webots' floor PROTOs, which most sample worlds fetch remotely: a plane stands in for them
# (name, size field, default size)
FLOOR_STAND_INS: dict[str, tuple[str, str, tuple[float, float]]] = {
    'RectangleArena': ('rectangle arena', 'floorSize', (1.0, 1.0)),
    'Floor': ('floor', 'size', (10.0, 10.0)),
}


class _World:
    def __init__(self, context: Context, world_pose: Pose):
        self.context = context
        self.world_pose = world_pose
        self.entities: list[Entity] = []
        self.lights: list[Light] = []
        self.names: set[str] = NameSet()
        self.background = (0.0, 0.0, 0.0, 1.0)
        self.controllers: dict[str, str] = {}
        self.viewpoint: Pose | None = None

    def add(self, node: Node, pose: Pose) -> None:
        if node.missing_url is not None:
            self.missing(node, pose)
        elif node.type in ('Solid', 'Robot'):
            entity = build_entity(self.context, node, pose, self.names)
            self.entities.append(entity)
            if node.type == 'Robot':
                self.controllers[entity.name] = node.string('controller', '<generic>')
        elif node.type in ('Pose', 'Transform'):
            for child in node.nodes('children'):
                self.add(child, pose * node_pose(node))
        elif node.type == 'Group':
            for child in node.nodes('children'):
                self.add(child, pose)
        elif node.type in LIGHTS:
            if node.bool('on', True):  # a light switched off lights nothing
                self.lights.append(light(node, self.world_pose))
        elif node.type == 'Background':
            sky = node.mf_vec('skyColor', 3)
            if sky:
                r, g, b = sky[0]  # mf_vec: groups of 3
                self.background = (r, g, b, 1.0)
        elif node.type == 'Shape':
            self.decoration(node, pose)
        elif node.type == 'Viewpoint':  # where Webots' 3D view starts: a named pose
            self.viewpoint = pose * Pose(node.vec3('position', (0.0, 0.0, 0.0)),
                                         node.rotation('orientation'))
        elif node.type not in BASE_NODES:
            pass  # an unknown node: reported with the closest known type by _check_names
        elif node.type not in IGNORED_TOP_LEVEL and node.type != 'WorldInfo':
            self.context.warn(node, f'{node.type} at the top level is not supported; ignored')

    def decoration(self, node: Node, pose: Pose) -> None:
        draft = EntityDraft(unique('shape', self.names))
        link = draft.new_link(draft.name)
        EntityBuilder(self.context, draft).shape(node, link, IDENTITY)
        if link.visuals:
            self.entities.append(Entity(draft.name, 'static', (link.freeze(),), pose=pose,
                                        fixed_base=True))

    def missing(self, node: Node, pose: Pose) -> None:
        message = f'PROTO {node.type} is not available locally ({node.missing_url})'
        robot_like = any(name in ROBOT_FIELDS for name in node.fields)
        if robot_like:
            self.context.errors.append(f'{node.file}:{node.line}: {message}; it is a robot')
        elif node.type in FLOOR_STAND_INS:
            self.context.warn(node, f'{message}; replaced by a floor plane (walls and '
                              'appearance left out)')
            self.floor(node, pose)
        else:
            self.context.warn(node, f'{message}; left out')

    def floor(self, node: Node, pose: Pose) -> None:
        default_name, size_field, default_size = FLOOR_STAND_INS[node.type]
        draft = EntityDraft(unique(node.string('name', default_name), self.names))
        link = draft.new_link(draft.name)
        size_x, size_y = node.floats(size_field, 2, default_size)
        # Webots' default contact material, or the one the floor PROTO's field names
        material = node.string('floorContactMaterial' if node.type == 'RectangleArena'
                               else 'contactMaterial', 'default')
        link.collisions.append(Collision(Plane(), material=material, name=draft.name))
        link.visuals.append(Visual(Box((size_x, size_y, 1e-3)), color=GREY))
        self.entities.append(Entity(draft.name, 'static', (link.freeze(),),
                                    pose=pose * node_pose(node), fixed_base=True))


def _y_up(document: Document, world_info: Node | None) -> bool:
    if document.version is None or document.version[0] >= NEW_AXES_YEAR:
        return False
    system = world_info.string('coordinateSystem', 'NUE') if world_info is not None else 'NUE'
    return system != 'ENU'


def _template_context(document: Document, path: Path) -> dict[str, str]:
    """What a procedural PROTO's ``context`` says about the world being loaded."""
    info = next((n for n in document.nodes if n.type == 'WorldInfo'), None)
    old = document.version is not None and document.version[0] < NEW_AXES_YEAR
    system = info.string('coordinateSystem', 'NUE' if old else 'ENU') if info else (
        'NUE' if old else 'ENU')
    world = path.resolve()
    project = world.parent.parent if world.parent.name == 'worlds' else world.parent
    return {'world': str(world) if path.suffix.lower() == '.wbt' else '',
            'project_path': str(project) + '/', 'coordinate_system': system,
            'temporary_files_path': tempfile.gettempdir() + '/'}


def _raise_collected(context: Context, library: ProtoLibrary) -> None:
    if not context.errors:
        return
    if library.missing:
        named = [name for name in library.missing
                 if any(f'PROTO {name} ' in error for error in context.errors)]
        context.errors.extend(f'  {name} was looked for in: '
                              + '; '.join(library.missing[name].looked)
                              for name in named[:MAX_EXPLAINED])
        others = [name for name in library.missing if name not in named[:MAX_EXPLAINED]]
        if others:
            context.errors.append('also missing: ' + ', '.join(others))
        context.errors.append(f'to fix: {REMEDIES}')
    first, *rest = context.errors
    raise SceneLoadError('\n'.join([first, *rest]))


def _version_tag(document: Document) -> str | None:
    return f'R{document.version[0]}{document.version[1]}' if document.version else None


def _asset_locator(resolver: Resolver, context: Context) -> Callable[[Node, str], Path | None]:
    """Finds a Mesh or ImageTexture url against the file that wrote it (the PROTO's own
    location, or the world for a value given to a PROTO field)."""
    def locate(node: Node, url: str) -> Path | None:
        value = node.fields.get('url')
        written = value.origin if isinstance(value, Value) and value.origin else node.file
        try:
            lookup = resolver.find_asset(url, resolver.location_of(written))
        except RefusedPath as err:
            context.warn(node, f'{node.type} url: {err}', 'url')
            return None
        if lookup.found is None:
            context.warn(node, f'{node.type} url {url!r} not found (looked in '
                         + '; '.join(lookup.looked) + ')', 'url')
            return None
        return lookup.found.path
    return locate


def _check_names(nodes: list[Node], library: ProtoLibrary, context: Context) -> None:
    """Typos, as Webots reports them: unknown node types and unknown fields of built-in nodes
    (warnings that name the closest known name; errors with ``strict``)."""
    known_types = set(BASE_NODES)
    for document in library.documents.values():
        known_types |= set(document.protos) | set(document.externprotos)
    for node in library.unknown:
        context.warn(node, f'unknown node {node.type}' + fields.hint(node.type, known_types, '')
                     + '; skipped')
    fields.check_fields(nodes, lambda node, name, message: context.warn(node, message, name))


def _proto_instance(document: Document, path: Path) -> list[Node]:
    if not document.protos:
        raise SceneLoadError('the file defines no PROTO', path)
    name = list(document.protos)[-1]
    return [Node(name, {}, document.file, document.protos[name].line)]


def load(path: str | Path, *, parameters: Mapping[str, str] | None = None,
         strict: bool = False) -> Scene:
    """Load a Webots world or a PROTO file (a scene holding one instance with its defaults)."""
    path = Path(path)
    parameters = parameters or {}
    document = parse_file(path)
    context = Context(str(path), False, strict)
    resolver = Resolver(path, ResolverSettings.from_parameters(parameters),
                        _version_tag(document), lambda message: context.warnings.append(
                            f'{path}: {message}'))
    try:
        return _load(path, document, parameters, context, resolver)
    finally:
        resolver.close()


def _load(path: Path, document: Document, parameters: Mapping[str, str], context: Context,
          resolver: Resolver) -> Scene:
    strict = context.strict
    context.locate = _asset_locator(resolver, context)
    library = ProtoLibrary(resolver, lambda file, line, message: (
        context.errors if strict else context.warnings).append(f'{file}:{line}: {message}'))
    library.add(document)
    library.limits = Limits.from_parameters(parameters)
    library.template_context = _template_context(document, path)
    top = _proto_instance(document, path) if path.suffix.lower() == '.proto' else document.nodes
    nodes = library.expand_all(top)
    _check_names(nodes, library, context)
    world_info = next((n for n in nodes if n.type == 'WorldInfo'), None)
    context.y_up = _y_up(document, world_info)
    info = world_info or Node('WorldInfo')
    context.step_length = info.float('basicTimeStep', 32.0) / 1000.0
    world_pose = Y_UP_TO_Z_UP if context.y_up else IDENTITY
    world = _World(context, world_pose)
    for node in nodes:
        world.add(node, world_pose)
    _raise_collected(context, library)
    return Scene(
        name=info.string('title', '') or path.stem,
        entities=tuple(world.entities),
        format='webots',
        source=path,
        step_length=context.step_length,
        gravity=gravity(info, context.y_up),
        background=world.background,
        erp=info.float('ERP', 0.2),
        cfm=info.float('CFM', 1e-5),
        lights=tuple(world.lights),
        material_pairs=tuple(contact_pairs(info, context)),
        contact_defaults=ContactDefaults(restitution=0.5, restitution_threshold=0.01),
        warnings=tuple(context.warnings),
        metadata={'webots_version': document.version, 'controllers': world.controllers,
                  'y_up': context.y_up, 'viewpoint': world.viewpoint,
                  'webots_protos': {name: (found.source, found.shown)
                                    for name, found in resolver.protos.items()},
                  'webots_downloads': [url for url, _ in resolver.downloader.fetched],
                  'webots_remote_files': resolver.remote_files()},
    )


__all__ = ['load']
