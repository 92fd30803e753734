"""Webots Solid/Robot trees -> entities: :class:`EntityBuilder` walks one top-level Solid or
Robot (solids, physics, bounding objects, shapes, Pose/Transform/Group/Slot children, joints
with their motors and position sensors, devices), one handler per node type (tables
``CHILD_HANDLERS`` and ``JOINT_HANDLERS``, and ``SENSOR_HANDLERS`` of :mod:`.devices`), and
:func:`build_entity` makes the entity. The load's context and the drafts are in
:mod:`.context`, the surfaces of appearances in :mod:`.appearance`, the world-level nodes
(WorldInfo, lights) in :mod:`.world`.

Frames: a Solid's link frame is the Solid's own frame, except below a joint whose axis does
not pass through the endPoint origin: there the link frame sits on the joint anchor (with the
endPoint's orientation) and the Solid's contents are shifted accordingly, because our joints
(URDF) rotate about the child frame origin. Joint axes are given in the parent frame in Webots
and converted to the child frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ...scene import geometry as shapes
from ...scene.inertia import Inertia6, combine, rotate_inertia
from ...scene.model import (
    Collision,
    Entity,
    EntityKind,
    Joint,
    JointType,
    Propeller,
    Visual,
)
from ...scene.motors import ServoMotor, VelocityMotor
from ...scene.sensors import JointPositionSensor
from ...scene.transforms import (
    IDENTITY,
    Pose,
    Vec3,
    normalized,
    quat_conjugate,
    quat_from_axis_angle,
    quat_rotate,
    scale,
)
from .appearance import material_surface
from .context import Context, EntityDraft, LinkDraft, node_pose, through_slots, unique
from .devices import (
    OLD_OPTICAL_TO_SENSOR,
    OPTICAL_DEVICES,
    SENSOR_HANDLERS,
    UNSIMULATED_DEVICES,
    UNSIMULATED_SOLIDS,
    WHY_UNSIMULATED,
)
from .geometry import (
    GEOMETRY_HANDLERS,
    centroid_of,
    inertia_of,
    plane_visual,
    scaled,
    volume,
)
from .nodes import Node
from .protos import BASE_NODES

HINGE2_LINK_MASS = 1e-3  # kg: the intermediate link of a Hinge2Joint (massless in Webots)
HELIX_MASS = 1e-3  # kg: a Propeller's helix (Webots gives it no mass; PyBullet needs some)
DEFAULT_INERTIA_RADIUS = 0.05  # m: a solid with a mass but no bounding object is a ball this big
NO_SCALE: Vec3 = (1.0, 1.0, 1.0)


def solid_name(node: Node) -> str:
    """The ``name`` of a Solid, Robot or device, with Webots' default for its type."""
    default = SENSOR_HANDLERS[node.type][1] if node.type in SENSOR_HANDLERS else 'solid'
    return node.string('name', 'robot' if node.type == 'Robot' else default)


class EntityBuilder:
    """Walks one top-level Solid/Robot and fills an :class:`EntityDraft`."""

    def __init__(self, context: Context, draft: EntityDraft, robot: bool = False):
        self.context = context
        self.draft = draft
        self.robot = robot  # a missing PROTO inside a robot is an error, elsewhere a warning
        self.scale: Vec3 = NO_SCALE  # of the Transforms around the shapes being added

    # solids ----------------------------------------------------------------------------------
    def solid(self, solid: Node, link: LinkDraft, offset: Pose) -> None:
        """Add ``solid``'s contents, physics and bounding object to ``link`` at ``offset``; a
        device (a Solid too in Webots) also adds its sensor there."""
        if solid.type in SENSOR_HANDLERS:
            self.device(solid, link, offset)
        self.children(solid.nodes('children'), link, offset)
        bounds = self.bounding(solid.node('boundingObject'), IDENTITY)
        material = solid.string('contactMaterial', 'default')
        if solid.type != 'TouchSensor':  # its handler adds them, named for the sensor
            for index, (shape, pose) in enumerate(bounds):
                link.collisions.append(Collision(shape, offset * pose, material,
                                                 f'{link.name}:{index}' if index else link.name))
        physics = solid.node('physics')
        if physics is not None:
            mass, com, inertia = self.mass_properties(physics, bounds)
            link.mass_parts.append((mass, offset.transform_point(com),
                                    rotate_inertia(inertia, offset.orientation)))

    def mass_properties(self, physics: Node, bounds: list[tuple[shapes.Shape, Pose]]
                        ) -> tuple[float, Vec3, Inertia6]:
        density = physics.float('density', 1000.0)
        given_mass = physics.float('mass', -1.0)
        volumes = [volume(shape) for shape, _ in bounds]
        total_volume = sum(volumes)
        if given_mass >= 0.0:
            mass = given_mass
        elif density >= 0.0:
            mass = density * total_volume
            if total_volume == 0.0:
                self.context.warn(physics, 'Physics with mass -1 and no bounding object '
                                  'volume: the solid is massless')
        else:
            raise physics.error('Physics: either density or mass must be given (not both -1)')
        parts = []
        for (shape, pose), part_volume in zip(bounds, volumes):
            part_mass = mass * part_volume / total_volume if total_volume > 0.0 else 0.0
            parts.append((part_mass, pose.transform_point(centroid_of(shape)),
                          rotate_inertia(inertia_of(shape, part_mass), pose.orientation)))
        _, com, inertia = combine(parts)
        if not parts or total_volume == 0.0:
            radius = DEFAULT_INERTIA_RADIUS
            inertia = (0.4 * mass * radius * radius, 0.0, 0.0, 0.4 * mass * radius * radius,
                       0.0, 0.4 * mass * radius * radius)
        centre = physics.mf_vec('centerOfMass', 3)
        if centre:
            com = (centre[0][0], centre[0][1], centre[0][2])
        matrix = physics.mf_vec('inertiaMatrix', 3)
        if len(matrix) == 2:
            (ixx, iyy, izz), (ixy, ixz, iyz) = matrix
            inertia = (ixx, ixy, ixz, iyy, iyz, izz)
        elif matrix:
            raise physics.error('Physics.inertiaMatrix needs two vectors: Ixx Iyy Izz, '
                                'Ixy Ixz Iyz', 'inertiaMatrix')
        return mass, com, inertia

    def bounding(self, node: Node | None, pose: Pose) -> list[tuple[shapes.Shape, Pose]]:
        if node is None:
            return []
        if node.type in ('Pose', 'Transform'):
            with self.scaled_by(node) as inner:
                return [b for child in node.nodes('children')
                        for b in self.bounding(child, pose * inner)]
        if node.type == 'Group':
            return [b for child in node.nodes('children') for b in self.bounding(child, pose)]
        if node.type == 'Shape':
            return self.bounding(node.node('geometry'), pose)
        return [(shape, pose * extra) for shape, extra in self.geometry(node)]

    def geometry(self, node: Node, visual: bool = False) -> list[tuple[shapes.Shape, Pose]]:
        """A geometry node's shape with its own pose, scaled by the Transforms around it (none
        or one)."""
        handler = GEOMETRY_HANDLERS.get(node.type)
        if handler is None:
            self.context.warn(node, f'geometry {node.type} is not supported; ignored' if visual
                              else f'{node.type} is not supported in a boundingObject; ignored')
            return []
        shape, extra = handler(node, self.context.geometry)
        if visual and isinstance(shape, shapes.Plane):
            shape = plane_visual(node)  # drawn as a thin box of its size
        if shape is not None and self.scale != NO_SCALE:
            shape, why = scaled(shape, self.scale, extra)
            if shape is None:
                self.context.warn(node, f'{why}; ignored')
        return [] if shape is None else [(shape, extra)]

    # children --------------------------------------------------------------------------------
    def children(self, nodes: list[Node], link: LinkDraft, pose: Pose) -> None:
        for child in nodes:
            if child.missing_url is not None:
                self.missing(child)
                continue
            handler = CHILD_HANDLERS.get(child.type)
            if handler is not None:
                handler(self, child, link, pose)
            elif child.type in SENSOR_HANDLERS:  # a Solid with a sensor
                self.nested_solid(child, link, pose)
            elif child.type in JOINT_HANDLERS:
                JOINT_HANDLERS[child.type](self, child, link, pose)
            elif child.type in UNSIMULATED_SOLIDS:
                self.context.warn_once(child, f'{child.type} is not simulated{_why(child)}; it '
                                       'is kept as a solid')
                self.nested_solid(child, link, pose)
            elif child.type in UNSIMULATED_DEVICES:
                self.context.warn_once(child, f'{child.type} is not simulated{_why(child)}; '
                                       'only its shapes are kept')
                self.children(child.nodes('children'), link, pose * node_pose(child))
            elif child.type in BASE_NODES:
                self.context.warn(child, f'{child.type} is not supported here; ignored')
            # else: an unknown node type, reported once by the loader with the closest name

    def missing(self, node: Node) -> None:
        message = f'PROTO {node.type} is not available locally ({node.missing_url})'
        if self.robot:
            self.context.errors.append(f'{node.file}:{node.line}: {message}; it is part of '
                                       f'robot {self.draft.name!r}')
        else:
            self.context.warn(node, f'{message}; left out')

    def shape(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        geometry = node.node('geometry')
        if geometry is None:
            return
        if geometry.missing_url is not None:
            self.missing(geometry)
            return
        made = self.geometry(geometry, visual=True)
        if not made:
            return
        ((shape, extra),) = made
        color, texture = self.appearance(node.node('appearance'))
        link.visuals.append(Visual(shape, pose * extra, color, texture, node.def_name or '',
                                   material_surface(node.node('appearance'), color)))

    def appearance(self, node: Node | None) -> tuple[shapes.RGBA, Path | None]:
        if node is None:
            return shapes.WHITE, None
        if node.missing_url is not None:
            self.context.warn(node, f'appearance PROTO {node.type} is not available locally '
                              f'({node.missing_url}); drawn grey')
            return shapes.GREY, None
        if node.type == 'PBRAppearance':
            r, g, b = node.color('baseColor', (1.0, 1.0, 1.0))
            texture_node = node.node('baseColorMap')
        elif node.type == 'Appearance':
            material = node.node('material')
            r, g, b = (material.color('diffuseColor', (0.8, 0.8, 0.8)) if material is not None
                       else (1.0, 1.0, 1.0))
            texture_node = node.node('texture')
            node = material or node
        else:
            self.context.warn(node, f'appearance {node.type} is not supported; drawn grey')
            return shapes.GREY, None
        alpha = 1.0 - node.float('transparency', 0.0)
        texture = None
        if texture_node is not None and texture_node.type == 'ImageTexture':
            texture = next((p for p in (self.context.resolve_url(texture_node, url)
                                        for url in texture_node.strings('url')) if p), None)
        return (r, g, b, alpha), texture

    def transform(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        with self.scaled_by(node) as inner:
            self.children(node.nodes('children'), link, pose * inner)

    @contextmanager
    def scaled_by(self, node: Node) -> Iterator[Pose]:
        """The pose of a Pose/Transform inside the scale around it (its translation scaled);
        inside the block, shapes take its own ``scale`` too."""
        own = node_pose(node)
        outer = self.scale
        if outer != NO_SCALE:
            if own.orientation != IDENTITY.orientation and len(set(map(abs, outer))) > 1:
                self.context.warn_once(node, 'a rotation inside a non-uniform Transform.scale '
                                       'is approximated')
            x, y, z = own.position
            own = Pose((x * outer[0], y * outer[1], z * outer[2]), own.orientation)
        factor = node.vec3('scale', NO_SCALE) if node.type == 'Transform' else NO_SCALE
        self.scale = (outer[0] * factor[0], outer[1] * factor[1], outer[2] * factor[2])
        try:
            yield own
        finally:
            self.scale = outer

    def group(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        self.children(node.nodes('children'), link, pose)

    def nested_solid(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        """A Solid inside a Solid without a joint: rigidly attached. With physics it becomes a
        link of its own on a fixed joint; without, it is fused into ``link``."""
        placed = pose * node_pose(node)
        if node.node('physics') is None:
            self.solid(node, link, placed)
            return
        child = self.draft.new_link(solid_name(node))
        self.solid(node, child, IDENTITY)
        self.draft.joints.append(Joint(unique(f'{child.name} fixed', self.draft.joint_names),
                                       'fixed', link.name, child.name, placed))

    def slot(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        """A Slot pair only constrains what a PROTO field accepts: its endPoint is mounted as
        if it stood in ``children``."""
        end = through_slots(node)
        if end is not None:
            self.children([end], link, pose)

    # devices ---------------------------------------------------------------------------------
    def device(self, node: Node, link: LinkDraft, mount: Pose) -> None:
        """The sensor of device ``node`` on ``link``, the device's frame at ``mount``."""
        handler, default_name = SENSOR_HANDLERS[node.type]
        name = unique(node.string('name', default_name), self.draft.sensor_names)
        if node.type in OPTICAL_DEVICES and self.context.y_up:
            mount = mount * OLD_OPTICAL_TO_SENSOR
        self.draft.sensors.append(handler(self, node, name, link, mount))

    # joints ----------------------------------------------------------------------------------
    def end_point(self, joint: Node) -> Node | None:
        end = joint.node('endPoint')
        if end is not None and end.type == 'Slot':
            end = through_slots(end)
        if end is None:
            self.context.warn(joint, f'{joint.type} without endPoint is ignored')
            return None
        if end.missing_url is not None:
            self.missing(end)
            return None
        if end.type in UNSIMULATED_SOLIDS:
            self.context.warn_once(end, f'{end.type} is not simulated{_why(end)}; it is kept as '
                                   'a solid')
        elif end.type not in ('Solid', 'Robot') and end.type not in SENSOR_HANDLERS:
            self.context.warn(end, f'{joint.type}.endPoint {end.type} is not supported; ignored')
            return None
        return end

    def motor_and_sensors(self, joint: Node, field_name: str) -> tuple[Node | None, list[Node]]:
        motor, sensors = None, []
        for device in joint.nodes(field_name):
            if device.type in ('RotationalMotor', 'LinearMotor'):
                motor = device
            elif device.type == 'PositionSensor':
                sensors.append(device)
            elif device.type != 'Brake':
                self.context.warn(device, f'{device.type} in {joint.type}.{field_name} is not '
                                  'supported; ignored')
        return motor, sensors

    def add_joint(self, joint_node: Node, kind: JointType, parent: LinkDraft, child: LinkDraft,
                  origin: Pose, axis: Vec3, parameters: Node | None, devices: str,
                  fallback_name: str) -> None:
        motor_node, position_sensors = self.motor_and_sensors(joint_node, devices)
        position = parameters.float('position', 0.0) if parameters is not None else 0.0
        name = (motor_node.string('name', 'rotational motor' if kind == 'revolute'
                                  else 'linear motor') if motor_node is not None
                else position_sensors[0].string('name', 'position sensor') if position_sensors
                else fallback_name)
        name = unique(name, self.draft.joint_names)
        limits = None
        motor = None
        if motor_node is not None:
            low, high = motor_node.float('minPosition', 0.0), motor_node.float('maxPosition', 0.0)
            if low != 0.0 or high != 0.0:
                limits = (low, high)
            p, i, d = motor_node.floats('controlPID', 3, (10.0, 0.0, 0.0))
            # Webots: velocity = P * (target - position), capped at maxVelocity. Our servo
            # first moves its set-point at most maxVelocity * step towards the target, so a
            # gain below 1 / step would never reach maxVelocity: raise it to that.
            p = max(p, 1.0 / self.context.step_length)
            force = motor_node.float('maxTorque' if kind == 'revolute' else 'maxForce', 10.0)
            motor = ServoMotor(motor_node.float('maxVelocity', 10.0), force, p, i, d)
        if limits is None and parameters is not None:
            low, high = parameters.float('minStop', 0.0), parameters.float('maxStop', 0.0)
            if low < high:
                limits = (low, high)
        damping = parameters.float('dampingConstant', 0.0) if parameters is not None else 0.0
        friction = parameters.float('staticFriction', 0.0) if parameters is not None else 0.0
        self.draft.joints.append(Joint(name, kind, parent.name, child.name, origin,
                                       normalized(axis), limits, position, motor, damping,
                                       friction))
        for sensor in position_sensors:
            sensor_name = unique(sensor.string('name', 'position sensor'),
                                 self.draft.sensor_names)
            self.draft.sensors.append(JointPositionSensor(sensor_name, child.name, name))

    def hinge(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        self.hinge_or_slider(node, link, pose, 'revolute')

    def slider(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        self.hinge_or_slider(node, link, pose, 'prismatic')

    def hinge_or_slider(self, node: Node, link: LinkDraft, pose: Pose, kind: JointType) -> None:
        end = self.end_point(node)
        if end is None:
            return
        parameters = node.node('jointParameters')
        get = parameters if parameters is not None else Node('JointParameters')
        axis = get.vec3('axis', (1.0, 0.0, 0.0) if kind == 'revolute' else (0.0, 0.0, 1.0))
        if not 0.0 < math.sqrt(sum(a * a for a in axis)) < math.inf:  # 1e308 overflows
            raise node.error(f'{node.type}: the joint axis is zero or too large')
        anchor = get.vec3('anchor', (0.0, 0.0, 0.0)) if kind == 'revolute' else None
        position = get.float('position', 0.0)
        end_pose = node_pose(end)
        if position != 0.0:  # the file shows the endPoint at `position`: bring it back to 0
            if anchor is not None:  # revolute
                pivot = Pose(anchor)
                back = Pose(orientation=quat_from_axis_angle(axis, -position))
                end_pose = pivot * back * pivot.inverse() * end_pose
            else:
                end_pose = Pose(scale(normalized(axis), -position)) * end_pose
        frame = Pose(anchor, end_pose.orientation) if anchor is not None else end_pose
        child = self.draft.new_link(solid_name(end))
        self.solid(end, child, frame.inverse() * end_pose)
        child_axis = quat_rotate(quat_conjugate(frame.orientation), axis)
        self.add_joint(node, kind, link, child, pose * frame, child_axis, parameters, 'device',
                       f'{child.name} joint')

    def hinge2(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        end = self.end_point(node)
        if end is None:
            return
        first = node.node('jointParameters') or Node('HingeJointParameters')
        second = node.node('jointParameters2') or Node('JointParameters')
        anchor = first.vec3('anchor', (0.0, 0.0, 0.0))
        axis1 = first.vec3('axis', (1.0, 0.0, 0.0))
        axis2 = second.vec3('axis', (0.0, 0.0, 1.0))
        end_pose = node_pose(end)
        middle = self.draft.new_link(f'{solid_name(end)} hinge2')
        inertia = 0.4 * HINGE2_LINK_MASS * 1e-4
        middle.mass_parts.append((HINGE2_LINK_MASS, (0.0, 0.0, 0.0),
                                  (inertia, 0.0, 0.0, inertia, 0.0, inertia)))
        child = self.draft.new_link(solid_name(end))
        frame = Pose(orientation=end_pose.orientation)
        self.solid(end, child, Pose(anchor, end_pose.orientation).inverse() * end_pose)
        self.add_joint(node, 'revolute', link, middle, pose * Pose(anchor), axis1,
                       node.node('jointParameters'), 'device', f'{middle.name} joint')
        self.add_joint(node, 'revolute', middle, child, frame,
                       quat_rotate(quat_conjugate(frame.orientation), axis2),
                       node.node('jointParameters2'), 'device2', f'{child.name} joint')

    def propeller(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        """Webots' Propeller: its RotationalMotor turns a helix (a revolute joint, velocity
        controlled; the helix has the slowHelix's shapes and next to no mass, as Webots gives
        it none) and its velocity becomes thrust and torque on ``link`` (a :class:`Propeller`,
        applied by the simulation every step)."""
        motor = node.node('device')
        if motor is None or motor.type != 'RotationalMotor':
            self.context.warn_once(node, 'Propeller without a RotationalMotor device makes no '
                                   'thrust; only its shapes are kept')
            slow = node.node('slowHelix')
            if slow is not None:
                self.nested_solid(slow, link, pose)
            return
        axis = node.vec3('shaftAxis', (1.0, 0.0, 0.0))
        if not 0.0 < math.sqrt(sum(a * a for a in axis)) < math.inf:
            raise node.error('Propeller.shaftAxis is zero or too large')
        center = node.vec3('centerOfThrust', (0.0, 0.0, 0.0))
        helix_node = node.node('slowHelix') or node.node('fastHelix')
        helix_link = self.draft.new_link(solid_name(helix_node) if helix_node is not None
                                         else f'{motor.string("name", "propeller")} helix')
        # the helix spins about the shaft axis through its own origin (else a helix off the
        # axis would orbit it, pulling the robot round at rotor speed)
        hub = Pose(node_pose(helix_node).position if helix_node is not None else center)
        if helix_node is not None:
            self.children(helix_node.nodes('children'), helix_link,
                          hub.inverse() * node_pose(helix_node))
        inertia = 0.4 * HELIX_MASS * 1e-4
        helix_link.mass_parts = [(HELIX_MASS, (0.0, 0.0, 0.0),
                                  (inertia, 0.0, 0.0, inertia, 0.0, inertia))]
        name = unique(motor.string('name', 'rotational motor'), self.draft.joint_names)
        unit_axis = normalized(axis)
        self.draft.joints.append(Joint(
            name, 'revolute', link.name, helix_link.name, pose * hub,
            quat_rotate(quat_conjugate(hub.orientation), unit_axis),
            motor=VelocityMotor(motor.float('maxVelocity', 10.0),
                                motor.float('maxTorque', 10.0))))
        t1, t2 = node.floats('thrustConstants', 2, (1.0, 0.0))
        q1, q2 = node.floats('torqueConstants', 2, (1.0, 0.0))
        self.draft.propellers.append(Propeller(
            name, link.name, (pose * Pose(center)).position, quat_rotate(pose.orientation,
                                                                          unit_axis),
            (t1, t2), (q1, q2)))

    def ball(self, node: Node, link: LinkDraft, pose: Pose) -> None:
        end = self.end_point(node)
        if end is None:
            return
        parameters = node.node('jointParameters') or Node('BallJointParameters')
        anchor = parameters.vec3('anchor', (0.0, 0.0, 0.0))
        end_pose = node_pose(end)
        frame = Pose(anchor, end_pose.orientation)
        child = self.draft.new_link(solid_name(end))
        self.solid(end, child, frame.inverse() * end_pose)
        name = unique(f'{child.name} ball', self.draft.joint_names)
        self.draft.joints.append(Joint(name, 'ball', link.name, child.name, pose * frame))


def _why(node: Node) -> str:
    reason = WHY_UNSIMULATED.get(node.type)
    return f' ({reason})' if reason else ''


CHILD_HANDLERS: dict[str, Callable[[EntityBuilder, Node, LinkDraft, Pose], None]] = {
    'Shape': EntityBuilder.shape,
    'Pose': EntityBuilder.transform,
    'Transform': EntityBuilder.transform,
    'Group': EntityBuilder.group,
    'Slot': EntityBuilder.slot,
    'Solid': EntityBuilder.nested_solid,
    'Robot': EntityBuilder.nested_solid,
}
JOINT_HANDLERS: dict[str, Callable[[EntityBuilder, Node, LinkDraft, Pose], None]] = {
    'HingeJoint': EntityBuilder.hinge,
    'SliderJoint': EntityBuilder.slider,
    'Hinge2Joint': EntityBuilder.hinge2,
    'BallJoint': EntityBuilder.ball,
    'Propeller': EntityBuilder.propeller,
}


# entities ------------------------------------------------------------------------------------
def build_entity(context: Context, node: Node, world_pose: Pose, used_names: set[str]) -> Entity:
    default = 'robot' if node.type == 'Robot' else 'solid'
    draft = EntityDraft(unique(node.string('name', default), used_names))
    root = draft.new_link(draft.name)
    robot = any(n.type == 'Robot' or n.type in JOINT_HANDLERS or n.type in SENSOR_HANDLERS
                for n in node.walk())
    EntityBuilder(context, draft, robot).solid(node, root, IDENTITY)
    has_physics = node.node('physics') is not None
    kind: EntityKind
    if node.type == 'Robot' or draft.joints or draft.sensors:
        kind = 'robot'
    else:
        kind = 'object' if has_physics else 'static'
    return Entity(draft.name, kind, tuple(link.freeze() for link in draft.links),
                  tuple(draft.joints), tuple(draft.sensors), world_pose * node_pose(node),
                  fixed_base=not has_physics, source=node.proto,
                  propellers=tuple(draft.propellers))
