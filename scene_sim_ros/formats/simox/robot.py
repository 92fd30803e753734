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

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError
from ...scene.model import Entity, Joint, Link
from ...scene.motors import ServoMotor
from ...scene.sensors import Camera, Gps, Sensor
from ...scene.transforms import IDENTITY, Pose, quat_from_axis_angle, quat_from_matrix, vec3
from .bodies import (
    PhysicsDef,
    ShapeSet,
    collisions_of,
    make_inertial,
    parse_physics,
    parse_shapes,
    visuals_of,
)
from .context import LoadContext, number
from .joints import JointDef, parse_joint
from .transforms import parse_transform
from .xml import children, is_true, read_xml, text_of, unit_factor

DEFAULT_SERVO = {'revolute': (2.0, 200.0), 'prismatic': (0.5, 2000.0)}
ROBOT_NODE_TAGS = ('robotnode', 'jointnode', 'transformationnode', 'bodynode', 'modelnode')
# rotation from a Simox camera frame (z forward, x right, y down) to our body frame (x forward)
_OPTICAL_TO_BODY = quat_from_matrix(((0.0, -1.0, 0.0), (0.0, 0.0, -1.0), (1.0, 0.0, 0.0)))


# ---------------------------------------------------------------- robot nodes

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
    cached = ctx.robots.get(path)
    if isinstance(cached, RobotDef):
        return cached
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
