"""Simox robot files (``<Robot>``) into one 'robot' :class:`Entity`.

Semantics follow VirtualRobot (``XML/RobotIO.cpp``, ``XML/BaseIO.cpp``, ``Nodes/RobotNode*.cpp``):

- ``<RobotNode>`` (also ``JointNode``/``BodyNode``/``TransformationNode``/``ModelNode``) is one
  link. Its frame is ``parent * Transform * joint(q + offset)``: the ``<Transform>`` comes before
  the joint and the joint axis (``<Axis>``) or ``<TranslationDirection>`` is in the node's frame.
  So the model joint's origin is ``Transform * joint(offset)`` and its position is Simox's joint
  value. A node without ``<Joint>`` (or with ``type="fixed"``) hangs on a fixed joint.
- ``<Transform>`` children compose left to right: ``Translation``/``trans`` (mm unless
  ``units="m"``), ``rollpitchyaw``/``rpy`` (``Rz(yaw) Ry(pitch) Rx(roll)``), ``Quaternion``,
  ``Matrix3x3``, ``Matrix4x4`` (translation in mm unless ``units="m"``), ``DH`` (``Rz(theta)
  Tz(d) Tx(a) Rx(alpha)``, angles rad and lengths mm unless unit attributes say otherwise).
- ``<Joint type offset initialValue>``: ``<Limits lo hi unit [limitless]>`` (revolute default
  -pi..pi), ``MaxVelocity``, ``MaxTorque`` (SI after Simox's unit rules), ``PropagateJointValue``
  (metadata). Prismatic values are mm in the file and metres here.
- ``<Physics>``: ``Mass`` (``units`` kg/g/t), ``CoM location="VisualizationBBoxCenter"`` (centre of
  the visualisation's bounding box) or ``location="Joint"/"Custom"`` with x/y/z (mm), and
  ``InertiaMatrix`` (kg*m^2 unless ``unitsWeight``/``unitsLength`` say g/mm); a mass without a
  matrix gets the inertia of the collision model's bounding box (Simox computes one as well).
  ``IgnoreCollision`` -> the entity's ``disabled_collisions``; ``SimulationType`` and ``Friction``
  -> metadata.
- ``<Visualization>``/``<CollisionModel>`` with ``<File>`` (Inventor ``.iv``/VRML ``.wrl``, see
  :mod:`.meshes`; ``boundingbox="true"`` turns it into its box), ``<Primitives>`` (``Box``
  width/height/depth, ``Sphere``, ``Cylinder`` along y; each ``Transform`` is relative to the
  previous primitive) and ``<UseAsCollisionModel/>``. A mesh that cannot be read is replaced by
  a 1 cm sphere with a warning.
- ``<ChildFromRobot><File>`` includes another robot file below the node (its node sets and end
  effectors come along when ``importEEF`` is not false).
- ``<RobotNodeSet>`` and ``<Endeffector>`` (with ``Static``, ``Actor``, ``Preshape``) are kept as
  metadata; ``<Sensor type="camera"|"position">`` becomes a :class:`Camera`/:class:`Gps`; other
  sensor types (force/torque) are listed in metadata with a warning.

Motors: Simox describes kinematics, not drives, so every revolute or prismatic joint gets a
:class:`ServoMotor` that holds its position: ``max_velocity`` from ``MaxVelocity`` (else 2 rad/s
or 0.5 m/s), ``max_force`` from ``MaxTorque`` (else 200 N*m or 2000 N), ``p = 10``.
Robots are placed with a fixed base (Simox scenes have no floor).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from ...errors import SceneLoadError
from ...scene.geometry import Box, Cylinder, Shape, Sphere
from ...scene.inertia import Inertia6, box_inertia, sphere_inertia
from ...scene.model import Collision, Entity, Inertial, Joint, JointType, Link, Visual
from ...scene.motors import ServoMotor
from ...scene.sensors import Camera, Gps, Sensor
from ...scene.transforms import (
    IDENTITY,
    Pose,
    quat_from_axis_angle,
    quat_from_matrix,
    quat_from_rpy,
    quat_normalized,
    vec3,
)
from .. import limits, paths
from .meshes import MeshError, MeshReader
from .xml import Diagnostics, child, children, has_unit, is_true, read_xml, text_of, unit_factor

MM = 0.001
DEFAULT_SERVO = {'revolute': (2.0, 200.0), 'prismatic': (0.5, 2000.0)}
STAND_IN_RADIUS = 0.01
ROBOT_NODE_TAGS = ('robotnode', 'jointnode', 'transformationnode', 'bodynode', 'modelnode')
# rotation from a Simox camera frame (z forward, x right, y down) to our body frame (x forward)
_OPTICAL_TO_BODY = quat_from_matrix(((0.0, -1.0, 0.0), (0.0, 0.0, -1.0), (1.0, 0.0, 0.0)))


class LoadContext:
    """State shared by one load: diagnostics, file resolution, caches."""

    def __init__(self, diagnostics: Diagnostics, data_dirs: list[Path], meshes: MeshReader):
        self.diagnostics = diagnostics
        self.data_dirs = data_dirs
        self.meshes = meshes
        self.robots: dict[Path, RobotDef] = {}
        self.loading: list[Path] = []

    def resolve(self, name: str, base: Path) -> Path | None:
        """A ``<File>`` path as Simox finds it: absolute, relative to the including file's
        folder, or relative to a data directory."""
        name = name.strip()
        if not name:
            return None
        candidates = []
        raw = Path(name)
        if raw.is_absolute():
            candidates.append(raw)
        relative = name.lstrip('/\\')
        candidates.append(base / relative)
        candidates.extend(data / relative for data in self.data_dirs)
        for candidate in candidates:
            if paths.is_file(candidate):
                return paths.confine(candidate.resolve(), 'file', base)
        return None

    def warn(self, file: Path, element: etree._Element | None, message: str) -> None:
        self.diagnostics.warn(file, element.sourceline if element is not None else None, message)


# ---------------------------------------------------------------- numbers and transforms

def number(ctx: LoadContext | None, file: Path, element: etree._Element, name: str,
           default: float | None = None) -> float:
    value = element.get(name)
    if value is None:
        if default is None:
            raise SceneLoadError(f'<{element.tag}> needs attribute {name!r}', file,
                                 element.sourceline)
        return default
    try:
        return limits.number(value.strip().split()[0])
    except (ValueError, IndexError) as err:
        message = f'<{element.tag}> attribute {name}={value!r} is not a number'
        if isinstance(err, ValueError):
            message = limits.why_not(err, message)
        raise SceneLoadError(message, file, element.sourceline) from None


def _matrix_rows(ctx: LoadContext, file: Path, element: etree._Element, size: int) -> list[list[float]]:
    rows = [[1.0 if r == c else 0.0 for c in range(size)] for r in range(size)]
    for r in range(size):
        row = child(element, f'row{r + 1}')
        if row is not None:
            rows[r] = [number(ctx, file, row, f'c{c + 1}') for c in range(size)]
    return rows


def _dh_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    angle = unit_factor(element, 'angle', 1.0)
    length = unit_factor(element, 'length', MM)
    theta = number(ctx, file, element, 'theta', 0.0) * angle
    d = number(ctx, file, element, 'd', 0.0) * length
    a = number(ctx, file, element, 'a', 0.0) * length
    alpha = number(ctx, file, element, 'alpha', 0.0) * angle
    return (Pose(orientation=quat_from_axis_angle((0.0, 0.0, 1.0), theta))
            * Pose((0.0, 0.0, d)) * Pose((a, 0.0, 0.0))
            * Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), alpha)))


def _translation_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    length = unit_factor(element, 'length', MM)
    return Pose(vec3([number(ctx, file, element, k) * length for k in 'xyz']))


def _rpy_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    angle = unit_factor(element, 'angle', None)
    if angle is None:
        ctx.warn(file, element, f'<{element.tag}> has no angle unit; reading radians')
        angle = 1.0
    r, p, y = (number(ctx, file, element, k) * angle for k in ('roll', 'pitch', 'yaw'))
    return Pose(orientation=quat_normalized(quat_from_rpy(r, p, y)))


def _quaternion_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    q = tuple(number(ctx, file, element, k) for k in 'xyzw')
    try:
        return Pose(orientation=quat_normalized(q))
    except ValueError:
        raise SceneLoadError('zero quaternion', file, element.sourceline) from None


def _matrix3_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    return Pose(orientation=quat_from_matrix(_matrix_rows(ctx, file, element, 3)))


def _matrix4_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    rows = _matrix_rows(ctx, file, element, 4)
    length = unit_factor(element, 'length', MM)
    pose = Pose.from_matrix4(rows)
    return Pose(vec3([v * length for v in pose.position]), pose.orientation)


TRANSFORM_ELEMENTS = {
    'translation': _translation_pose, 'trans': _translation_pose,
    'rollpitchyaw': _rpy_pose, 'rpy': _rpy_pose,
    'quaternion': _quaternion_pose, 'quat': _quaternion_pose,
    'matrix3x3': _matrix3_pose, 'matrix4x4': _matrix4_pose, 'dh': _dh_pose,
}


def parse_transform(ctx: LoadContext, file: Path, element: etree._Element | None) -> Pose:
    """The pose of a ``<Transform>`` element (or of the first one inside ``element``)."""
    if element is None:
        return IDENTITY
    if element.tag != 'transform':
        element = child(element, 'transform')
        if element is None:
            return IDENTITY
    pose = IDENTITY
    for part in children(element):
        handler = TRANSFORM_ELEMENTS.get(part.tag)
        if handler is None:
            ctx.warn(file, part, f'unknown element <{part.tag}> in <transform> ignored')
            continue
        pose = pose * handler(ctx, file, part)
    return pose


# ---------------------------------------------------------------- geometry

@dataclass
class ShapeSet:
    """Shapes of a visualisation or collision model, in the node frame."""

    parts: list[tuple[Shape, Pose, tuple[float, float, float, float] | None]] = field(default_factory=list)
    points: list[np.ndarray] = field(default_factory=list)  # vertices in the node frame (bbox)

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray] | None:
        if not self.points:
            return None
        stacked = np.vstack(self.points)
        return stacked.min(axis=0), stacked.max(axis=0)


def _box_corners(size: tuple[float, float, float], pose: Pose) -> np.ndarray:
    return np.array([pose.transform_point((sx * size[0] / 2, sy * size[1] / 2, sz * size[2] / 2))
                     for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def _file_shapes(ctx: LoadContext, file: Path, element: etree._Element, out: ShapeSet) -> None:
    name = text_of(element)
    kind = (element.get('type') or 'inventor').lower()
    path = ctx.resolve(name, file.parent)
    if path is None:
        ctx.warn(file, element, f'mesh file {name!r} not found; using a '
                 f'{STAND_IN_RADIUS * 100:g} cm sphere instead')
        out.parts.append((Sphere(STAND_IN_RADIUS), IDENTITY, None))
        out.points.append(np.array([[-STAND_IN_RADIUS] * 3, [STAND_IN_RADIUS] * 3]))
        return
    if kind not in ('inventor', 'coin', 'osg', 'openscenegraph') or \
            path.suffix.lower() not in ('.iv', '.wrl', '.vrml'):
        reason = f'unsupported mesh file {path.name!r} (type {kind!r})'
        data = None
    else:
        try:
            data = ctx.meshes.read(path)
            reason = ''
        except MeshError as err:
            data, reason = None, str(err)
    if data is None:
        ctx.warn(file, element, f'{reason}; using a {STAND_IN_RADIUS * 100:g} cm sphere instead')
        out.parts.append((Sphere(STAND_IN_RADIUS), IDENTITY, None))
        out.points.append(np.array([[-STAND_IN_RADIUS] * 3, [STAND_IN_RADIUS] * 3]))
        return
    low, high = data.bounds
    if is_true(element.get('boundingbox')):
        size = vec3((high - low).tolist())
        center = vec3(((high + low) / 2).tolist())
        out.parts.append((Box(size), Pose(center), data.color))
    else:
        out.parts.append((data.mesh, IDENTITY, data.color))
    out.points.append(np.array([low, high]))


def _primitive_shapes(ctx: LoadContext, file: Path, element: etree._Element, out: ShapeSet) -> None:
    current = IDENTITY
    for primitive in children(element):
        length = unit_factor(primitive, 'length', MM)
        current = current * parse_transform(ctx, file, primitive)
        if primitive.tag == 'box':
            size = vec3([number(ctx, file, primitive, k) * length
                         for k in ('width', 'height', 'depth')])
            out.parts.append((Box(size), current, None))
            out.points.append(_box_corners(size, current))
        elif primitive.tag == 'sphere':
            radius = number(ctx, file, primitive, 'radius') * length
            out.parts.append((Sphere(radius), current, None))
            out.points.append(_box_corners((2 * radius,) * 3, current))
        elif primitive.tag == 'cylinder':
            radius = number(ctx, file, primitive, 'radius') * length
            height = number(ctx, file, primitive, 'height') * length
            along_y = current * Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), -math.pi / 2))
            out.parts.append((Cylinder(radius, height), along_y, None))
            out.points.append(_box_corners((2 * radius, height, 2 * radius), current))
        else:
            ctx.warn(file, primitive, f'unknown primitive <{primitive.tag}> ignored')


def parse_shapes(ctx: LoadContext, file: Path, element: etree._Element) -> tuple[ShapeSet, bool]:
    """Shapes of a ``<Visualization>`` or ``<CollisionModel>`` and whether it is also the
    collision model (``UseAsCollisionModel``)."""
    out = ShapeSet()
    use_as_collision = (child(element, 'useascollisionmodel') is not None
                        or is_true(element.get('useascollisionmodel')))
    if element.get('enable') is not None and not is_true(element.get('enable')):
        return out, False
    for part in children(element):
        if part.tag == 'file':
            _file_shapes(ctx, file, part, out)
        elif part.tag == 'primitives':
            _primitive_shapes(ctx, file, part, out)
        elif part.tag not in ('coordinateaxis', 'useascollisionmodel'):
            ctx.warn(file, part, f'unknown element <{part.tag}> in <{element.tag}> ignored')
    return out, use_as_collision


# ---------------------------------------------------------------- physics

@dataclass
class PhysicsDef:
    mass: float = 0.0
    com: tuple[float, float, float] | None = None
    com_at_bbox_center: bool = False
    inertia: Inertia6 | None = None
    ignore_collisions: list[str] = field(default_factory=list)
    simulation_type: str | None = None
    friction: float | None = None
    defined: bool = False


def parse_physics(ctx: LoadContext, file: Path, element: etree._Element | None) -> PhysicsDef:
    physics = PhysicsDef()
    if element is None:
        return physics
    physics.defined = True
    mass = child(element, 'mass')
    if mass is not None:
        factor = unit_factor(mass, 'weight', None)
        if factor is None:
            ctx.warn(file, mass, '<mass> has no weight unit; reading kg')
            factor = 1.0
        physics.mass = number(ctx, file, mass, 'value') * factor
    com = child(element, 'com')
    if com is not None:
        location = (com.get('location') or 'custom').lower()
        if location == 'visualizationbboxcenter':
            physics.com_at_bbox_center = True
        else:
            if location not in ('joint', 'custom'):
                ctx.warn(file, com, f'unknown CoM location {location!r}; using x/y/z')
            length = unit_factor(com, 'length', MM)
            physics.com = vec3([number(ctx, file, com, k, 0.0) * length for k in 'xyz'])
    matrix = child(element, 'inertiamatrix')
    if matrix is not None:
        rows = _matrix_rows(ctx, file, matrix, 3)
        factor = unit_factor(matrix, 'weight', 1.0) * unit_factor(matrix, 'length', 1.0) ** 2
        physics.inertia = (rows[0][0] * factor, rows[0][1] * factor, rows[0][2] * factor,
                           rows[1][1] * factor, rows[1][2] * factor, rows[2][2] * factor)
    for ignore in children(element, 'ignorecollision'):
        if ignore.get('name'):
            physics.ignore_collisions.append(ignore.get('name'))
    simulation = child(element, 'simulationtype')
    if simulation is not None and simulation.get('value'):
        physics.simulation_type = simulation.get('value').strip().lower()
    friction = child(element, 'friction')
    if friction is not None:
        physics.friction = number(ctx, file, friction, 'value')
    known = {'mass', 'com', 'inertiamatrix', 'ignorecollision', 'simulationtype', 'friction'}
    for part in children(element):
        if part.tag not in known:
            ctx.warn(file, part, f'unknown element <{part.tag}> in <physics> ignored')
    return physics


def make_inertial(physics: PhysicsDef, visual: ShapeSet, collision: ShapeSet) -> Inertial:
    if physics.mass <= 0.0:
        return Inertial()
    com = physics.com or (0.0, 0.0, 0.0)
    if physics.com_at_bbox_center:
        box = visual.bounding_box() or collision.bounding_box()
        if box is not None:
            com = vec3(((box[0] + box[1]) / 2).tolist())
    inertia = physics.inertia
    if inertia is None or not any(inertia):
        box = collision.bounding_box() or visual.bounding_box()
        if box is not None:
            size = vec3([max(float(v), 1e-3) for v in box[1] - box[0]])
            inertia = box_inertia(physics.mass, size)
        else:
            inertia = sphere_inertia(physics.mass, 0.05)
    return Inertial(physics.mass, com, inertia)


def visuals_of(shapes: ShapeSet, name: str) -> tuple[Visual, ...]:
    return tuple(Visual(shape, pose, color or (0.8, 0.8, 0.8, 1.0), name=f'{name}_visual_{k}')
                 for k, (shape, pose, color) in enumerate(shapes.parts))


def collisions_of(shapes: ShapeSet, name: str) -> tuple[Collision, ...]:
    return tuple(Collision(shape, pose, name=f'{name}_collision_{k}')
                 for k, (shape, pose, _) in enumerate(shapes.parts))


# ---------------------------------------------------------------- robot nodes

@dataclass
class JointDef:
    type: JointType = 'fixed'
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    offset: float = 0.0  # SI
    initial: float = 0.0  # SI
    limits: tuple[float, float] | None = None
    max_velocity: float | None = None
    max_torque: float | None = None
    propagate: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class NodeDef:
    name: str
    file: Path
    line: int | None
    transform: Pose = IDENTITY
    joint: JointDef = field(default_factory=JointDef)
    visual: ShapeSet = field(default_factory=ShapeSet)
    collision: ShapeSet = field(default_factory=ShapeSet)
    physics: PhysicsDef = field(default_factory=PhysicsDef)
    children: list[str] = field(default_factory=list)
    includes: list[tuple[Path, bool]] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    other_sensors: list[str] = field(default_factory=list)


@dataclass
class RobotDef:
    """A robot file with its includes resolved into one node table."""

    name: str
    type: str
    root: str
    file: Path
    nodes: dict[str, NodeDef] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)
    node_sets: dict[str, dict[str, Any]] = field(default_factory=dict)
    endeffectors: dict[str, dict[str, Any]] = field(default_factory=dict)


def _vector(ctx: LoadContext, file: Path, element: etree._Element) -> tuple[float, float, float]:
    return vec3([number(ctx, file, element, k) for k in 'xyz'])


def _limits(ctx: LoadContext, file: Path, element: etree._Element, joint_type: str,
            node: str) -> tuple[float, float] | None:
    kind = 'angle' if joint_type == 'revolute' else 'length'
    factor = unit_factor(element, kind, None)
    if factor is None:
        factor = 1.0 if kind == 'angle' else MM
        if has_unit(element):
            expected = 'an angle' if kind == 'angle' else 'a length'
            ctx.warn(file, element, f'<limits> unit of joint {node!r} is not {expected}; '
                     f'reading {"rad" if kind == "angle" else "mm"}')
        else:
            ctx.warn(file, element, f'<limits> of joint {node!r} has no unit; reading '
                     f'{"rad" if kind == "angle" else "mm"}')
    default = (-math.pi, math.pi) if kind == 'angle' else (-1.0, 1.0)
    lo = number(ctx, file, element, 'lo', default[0] / factor) * factor
    hi = number(ctx, file, element, 'hi', default[1] / factor) * factor
    if is_true(element.get('limitless')):
        return None
    return (lo, hi)


def _rate(element: etree._Element, joint_type: str, per_time: int, file: Path) -> float:
    value = number(None, file, element, 'value', 0.0)
    length = unit_factor(element, 'length', 1.0)
    angle = unit_factor(element, 'angle', 1.0)
    time = unit_factor(element, 'time', 1.0)
    return value * (length if joint_type == 'prismatic' else angle) / time ** per_time


_JOINT_TYPES: dict[str, JointType] = {'fixed': 'fixed', 'revolute': 'revolute', 'prismatic': 'prismatic'}


def parse_joint(ctx: LoadContext, file: Path, element: etree._Element | None, node: str) -> JointDef:
    joint = JointDef()
    if element is None:
        return joint
    written = (element.get('type') or 'fixed').strip().lower()
    joint_type = _JOINT_TYPES.get(written)
    if joint_type is None:
        ctx.warn(file, element, f'unknown joint type {written!r} of node {node!r}; using fixed')
        joint_type = 'fixed'
    joint.type = joint_type
    scale = MM if joint.type == 'prismatic' else 1.0
    joint.offset = number(ctx, file, element, 'offset', 0.0) * scale
    joint.initial = number(ctx, file, element, 'initialvalue', 0.0) * scale
    if joint.type == 'revolute':
        joint.limits = (-math.pi, math.pi)
    elif joint.type == 'prismatic':
        joint.limits = None
    direction_found = False
    for part in children(element):
        tag = part.tag
        if tag == 'limits':
            joint.limits = _limits(ctx, file, part, joint.type, node)
        elif tag == 'axis' and joint.type == 'revolute':
            joint.axis = _vector(ctx, file, part)
            direction_found = True
        elif tag == 'translationdirection' and joint.type == 'prismatic':
            joint.axis = _vector(ctx, file, part)
            direction_found = True
        elif tag == 'maxvelocity':
            joint.max_velocity = _rate(part, joint.type, 1, file)
        elif tag == 'maxtorque':
            joint.max_torque = number(ctx, file, part, 'value', 0.0)
        elif tag == 'propagatejointvalue':
            joint.propagate.append((part.get('name', ''), number(ctx, file, part, 'factor', 1.0)))
        elif tag in ('maxacceleration', 'scalevisualization', 'axis', 'translationdirection'):
            pass
        elif tag in ('dh', 'prejointtransform', 'postjointtransform'):
            ctx.warn(file, part, f'<{tag}> inside <joint> is deprecated in Simox (it refuses it); '
                     "ignored: put it in the node's <Transform>")
        else:
            ctx.warn(file, part, f'unknown element <{tag}> in <joint> of node {node!r} ignored')
    if joint.type == 'prismatic' and not direction_found:
        raise SceneLoadError(f'prismatic joint {node!r} needs <TranslationDirection>', file,
                             element.sourceline)
    norm = math.sqrt(sum(v * v for v in joint.axis))
    if joint.type != 'fixed':
        if norm == 0.0:
            raise SceneLoadError(f'joint {node!r} has a zero axis', file, element.sourceline)
        if abs(norm - 1.0) > 1e-6:
            if joint.type == 'prismatic':  # Simox moves by value * direction: keep the motion
                ctx.warn(file, element, f'translation direction of {node!r} is not a unit '
                         'vector; normalised (joint values scaled by its length)')
            joint.axis = vec3([v / norm for v in joint.axis])
    if joint.limits is not None and joint.type != 'fixed':
        lo, hi = joint.limits
        joint.initial = min(max(joint.initial, lo), hi)
    return joint


def _parse_sensor(ctx: LoadContext, file: Path, element: etree._Element, node: NodeDef) -> None:
    kind = (element.get('type') or '').lower()
    name = element.get('name') or f'{node.name}_{kind or "sensor"}'
    pose = parse_transform(ctx, file, element)
    if kind == 'camera':
        width = int(number(ctx, file, element, 'width', 640.0))
        height = int(number(ctx, file, element, 'height', 480.0))
        fov_y = math.radians(number(ctx, file, element, 'fov', 45.0))
        fov_x = 2.0 * math.atan(math.tan(fov_y / 2.0) * width / height)
        node.sensors.append(Camera(name, node.name, width, height, fov_x, fov_y,
                                   pose * Pose(orientation=_OPTICAL_TO_BODY)))
    elif kind == 'position':
        node.sensors.append(Gps(name, node.name, pose))
    else:
        node.other_sensors.append(kind)
        ctx.warn(file, element, f'sensor type {kind!r} of node {node.name!r} is not simulated; '
                 'kept as metadata')


def parse_node(ctx: LoadContext, file: Path, element: etree._Element, counter: int) -> NodeDef:
    name = element.get('name') or f'node_{counter}'
    if not element.get('name'):
        ctx.warn(file, element, f'<{element.tag}> without a name; named {name!r}')
    node = NodeDef(name, file, element.sourceline)
    joint_element = None
    use_visual_as_collision = False
    collision_given = False
    for part in children(element):
        tag = part.tag
        if tag == 'transform':
            node.transform = parse_transform(ctx, file, part)
        elif tag == 'joint':
            joint_element = part
        elif tag == 'visualization':
            node.visual, use_visual_as_collision = parse_shapes(ctx, file, part)
        elif tag == 'collisionmodel':
            node.collision, _ = parse_shapes(ctx, file, part)
            collision_given = True
        elif tag == 'physics':
            node.physics = parse_physics(ctx, file, part)
        elif tag == 'child':
            if part.get('name'):
                node.children.append(part.get('name'))
        elif tag == 'childfromrobot':
            for include in children(part, 'file'):
                path = ctx.resolve(text_of(include), file.parent)
                if path is None:
                    ctx.diagnostics.error(file, include.sourceline,
                                          f'robot file {text_of(include)!r} not found')
                    continue
                node.includes.append((path, include.get('importeef') is None
                                      or is_true(include.get('importeef'))))
        elif tag == 'sensor':
            _parse_sensor(ctx, file, part, node)
        else:
            ctx.warn(file, part, f'unknown element <{tag}> in robot node {name!r} ignored')
    if use_visual_as_collision and not collision_given:
        node.collision = node.visual
    node.joint = parse_joint(ctx, file, joint_element, name)
    return node


def _name_list(element: etree._Element) -> list[str]:
    return [n.get('name', '') for n in children(element, 'node')]


def _endeffector(element: etree._Element, file: Path) -> dict[str, Any]:
    eef: dict[str, Any] = {k: element.get(k) for k in ('base', 'tcp', 'gcp') if element.get(k)}
    eef['static'] = [n for s in children(element, 'static') for n in _name_list(s)]
    eef['actors'] = {a.get('name', ''): _name_list(a) for a in children(element, 'actor')}
    eef['preshapes'] = {p.get('name', ''): {n.get('name', ''): number(None, file, n, 'value', 0.0)
                                           * (unit_factor(n, 'angle', 1.0) or 1.0)
                                           for n in children(p, 'node')}
                        for p in children(element, 'preshape')}
    return eef


def load_robot_def(ctx: LoadContext, path: Path) -> RobotDef:
    """Read a robot file and the files it includes (cached per path)."""
    path = path.resolve()
    if path in ctx.robots:
        return ctx.robots[path]
    if path in ctx.loading:
        raise SceneLoadError('robot files include each other in a cycle: '
                             + ' -> '.join(p.name for p in [*ctx.loading, path]), path)
    limits.check_depth(len(ctx.loading) + 1, 'robot files (ChildFromRobot)', path)
    ctx.loading.append(path)
    try:
        robot = _read_robot(ctx, path, read_xml(path, ctx.diagnostics))
    finally:
        ctx.loading.pop()
    ctx.robots[path] = robot
    return robot


def _read_robot(ctx: LoadContext, path: Path, root: etree._Element) -> RobotDef:
    if root.tag not in ('robot', 'model'):
        raise SceneLoadError(f'expected <Robot>, found <{root.tag}>', path, root.sourceline)
    robot_type = root.get('type') or path.stem
    root_name = root.get('rootnode')
    if not root_name:
        raise SceneLoadError('<Robot> needs attribute RootNode', path, root.sourceline)
    robot = RobotDef(root.get('standardname') or robot_type, robot_type, root_name, path)
    set_elements, eef_elements = [], []
    for counter, element in enumerate(children(root)):
        if element.tag in ROBOT_NODE_TAGS:
            node = parse_node(ctx, path, element, counter)
            if node.name in robot.nodes:
                raise SceneLoadError(f'two robot nodes named {node.name!r}', path,
                                     element.sourceline)
            robot.nodes[node.name] = node
        elif element.tag in ('robotnodeset', 'modelnodeset'):
            set_elements.append(element)
        elif element.tag == 'endeffector':
            eef_elements.append(element)
        elif element.tag != 'robotinfo':
            ctx.warn(path, element, f'unknown element <{element.tag}> in <robot> ignored')
    if root_name not in robot.nodes:
        raise SceneLoadError(f'root node {root_name!r} is not defined', path, root.sourceline)
    for name, node in list(robot.nodes.items()):
        for child_name in node.children:
            if child_name not in robot.nodes:
                ctx.diagnostics.error(path, node.line, f'child {child_name!r} of node {name!r} '
                                      'is not defined')
                continue
            if child_name in robot.parents:
                ctx.diagnostics.error(path, node.line, f'node {child_name!r} has two parents')
                continue
            if child_name == root_name:
                ctx.diagnostics.error(path, node.line, f'root node {root_name!r} cannot be a '
                                      f'child (of {name!r}): the nodes form a loop')
                continue
            robot.parents[child_name] = name
        for include, import_eef in node.includes:
            _attach(ctx, robot, node, load_robot_def(ctx, include), import_eef)
    for element in set_elements:
        name = element.get('name') or f'{robot_type}_RobotNodeSet_{len(robot.node_sets)}'
        robot.node_sets[name] = {'nodes': _name_list(element),
                                 'kinematic_root': element.get('kinematicroot') or root_name,
                                 'tcp': element.get('tcp')}
    for element in eef_elements:
        robot.endeffectors[element.get('name', '')] = _endeffector(element, path)
    for name in robot.nodes:
        if name != root_name and name not in robot.parents:
            ctx.diagnostics.error(path, robot.nodes[name].line,
                                  f'robot node {name!r} has no parent')
    looped = _in_parent_loops(robot)
    if looped:
        ctx.diagnostics.error(path, robot.nodes[looped[0]].line,
                              f'robot nodes {", ".join(map(repr, looped))} are children of each '
                              f'other in a loop, apart from the root {root_name!r}')
    return robot


def _in_parent_loops(robot: RobotDef) -> list[str]:
    """The nodes on a loop of parents (``b`` a child of ``c``, ``c`` of ``b``): the root never
    reaches them, and without this they would be left out silently."""
    ends: dict[str, str] = {}  # node -> where following its parents ends: 'root', 'none', 'loop'
    looped: list[str] = []
    for start in robot.parents:
        path: list[str] = []
        current: str | None = start
        while current is not None and current not in ends and current not in path:
            path.append(current)
            current = robot.parents.get(current)
        if current is None:
            end = 'none' if path[-1] != robot.root else 'root'
        elif current in ends:
            end = ends[current]
        else:
            end = 'loop'
            looped += path[path.index(current):]
        ends.update(dict.fromkeys(path, end))
    return looped


def _attach(ctx: LoadContext, robot: RobotDef, node: NodeDef, other: RobotDef,
            import_eef: bool) -> None:
    for name in other.nodes:
        if name in robot.nodes:
            ctx.diagnostics.error(node.file, node.line, f'included robot {other.file.name} '
                                  f'redefines node {name!r}')
            return
    robot.nodes.update(other.nodes)
    robot.parents.update(other.parents)
    robot.parents[other.root] = node.name
    node.children.append(other.root)
    robot.node_sets.update(other.node_sets)
    if import_eef:
        robot.endeffectors.update(other.endeffectors)


# ---------------------------------------------------------------- model

def joint_origin(node: NodeDef) -> Pose:
    joint = node.joint
    if joint.type == 'revolute' and joint.offset:
        return node.transform * Pose(orientation=quat_from_axis_angle(joint.axis, joint.offset))
    if joint.type == 'prismatic' and joint.offset:
        return node.transform * Pose(vec3([v * joint.offset for v in joint.axis]))
    return node.transform


def _servo(joint: JointDef) -> ServoMotor:
    velocity, force = DEFAULT_SERVO[joint.type]
    if joint.max_velocity is not None and joint.max_velocity > 0:
        velocity = joint.max_velocity
    if joint.max_torque is not None and joint.max_torque > 0:
        force = joint.max_torque
    return ServoMotor(max_velocity=velocity, max_force=force)


def build_entity(robot: RobotDef, name: str | None = None, pose: Pose = IDENTITY,
                 initial: dict[str, float] | None = None) -> Entity:
    """The robot as an entity; ``initial`` maps joint names to positions (SI)."""
    order: list[str] = []
    stack = [robot.root]
    kids: dict[str, list[str]] = {}
    for child_name, parent in robot.parents.items():
        kids.setdefault(parent, []).append(child_name)
    for parent in kids:
        kids[parent].sort(key=lambda c: robot.nodes[parent].children.index(c)
                          if c in robot.nodes[parent].children else 0)
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:  # a loop through an included robot's root
            raise SceneLoadError(f'robot node {current!r} is its own ancestor', robot.file)
        seen.add(current)
        order.append(current)
        stack.extend(reversed(kids.get(current, [])))
    links, joints, sensors = [], [], []
    disabled: list[tuple[str, str]] = []
    for node_name in order:
        node = robot.nodes[node_name]
        links.append(Link(node_name, make_inertial(node.physics, node.visual, node.collision),
                          collisions_of(node.collision, node_name),
                          visuals_of(node.visual, node_name)))
        sensors.extend(node.sensors)
        disabled.extend((node_name, other) for other in node.physics.ignore_collisions
                        if other in robot.nodes)
        if node_name == robot.root:
            continue
        joint = node.joint
        movable = joint.type in ('revolute', 'prismatic')
        start = joint.initial
        if initial and node_name in initial and movable:
            start = initial[node_name]
            if joint.limits is not None:
                start = min(max(start, joint.limits[0]), joint.limits[1])
        joints.append(Joint(node_name, joint.type, robot.parents[node_name], node_name,
                            origin=joint_origin(node), axis=joint.axis,
                            limits=joint.limits if movable else None,
                            initial_position=start if movable else 0.0,
                            motor=_servo(joint) if movable else None,
                            max_velocity=joint.max_velocity if movable else None,
                            max_effort=joint.max_torque if movable else None))
    return Entity(name or robot.name, 'robot', tuple(links), tuple(joints), tuple(sensors),
                  pose=pose, fixed_base=True, disabled_collisions=tuple(disabled),
                  source=str(robot.file))


def robot_metadata(robot: RobotDef) -> dict[str, Any]:
    return {
        'type': robot.type,
        'file': str(robot.file),
        'root_node': robot.root,
        'robot_node_sets': robot.node_sets,
        'endeffectors': robot.endeffectors,
        'propagate_joint_values': {n: node.joint.propagate for n, node in robot.nodes.items()
                                   if node.joint.propagate},
        'unsimulated_sensors': {n: node.other_sensors for n, node in robot.nodes.items()
                                if node.other_sensors},
    }
