"""From expanded SimRobot elements to the format-neutral scene model.

See the package docstring for the mapping. Link frames: the root link of a body entity is the
body's frame. For a body behind a ``Hinge``/``Slider`` the link frame is placed so that the
joint axis passes through its origin (URDF rotates about the child origin while SimRobot
rotates about the hinge anchor): the link takes the body's orientation and the part of the
body's translation along the axis; the rest of the translation (usually zero) becomes an
offset applied to everything inside the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...scene import geometry
from ...scene.inertia import Inertia6, combine, rotate_inertia
from ...scene.model import (
    Collision,
    Entity,
    EntityKind,
    Inertial,
    Joint,
    Light,
    Link,
    MaterialPair,
    Scene,
    Surface,
    Visual,
)
from ...scene.sensors import CollisionSensor, Sensor
from ...scene.transforms import (
    IDENTITY,
    IDENTITY_QUAT,
    Pose,
    dot,
    normalized,
    quat_conjugate,
    quat_from_rpy,
    quat_normalized,
    quat_rotate,
    scale,
    sub,
)
from .instance import Instance
from .reader import Diagnostics
from .values import ACCELERATION, ANGLE, LENGTH, TIME, UNITLESS


def local_pose(inst: Instance) -> Pose:
    """The ``Translation`` and ``Rotation`` children: rotation Rz(z) Ry(y) Rx(x) at the
    translated origin."""
    translation = inst.first('translation')
    rotation = inst.first('rotation')
    position = (0.0, 0.0, 0.0)
    orientation = IDENTITY_QUAT
    if translation is not None:
        position = (translation.number('x', LENGTH), translation.number('y', LENGTH),
                    translation.number('z', LENGTH))
    if rotation is not None:
        orientation = quat_normalized(quat_from_rpy(rotation.number('x', ANGLE),
                                                    rotation.number('y', ANGLE),
                                                    rotation.number('z', ANGLE)))
    if translation is None and rotation is None:
        return IDENTITY
    return Pose(position, orientation)


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate = f'{name}_{number}'
        number += 1
    taken.add(candidate)
    return candidate


@dataclass
class _LinkParts:
    name: str
    masses: list[tuple[float, tuple[float, float, float], Inertia6]] = field(
        default_factory=list)
    collisions: list[Collision] = field(default_factory=list)
    visuals: list[Visual] = field(default_factory=list)

    def freeze(self) -> Link:
        mass, com, tensor = combine(self.masses)
        return Link(self.name, Inertial(mass, com, tensor), tuple(self.collisions),
                    tuple(self.visuals))


@dataclass
class _EntityParts:
    name: str
    pose: Pose
    links: list[_LinkParts] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    disabled: list[tuple[str, str]] = field(default_factory=list)
    link_names: set[str] = field(default_factory=set)
    joint_names: set[str] = field(default_factory=set)
    sensor_names: set[str] = field(default_factory=set)
    source: str | None = None

    def new_link(self, name: str) -> _LinkParts:
        link = _LinkParts(_unique(name or f'link{len(self.links)}', self.link_names))
        self.links.append(link)
        return link

    def has_content(self) -> bool:
        root = self.links[0]
        return bool(self.joints or self.sensors or root.collisions or root.visuals
                    or root.masses or len(self.links) > 1)

    def freeze(self, kind: EntityKind, fixed_base: bool, self_collision: bool) -> Entity:
        if kind != 'static':
            kind = 'robot' if any(j.movable for j in self.joints) or self.sensors else kind
        return Entity(self.name, kind, tuple(link.freeze() for link in self.links),
                      tuple(self.joints), tuple(self.sensors), self.pose, fixed_base=fixed_base,
                      self_collision=self_collision, disabled_collisions=tuple(self.disabled),
                      source=self.source)


class SceneBuilder:
    """Builds entities, lights and contact rules from an expanded ``Scene``."""

    def __init__(self, diag: Diagnostics):
        self.diag = diag
        self.entities: list[Entity] = []
        self.entity_names: set[str] = set()
        self.frictions: dict[tuple[str, str], dict[str, float]] = {}
        self.material_friction: dict[str, float] = {}  # Material friction="" (HEAD grammar)
        self.materials: set[str] = set()
        self._warned: set[tuple[str, str]] = set()
        self.empty_compounds: list[str] = []
        self.body_collisions = True

    # --- scene --------------------------------------------------------------------------------
    def build_scene(self, inst: Instance, source: Path) -> Scene:
        step_length = inst.number('stepLength', TIME, 0.01)
        if step_length <= 0.0:
            inst.error('attribute "stepLength" of <Scene> must be positive', 'stepLength')
            step_length = 0.01
        self.body_collisions = inst.boolean('bodyCollisions', True)
        lights: list[Light] = []
        for child in inst.children:
            cls = child.spec.cls
            if cls == 'body':
                self.add_body_entity(child, IDENTITY)
            elif cls == 'compound':
                self.add_compound_entity(child, IDENTITY)
            elif cls == 'light' and child.spec.build is not None:
                lights.append(child.spec.build(child))
            elif cls == 'userInput':
                self.add_scene_user_input(child)
        metadata = self._scene_metadata(inst)
        background = inst.color('color', (0.0, 0.0, 0.0, 1.0))
        assert background is not None
        return Scene(
            name=inst.string('name') or source.stem, entities=tuple(self.entities),
            format='simrobot', source=source, step_length=step_length,
            gravity=(0.0, 0.0, inst.number('gravity', ACCELERATION, -9.80665)),
            background=background,
            erp=inst.number('ERP', UNITLESS) if 'ERP' in inst.attrs else None,
            cfm=inst.number('CFM', UNITLESS) if 'CFM' in inst.attrs else None,
            body_collisions=self.body_collisions, lights=tuple(lights),
            material_pairs=self.material_pairs(), metadata=metadata)

    def _scene_metadata(self, inst: Instance) -> dict[str, Any]:
        metadata: dict[str, Any] = {'controller': inst.string('controller')}
        for key in ('contactSoftERP', 'contactSoftCFM', 'slip1', 'slip2'):
            if key in inst.attrs:
                metadata[key] = inst.number(key, UNITLESS)
        solver = inst.first('solver')
        if solver is not None:
            metadata['quick_solver'] = {'iterations': solver.integer('iterations', -1),
                                        'skip': solver.integer('skip', 1)}
        if inst.unknown:
            metadata['scene_attributes'] = dict(inst.unknown)
        if self.empty_compounds:
            metadata['empty_compounds'] = list(self.empty_compounds)
        return metadata

    def add_scene_user_input(self, inst: Instance) -> None:
        parts = _EntityParts(self._entity_name(inst, 'user_input'), IDENTITY,
                             source=f'{inst.file}:{inst.line}')
        link = parts.new_link('base')
        self.add_sensor(parts, link, inst, IDENTITY)
        self.entities.append(parts.freeze('static', True, False))

    def _entity_name(self, inst: Instance, fallback: str) -> str:
        return _unique(inst.string('name') or fallback, self.entity_names)

    # --- entities -----------------------------------------------------------------------------
    def body_entity(self, inst: Instance, parent_pose: Pose, name: str | None = None) -> Entity:
        pose = parent_pose * local_pose(inst)
        parts = _EntityParts(name or self._entity_name(inst, 'body'), pose,
                             source=f'{inst.file}:{inst.line}')
        link = parts.new_link(inst.string('name') or 'base')
        self.add_body_contents(parts, link, inst, IDENTITY)
        # SimRobot puts all geometries of one top-level Body tree into one collision space and
        # only collides spaces with each other (Simulation.cpp, Body.cpp @ 7348c36): the bodies
        # of one robot never collide with each other, whatever bodyCollisions says
        return parts.freeze('object', False, False)

    def add_body_entity(self, inst: Instance, parent_pose: Pose) -> None:
        self.entities.append(self.body_entity(inst, parent_pose))

    def compound_entity(self, inst: Instance, parent_pose: Pose, name: str | None = None,
                        free_bodies: list[Entity] | None = None) -> _EntityParts:
        pose = parent_pose * local_pose(inst)
        parts = _EntityParts(name or self._entity_name(inst, 'compound'), pose,
                             source=f'{inst.file}:{inst.line}')
        link = parts.new_link(inst.string('name') or 'base')
        self.add_compound_contents(parts, link, inst, IDENTITY, pose, free_bodies)
        return parts

    def add_compound_entity(self, inst: Instance, parent_pose: Pose) -> None:
        free_bodies: list[Entity] = []
        parts = self.compound_entity(inst, parent_pose, free_bodies=free_bodies)
        if parts.has_content():
            articulated = bool(parts.joints)
            self.entities.append(parts.freeze('robot' if articulated else 'static', True,
                                              self.body_collisions))
        else:
            self.empty_compounds.append(parts.name)
        self.entities.extend(free_bodies)

    def add_compound_contents(self, parts: _EntityParts, link: _LinkParts, inst: Instance,
                              offset: Pose, world: Pose, free_bodies: list[Entity] | None) -> None:
        for child in inst.children:
            cls = child.spec.cls
            if cls == 'compound':
                local = local_pose(child)
                self.add_compound_contents(parts, link, child, offset * local, world * local,
                                           free_bodies)
            elif cls == 'body':
                if free_bodies is None:
                    child.warn('a free <Body> inside a compound fragment is ignored')
                else:
                    free_bodies.append(self.body_entity(child, world))
            else:
                self.add_part(parts, link, child, offset)

    def add_body_contents(self, parts: _EntityParts, link: _LinkParts, inst: Instance,
                          offset: Pose) -> None:
        for child in inst.children:
            if child.spec.cls == 'mass':
                self.add_mass(link, child, offset)
            else:
                self.add_part(parts, link, child, offset)

    def add_part(self, parts: _EntityParts, link: _LinkParts, child: Instance,
                 offset: Pose) -> None:
        cls = child.spec.cls
        if cls == 'geometry':
            self.add_geometry(link, child, offset, None)
        elif cls == 'appearance':
            self.add_appearance(link, child, offset)
        elif cls in ('intSensor', 'extSensor', 'userInput'):
            self.add_sensor(parts, link, child, offset)
        elif cls == 'joint':
            self.add_joint(parts, link, child, offset)

    # --- link contents ------------------------------------------------------------------------
    def add_mass(self, link: _LinkParts, inst: Instance, pose: Pose) -> None:
        frame = pose * local_pose(inst)
        assert inst.spec.build is not None
        mass, com, tensor = inst.spec.build(inst)
        if mass > 0.0:
            link.masses.append((mass, frame.transform_point(com),
                                rotate_inertia(tensor, frame.orientation)))
        for child in inst.all('mass'):
            self.add_mass(link, child, frame)

    def add_geometry(self, link: _LinkParts, inst: Instance, pose: Pose, material: str | None,
                     unnamed_prefix: str | None = None, names: list[str] | None = None) -> None:
        frame = pose * local_pose(inst)
        material_inst = inst.first('material')
        if material_inst is not None:
            material = self.register_material(material_inst) or material
        assert inst.spec.build is not None
        shape = inst.spec.build(inst)
        if shape is not None:
            name = inst.string('name')
            if not name and unnamed_prefix is not None:
                name = f'{unnamed_prefix}_{len(names or [])}'
            link.collisions.append(Collision(shape, frame, material, name))
            if names is not None:
                names.append(name)
        for child in inst.all('geometry'):
            self.add_geometry(link, child, frame, material, unnamed_prefix, names)

    def add_appearance(self, link: _LinkParts, inst: Instance, pose: Pose) -> None:
        frame = pose * local_pose(inst)
        assert inst.spec.build is not None
        shape = inst.spec.build(inst)
        surface = inst.first('surface')
        if shape is not None and surface is not None:
            color = surface_color(surface, self._warn_once)
            texture = surface.path('texture' if 'texture' in surface.attrs else 'diffuseTexture')
            link.visuals.append(Visual(shape, frame, color, texture, inst.string('name'),
                                       surface_material(surface)))
        for child in inst.all('appearance'):
            self.add_appearance(link, child, frame)

    def _warn_once(self, inst: Instance, key: str, message: str) -> None:
        """A warning for an attribute that is understood but not simulated, once per
        element and attribute name in a load."""
        if (inst.tag, key) not in self._warned:
            self._warned.add((inst.tag, key))
            inst.warn(message, key)

    def register_material(self, inst: Instance) -> str | None:
        name = inst.string('name')
        if not name:
            return None
        # SimRobot HEAD grammar: the material's own coefficients (MuJoCo priority 1: they hold
        # against every material; two of them mix by the larger value)
        own = self.material_friction
        self.materials.add(name)
        if 'friction' in inst.attrs and name not in own:
            value = inst.number('friction', UNITLESS)
            if value < 0.0:
                inst.error('attribute "friction" of <Material> must not be negative', 'friction')
            own[name] = max(0.0, value)
        if 'rollingFriction' in inst.attrs:
            self._warn_once(inst, 'rollingFriction', 'attribute "rollingFriction" of <Material> '
                            '(MuJoCo rolling friction, a length) is not simulated; use '
                            '<RollingFriction> (a deceleration) for rolling bodies')
        for child in inst.all('friction'):
            other = child.string('material', required=True)
            value = child.number('value', UNITLESS, 1.0, required=True)
            if value < 0.0:
                child.error(f'attribute "value" of <{child.tag}> must not be negative', 'value')
            key = 'friction' if child.tag == 'Friction' else 'rolling_friction'
            pair = (name, other) if name <= other else (other, name)
            self.frictions.setdefault(pair, {}).setdefault(key, value)
        return name

    def material_pairs(self) -> tuple[MaterialPair, ...]:
        frictions = {pair: dict(values) for pair, values in self.frictions.items()}
        own = self.material_friction
        others = sorted(self.materials | {''})
        for name, value in own.items():
            for other in others:
                if other == name and other not in own:
                    continue
                pair = (name, other) if name <= other else (other, name)
                mixed = max(value, own.get(other, value))
                frictions.setdefault(pair, {}).setdefault('friction', mixed)
        return tuple(MaterialPair(a, b, values.get('friction'), values.get('rolling_friction'))
                     for (a, b), values in sorted(frictions.items()))

    def add_sensor(self, parts: _EntityParts, link: _LinkParts, inst: Instance,
                   pose: Pose) -> None:
        frame = pose * local_pose(inst)
        name = _unique(inst.string('name') or inst.tag, parts.sensor_names)
        if inst.tag == 'CollisionSensor':
            names: list[str] = []
            for child in inst.all('geometry'):
                self.add_geometry(link, child, frame, None, name, names)
            parts.sensors.append(CollisionSensor(name, link.name, tuple(names), frame))
            return
        assert inst.spec.build is not None
        parts.sensors.append(inst.spec.build(inst, name, link.name, frame))

    # --- joints -------------------------------------------------------------------------------
    def add_joint(self, parts: _EntityParts, parent: _LinkParts, inst: Instance,
                  offset: Pose) -> None:
        axis_inst = inst.first('axis')
        body = inst.first('body')
        if axis_inst is None or body is None:
            return  # reported by the expander
        try:
            axis = normalized((axis_inst.number('x', UNITLESS), axis_inst.number('y', UNITLESS),
                               axis_inst.number('z', UNITLESS)))
        except ValueError:
            axis_inst.error(f'the <Axis> of <{inst.tag}> is the zero vector')
            return
        prismatic = inst.tag == 'Slider'
        hinge = offset * local_pose(inst)
        body_pose = local_pose(body)
        to_body = quat_conjugate(body_pose.orientation)
        if prismatic:  # a translation commutes with sliding: the body frame is the link frame
            origin, contents = hinge * body_pose, IDENTITY
        else:
            along = scale(axis, dot(body_pose.position, axis))
            across = sub(body_pose.position, along)
            origin = hinge * Pose(along, body_pose.orientation)
            contents = Pose(quat_rotate(to_body, across), IDENTITY_QUAT)
        child = parts.new_link(body.string('name') or f'{parent.name}_child')
        limits, initial = self._deflection(axis_inst, prismatic)
        motor_inst = axis_inst.first('motor')
        motor = None
        if motor_inst is not None and motor_inst.spec.build is not None:
            motor = motor_inst.spec.build(motor_inst, prismatic)
        name = _unique(inst.string('name') or f'{child.name}_joint', parts.joint_names)
        parts.joints.append(Joint(name, 'prismatic' if prismatic else 'revolute', parent.name,
                                  child.name, origin, quat_rotate(to_body, axis), limits,
                                  initial, motor))
        if not body.boolean('collideWithParent', False):
            parts.disabled.append((parent.name, child.name))
        self.add_body_contents(parts, child, body, contents)

    @staticmethod
    def _deflection(axis: Instance, prismatic: bool) -> tuple[tuple[float, float] | None, float]:
        deflection = axis.first('deflection')
        if deflection is None:
            return None, 0.0
        units = LENGTH if prismatic else ANGLE
        low = deflection.number('min', units, required=True)
        high = deflection.number('max', units, required=True)
        if low > high:  # SimRobot clamps the lower stop to the upper one
            low = high
        initial = deflection.number('init', units, 0.0)
        return (low, high), initial


def surface_material(surface: Instance) -> Surface:
    """The Phong material of a ``Surface`` (what the GL renderer lights).

    Older grammar: SimRobot's own colours; ``ambientColor`` defaults to the diffuse colour,
    ``specularColor`` and ``emissionColor`` to black, ``shininess`` to 1. PBR grammar mapped to
    Phong: diffuse ``albedo * (1 - metallic)``, ambient ``albedo * ambient`` (default 1),
    specular ``0.04 (1 - metallic) + albedo * metallic``, shininess ``2 / roughness^4 - 2``
    (the Blinn-Phong exponent of a GGX lobe of that roughness; default roughness 1), clamped
    to 1..128.
    """
    if 'albedo' in surface.attrs or 'diffuseColor' not in surface.attrs and any(
            key in surface.attrs for key in ('alpha', 'metallic', 'roughness', 'texture')):
        albedo = surface.color('albedo') or geometry.GREY
        metallic = min(1.0, max(0.0, surface.number('metallic', UNITLESS, 0.0)))
        roughness = min(1.0, max(0.05, surface.number('roughness', UNITLESS, 1.0)))
        occlusion = surface.number('ambient', UNITLESS, 1.0)
        rgb = albedo[:3]
        return Surface(
            diffuse=(*(c * (1.0 - metallic) for c in rgb), albedo[3]),  # type: ignore[arg-type]
            ambient=(*(c * occlusion for c in rgb), albedo[3]),  # type: ignore[arg-type]
            specular=(*(0.04 * (1.0 - metallic) + c * metallic for c in rgb), 1.0),  # type: ignore[arg-type]
            shininess=min(128.0, max(1.0, 2.0 / roughness ** 4 - 2.0)))
    diffuse = surface.color('diffuseColor') or geometry.GREY
    return Surface(diffuse=diffuse, ambient=surface.color('ambientColor') or diffuse,
                   specular=surface.color('specularColor') or (0.0, 0.0, 0.0, 1.0),
                   emission=surface.color('emissionColor') or (0.0, 0.0, 0.0, 1.0),
                   shininess=min(128.0, max(0.0, surface.number('shininess', UNITLESS, 1.0))))


def surface_color(surface: Instance, warn_once: Any = None) -> tuple[float, float, float, float]:
    """The one colour a visual gets from a ``Surface``.

    SimRobot HEAD (PBR): ``albedo`` with ``alpha`` (default 1) as its alpha; ``metallic``,
    ``roughness`` and ``ambient`` are understood but not rendered (one warning each).
    Older grammar: SimRobot lights a surface with its ambient and diffuse colours separately,
    and some surfaces are visible only through the ambient term (B-Human's field: black
    diffuse, green ambient). Per channel the larger of the two keeps such surfaces visible and
    leaves ordinary ones (ambient darker than diffuse) as they are; alpha comes from the
    diffuse colour.
    """
    if 'albedo' in surface.attrs or 'diffuseColor' not in surface.attrs and any(
            key in surface.attrs for key in ('alpha', 'metallic', 'roughness', 'texture')):
        albedo = surface.color('albedo', required=True) or geometry.GREY
        alpha = surface.number('alpha', UNITLESS, albedo[3])
        if not 0.0 <= alpha <= 1.0:
            surface.error('attribute "alpha" of <Surface> must be between 0 and 1', 'alpha')
            alpha = min(1.0, max(0.0, alpha))
        if warn_once is not None:
            for key in ('metallic', 'roughness', 'ambient'):
                if key in surface.attrs:
                    warn_once(surface, key, f'attribute "{key}" of <Surface> is only '
                              'approximated: the gl renderer maps it to Phong, TinyRenderer '
                              'uses the albedo colour')
        return (albedo[0], albedo[1], albedo[2], alpha)
    diffuse = surface.color('diffuseColor', required=True) or geometry.GREY
    ambient = surface.color('ambientColor')
    if ambient is None:
        return diffuse
    return (max(diffuse[0], ambient[0]), max(diffuse[1], ambient[1]),
            max(diffuse[2], ambient[2]), diffuse[3])
