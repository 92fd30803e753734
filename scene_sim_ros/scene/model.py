"""The format-neutral scene model.

A :class:`Scene` holds simulation settings and :class:`Entity` objects. An entity is a tree of
:class:`Link` objects connected by :class:`Joint` objects (URDF conventions: a joint's ``origin``
is the child link frame in the parent link frame at joint position 0, its ``axis`` is a unit
vector in the child frame). All values are SI: metres, radians, kilograms, seconds. Poses are
position + quaternion (x, y, z, w). Everything is immutable; loaders build it, the simulator
reads it, and nothing downstream knows which file format it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .geometry import GREY, RGBA, Shape
from .inertia import ZERO_INERTIA, Inertia6
from .motors import Motor
from .sensors import Sensor
from .transforms import IDENTITY, ZERO, Pose, Vec3

EntityKind = Literal['robot', 'object', 'static']
JointType = Literal['revolute', 'prismatic', 'fixed', 'ball']
MOVABLE_JOINT_TYPES = ('revolute', 'prismatic')


@dataclass(frozen=True, slots=True)
class Inertial:
    """Mass (kg), centre of mass in the link frame, inertia (kg*m^2) about the centre of mass
    in link-frame axes as ``(ixx, ixy, ixz, iyy, iyz, izz)``."""

    mass: float = 0.0
    com: Vec3 = ZERO
    inertia: Inertia6 = ZERO_INERTIA


@dataclass(frozen=True, slots=True)
class Collision:
    """A collision shape at ``pose`` in its link's frame; ``material`` names a scene material."""

    shape: Shape
    pose: Pose = IDENTITY
    material: str | None = None
    name: str = ''


@dataclass(frozen=True, slots=True)
class Surface:
    """Phong material (OpenGL's fixed-function terms, SimRobot's ``Surface``): the ambient colour
    is lit by the lights' ambient, the diffuse one by their diffuse term, ``specular`` with
    exponent ``shininess`` (0..128), ``emission`` glows by itself."""

    diffuse: RGBA = GREY
    ambient: RGBA = GREY
    specular: RGBA = (0.0, 0.0, 0.0, 1.0)
    emission: RGBA = (0.0, 0.0, 0.0, 1.0)
    shininess: float = 1.0


@dataclass(frozen=True, slots=True)
class Visual:
    """What is drawn: a shape at ``pose`` with a colour (RGBA 0..1) and an optional texture.

    ``color`` is the one colour a renderer without a material model uses (TinyRenderer);
    ``surface``, where the format has one, the full material (the GL renderer's Phong law).
    """

    shape: Shape
    pose: Pose = IDENTITY
    color: RGBA = GREY
    texture: Path | None = None
    name: str = ''
    surface: Surface | None = None


@dataclass(frozen=True, slots=True)
class Link:
    name: str
    inertial: Inertial = Inertial()
    collisions: tuple[Collision, ...] = ()
    visuals: tuple[Visual, ...] = ()


@dataclass(frozen=True, slots=True)
class Joint:
    """Connects ``parent`` to ``child`` (link names of the same entity).

    ``limits`` (lower, upper) in rad or m, ``None`` when unlimited; ``initial_position`` is where
    the joint starts; ``motor`` is ``None`` for a passive joint. ``max_effort``/``max_velocity``
    are hard limits of the joint itself (``None``: unlimited or taken from the motor).
    """

    name: str
    type: JointType
    parent: str
    child: str
    origin: Pose = IDENTITY
    axis: Vec3 = (0.0, 0.0, 1.0)
    limits: tuple[float, float] | None = None
    initial_position: float = 0.0
    motor: Motor | None = None
    damping: float = 0.0
    friction: float = 0.0
    max_effort: float | None = None
    max_velocity: float | None = None

    @property
    def movable(self) -> bool:
        return self.type in MOVABLE_JOINT_TYPES


@dataclass(frozen=True, slots=True)
class Propeller:
    """A propeller (Webots' ``Propeller``): the velocity ``omega`` of joint ``joint`` (its
    motor) turned into a thrust ``T = t1 |omega| omega - t2 |omega| V`` along ``axis`` at
    ``center`` and a torque ``Q = q1 |omega| omega - q2 |omega| V`` about ``axis``, both on link
    ``link`` (``V``: the velocity of ``center`` along ``axis``); ``center`` and ``axis`` are in
    that link's frame, ``thrust = (t1, t2)``, ``torque = (q1, q2)``."""

    joint: str
    link: str
    center: Vec3 = ZERO
    axis: Vec3 = (1.0, 0.0, 0.0)
    thrust: tuple[float, float] = (1.0, 0.0)
    torque: tuple[float, float] = (1.0, 0.0)


@dataclass(frozen=True, slots=True)
class Entity:
    """A robot, a free object or a static compound.

    ``links[0]`` is the root; ``pose`` is the root link frame in the world. ``fixed_base``
    pins the root to the world (static compounds; robots hinged to a compound). ``kinematic``
    bodies move with their initial velocity, unaffected by forces. ``disabled_collisions``
    lists link pairs that never collide; ``self_collision`` enables collisions between other
    links of the entity. ``urdf`` is the entity's own URDF text when the format supplied one.
    ``propellers`` turn their joints' velocities into thrust (:class:`Propeller`).
    """

    name: str
    kind: EntityKind
    links: tuple[Link, ...]
    joints: tuple[Joint, ...] = ()
    sensors: tuple[Sensor, ...] = ()
    pose: Pose = IDENTITY
    fixed_base: bool = False
    kinematic: bool = False
    linear_velocity: Vec3 = ZERO
    angular_velocity: Vec3 = ZERO
    self_collision: bool = False
    disabled_collisions: tuple[tuple[str, str], ...] = ()
    collision_group: int | None = None
    collision_mask: int | None = None
    urdf: str | None = None
    source: str | None = None
    propellers: tuple[Propeller, ...] = ()

    @property
    def root(self) -> Link:
        return self.links[0]

    @property
    def mass(self) -> float:
        return sum(link.inertial.mass for link in self.links)

    @property
    def movable_joints(self) -> tuple[Joint, ...]:
        return tuple(j for j in self.joints if j.movable)

    def link(self, name: str) -> Link:
        for link in self.links:
            if link.name == name:
                return link
        raise KeyError(f'entity {self.name!r} has no link {name!r}')

    def joint(self, name: str) -> Joint:
        for joint in self.joints:
            if joint.name == name:
                return joint
        raise KeyError(f'entity {self.name!r} has no joint {name!r}')

    def sensor(self, name: str) -> Sensor:
        for sensor in self.sensors:
            if sensor.name == name:
                return sensor
        raise KeyError(f'entity {self.name!r} has no sensor {name!r}')


@dataclass(frozen=True, slots=True)
class MaterialPair:
    """Contact parameters between two materials (symmetric). ``None`` leaves the default.

    ``rolling_friction`` is a deceleration in m/s^2 of a body rolling on the other material
    (SI, format-neutral; SimRobot's ``RollingFriction``), not a torque coefficient.
    """

    material_a: str
    material_b: str
    friction: float | None = None
    rolling_friction: float | None = None
    restitution: float | None = None
    restitution_threshold: float | None = None
    """Impact speed (m/s) below which a contact does not bounce (RaiSim); ``None``: default."""


@dataclass(frozen=True, slots=True)
class Light:
    """``kind`` 'directional' (``direction`` points from the light), 'point' or 'spot'.

    ``attenuation`` (a0, a1, a2): a point or spot light's intensity is divided by
    ``a0 + a1 d + a2 d^2`` at distance ``d`` (VRML's law; (1, 0, 0): none). A spot lights fully
    within ``beam_width`` of its axis, fading to nothing at ``cutoff`` (radians)."""

    kind: Literal['directional', 'point', 'spot'] = 'directional'
    position: Vec3 = (0.0, 0.0, 10.0)
    direction: Vec3 = (0.0, 0.0, -1.0)
    ambient: RGBA = (0.2, 0.2, 0.2, 1.0)
    diffuse: RGBA = (1.0, 1.0, 1.0, 1.0)
    specular: RGBA = (1.0, 1.0, 1.0, 1.0)
    cutoff: float | None = None
    attenuation: Vec3 = (1.0, 0.0, 0.0)
    beam_width: float | None = None


WireKind = Literal['stiff', 'compliant', 'custom']
WireStretch = Literal['stretch', 'compression', 'both']


@dataclass(frozen=True, slots=True)
class Wire:
    """A length constraint between points on two links (``entity/link``; ``point_a``/``point_b``
    in the link frames), RaiSim's wires.

    ``kind`` 'stiff': inextensible (``stiffness`` ``None``); 'compliant': a spring of
    ``stiffness`` N/m; 'custom': a constant ``tension`` (N) pulls the ends together. ``stretch``
    says what the wire resists: 'stretch' (a rope: only pulls, length <= ``length``),
    'compression' (only pushes, length >= ``length``) or 'both' (a rod).
    """

    name: str
    body_a: str
    point_a: Vec3
    body_b: str
    point_b: Vec3
    length: float
    stiffness: float | None = None
    kind: WireKind = 'stiff'
    stretch: WireStretch = 'stretch'
    tension: float = 0.0


@dataclass(frozen=True, slots=True)
class ContactDefaults:
    friction: float = 1.0
    rolling_friction: float = 0.0
    restitution: float = 0.0
    restitution_threshold: float | None = None


@dataclass(frozen=True)
class Scene:
    """A whole simulation: settings, entities and contact rules.

    ``format`` names the loader ('simrobot', 'webots', 'simox', 'raisim'); ``warnings`` are the
    loader's non-fatal findings as ``file:line: message`` strings; ``metadata`` keeps facts a
    format provides that the simulator does not use (controller names, node sets, ...).
    """

    name: str
    entities: tuple[Entity, ...]
    format: str = ''
    source: Path | None = None
    step_length: float = 0.01
    gravity: Vec3 = (0.0, 0.0, -9.81)
    background: RGBA = (0.0, 0.0, 0.0, 1.0)
    erp: float | None = None
    cfm: float | None = None
    body_collisions: bool = True
    lights: tuple[Light, ...] = ()
    contact_defaults: ContactDefaults = ContactDefaults()
    material_pairs: tuple[MaterialPair, ...] = ()
    wires: tuple[Wire, ...] = ()
    warnings: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def entity(self, name: str) -> Entity:
        for entity in self.entities:
            if entity.name == name:
                return entity
        raise KeyError(f'scene has no entity {name!r}')

    def entity_names(self) -> list[str]:
        return [e.name for e in self.entities]
