"""Scene model entities as PyBullet multibodies.

One multibody per entity, links in parent-before-child order (the root is PyBullet's base,
index -1; the others follow in breadth-first order of the joint tree). Frames:

- PyBullet's ``basePosition`` and ``linkPositions`` are link frames (the model's), but the pose
  PyBullet *reports* for the base (``getBasePositionAndOrientation``) and the link pose it reports
  first (``getLinkState[0:2]``) are the centre-of-mass (inertial) frames. :class:`BuiltEntity`
  keeps each link's inertial frame so the simulation can convert.
- A link's inertial frame is at its centre of mass, rotated onto the principal axes of its
  inertia tensor (PyBullet takes a diagonal inertia); a diagonal tensor keeps the link's axes.

Masses: fixed-base entities (static compounds, robots hinged to the world) get base mass 0, which
PyBullet reads as "fixed". Massless links of movable entities get :data:`MIN_MASS` (Featherstone
needs positive mass behind every movable joint); point masses get the inertia of a 1 cm sphere.

Collision rules: ``Entity.self_collision`` turns on PyBullet self-collision (parent/child pairs
never collide); ``disabled_collisions`` pairs are filtered out; with
``Scene.body_collisions`` false, movable entities collide with static ones only (SimRobot's
``bodyCollisions``); explicit ``collision_group``/``collision_mask`` win over both.

Sensor links: PyBullet's contact points do not say which shape of a link touched, so the
collision shapes a :class:`~scene_sim_ros.scene.sensors.CollisionSensor` names go onto a helper
link of their own, fixed to the model link at identity and numbered after all model links (model
link indices stay PyBullet's). It takes :data:`SENSOR_LINK_MASS` (at most 1 %) of its link's mass
at the link's centre of mass with proportional inertia, so the entity's mass, centre of mass and
inertia stay the model's. It collides with nothing its link is excluded from. Helper links belong
to no model API: :attr:`BuiltEntity.link_names` lists model links only; ``sensor_links`` and
``helper_parent`` map sensors to helpers and helpers back to their model link.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb

from ..errors import SimulationError
from ..scene import Entity, Joint, Link, Pose, Scene, ServoMotor
from ..scene.sensors import CollisionSensor
from ..scene.transforms import quat_from_matrix, vec3
from .body_pool import BodyPool, pool_key
from .materials import LinkContact, link_material, rolling_coefficient
from .motors import MotorBank
from .shapes import ShapeCache, apply_colors, check_textures
from .torque_servos import is_torque_controlled, mobility_source, substeps_for, with_armature

MIN_MASS = 1e-3
SENSOR_LINK_MASS = 1e-4
POINT_MASS_RADIUS = 0.01
MIN_PRINCIPAL_INERTIA = 1e-9
JOINT_TYPES = {'revolute': pb.JOINT_REVOLUTE, 'prismatic': pb.JOINT_PRISMATIC,
               'fixed': pb.JOINT_FIXED, 'ball': pb.JOINT_SPHERICAL}
DYNAMIC_GROUP, STATIC_GROUP = 1, 2
# PyBullet's createMultiBody silently keeps at most 127 links, and (measured, pybullet 3.2.7)
# getLinkState reports link 0 wrong once a body's joints have more than 123 degrees of freedom
# (124 revolute joints after stepping, 42 ball joints at once); loadURDF builds more links but
# then answers no state query at all. Larger entities are cut into parts (:class:`Part`).
MAX_LINKS = 127
MAX_DOFS = 120
DOFS = {'revolute': 1, 'prismatic': 1, 'ball': 3, 'fixed': 0}
PART_FORCE = 1e7  # N, what the constraint holding a part to its parent may take
PROXY_INERTIA = 1e-6  # kg*m^2, principal moments of a part's proxy base


@dataclass
class BuiltEntity:
    """An entity in the PyBullet world and what is needed to talk about it in model terms."""

    entity: Entity
    body: int
    link_index: dict[str, int]  # model link name -> PyBullet link index (-1: root)
    link_names: dict[int, str]  # the inverse
    inertial: dict[int, Pose]  # PyBullet link index -> inertial frame in the link frame
    movable_joints: tuple[Joint, ...]  # scene order
    joint_indices: list[int]  # PyBullet joint index of each movable joint
    motors: MotorBank
    initial_pose: Pose
    fixed: bool
    kinematic_pose: Pose | None = None
    kinematic_velocity: tuple = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))  # (linear, angular)
    inertial_inverse: dict[int, Pose] = field(default_factory=dict)  # link frame in inertial
    sensor_links: dict[str, int] = field(default_factory=dict)  # sensor -> helper link index
    helper_parent: dict[int, int] = field(default_factory=dict)  # helper -> model link index
    parts: list[Part] = field(default_factory=list)  # further multibodies of a large entity
    park_key: Hashable | None = None  # its body may be parked for an equal entity (body_pool)

    def __post_init__(self) -> None:
        self.inertial_inverse = {i: pose.inverse() for i, pose in self.inertial.items()}

    @property
    def bodies(self) -> tuple[int, ...]:
        """The PyBullet bodies of the entity: :attr:`body` and those of its :attr:`parts`."""
        return (self.body, *(part.body for part in self.parts))

    def locate(self, index: int) -> tuple[int, int]:
        """(PyBullet body, its link index) of link ``index`` (indices of :attr:`link_index`)."""
        for part in self.parts:
            if part.offset <= index < part.offset + part.count:
                return part.body, index - part.offset
        return self.body, index

    def global_index(self, body: int, link: int) -> int:
        """The index (as in :attr:`link_index`) of PyBullet ``(body, link)``; a part's base
        stands for the model link it hangs on."""
        for part in self.parts:
            if part.body == body:
                return part.parent_link if link < 0 else part.offset + link
        return link

    def joint_groups(self) -> list[tuple[int, list[int], list[int]]]:
        """(body, its joint indices, positions in :attr:`joint_indices`) per body."""
        groups: dict[int, tuple[list[int], list[int]]] = {}
        for k, index in enumerate(self.joint_indices):
            body, local = self.locate(index)
            group = groups.setdefault(body, ([], []))
            group[0].append(local)
            group[1].append(k)
        return [(body, locals_, ks) for body, (locals_, ks) in groups.items()]

    @property
    def name(self) -> str:
        return self.entity.name

    def model_link_index(self, index: int) -> int:
        """The model link a PyBullet link index stands for (a helper's link; else itself)."""
        return self.helper_parent.get(index, index)

    def model_link_name(self, index: int) -> str | None:
        return self.link_names.get(self.helper_parent.get(index, index))

    def own_link_indices(self, index: int) -> tuple[int, ...]:
        """PyBullet link ``index`` and the indices of its helper links."""
        return (index, *(h for h, parent in self.helper_parent.items() if parent == index))


@dataclass
class Part:
    """One more multibody of an entity with more links than PyBullet takes in one
    (:data:`MAX_LINKS`): its base is a massless-ish proxy fixed (by a constraint) at the frame
    ``origin`` of model link ``parent_link`` where the cut joint sits; its links ``offset`` ..
    ``offset + count - 1`` of the entity's link indices are its PyBullet links 0 .. count - 1."""

    body: int
    offset: int
    count: int
    parent_link: int
    origin: Pose
    constraint: int | None = None


@dataclass
class _SensorLink:
    """A helper link carrying the collision shapes ``collisions`` that ``sensors`` name."""

    parent: str
    collisions: tuple
    sensors: list[str]


def sensor_links(entity: Entity, warnings: list[str]) -> list[_SensorLink]:
    """Helper links for the collision sensors of ``entity`` that name shapes of their link."""
    links = {link.name: link for link in entity.links}
    helpers: dict[tuple[str, frozenset], _SensorLink] = {}
    taken: dict[str, set[str]] = {}
    for sensor in entity.sensors:
        if not isinstance(sensor, CollisionSensor) or not sensor.shapes or \
                sensor.link not in links:
            continue
        wanted = frozenset(sensor.shapes)
        key = (sensor.link, wanted)
        if key in helpers:
            helpers[key].sensors.append(sensor.name)
            continue
        named = tuple(c for c in links[sensor.link].collisions if c.name in wanted)
        missing = wanted - {c.name for c in named}
        used = taken.setdefault(sensor.link, set())
        if missing or not named or used & wanted:
            reason = (f'names unknown shapes {sorted(missing)}' if missing or not named
                      else 'shares shapes with another collision sensor')
            warnings.append(f'entity {entity.name!r}: collision sensor {sensor.name!r} {reason}; '
                            f'it reports contacts of all shapes of link {sensor.link!r}')
            continue
        used |= wanted
        helpers[key] = _SensorLink(sensor.link, named, [sensor.name])
    return list(helpers.values())


def link_order(entity: Entity) -> tuple[list[Link], dict[str, Joint]]:
    """Links reachable from the root in depth-first pre-order (children in joint order) and the
    joint above each child. PyBullet's importer numbers links depth-first, so this order makes
    our indices PyBullet's."""
    children: dict[str, list[Joint]] = {}
    for joint in entity.joints:
        children.setdefault(joint.parent, []).append(joint)
    names = {link.name: link for link in entity.links}
    order, parent_joint = [], {}
    stack = [entity.root.name]
    while stack:
        name = stack.pop()
        order.append(names[name])
        below = children.get(name, [])
        for joint in below:
            if joint.child in parent_joint or joint.child == entity.root.name:
                raise SimulationError(f'entity {entity.name!r}: link {joint.child!r} has more '
                                      f'than one parent (joint {joint.name!r})')
            if joint.child not in names:
                raise SimulationError(f'entity {entity.name!r}: joint {joint.name!r} names an '
                                      f'unknown link {joint.child!r}')
            parent_joint[joint.child] = joint
        stack.extend(joint.child for joint in reversed(below))
    return order, parent_joint


class _Layout:
    """How a large entity's links are cut into pieces of at most :data:`MAX_LINKS` PyBullet
    links (model links and their sensor helpers) and :data:`MAX_DOFS` joint degrees of freedom:
    depth-first, a link joins its parent's piece while that has room, else starts a new piece
    (its joint is then that piece's ``cut``).

    ``index``: model link -> the entity's link index (piece 0: PyBullet's; piece k: offset_k +
    its PyBullet index); ``helper_index``: helper k -> its link index."""

    def __init__(self, order: list[Link], parent_joint: dict[str, Joint],
                 helpers: list[_SensorLink]):
        self.order, self.parent_joint, self.helpers = order, parent_joint, helpers
        helpers_of: dict[str, list[int]] = {}
        for k, helper in enumerate(helpers):
            helpers_of.setdefault(helper.parent, []).append(k)
        root = order[0].name
        self.pieces: list[list[Link]] = [[]]
        self.cuts: list[Joint | None] = [None]
        sizes = [len(helpers_of.get(root, []))]
        dofs = [0]
        piece_of = {root: 0}
        for link in order[1:]:
            weight = 1 + len(helpers_of.get(link.name, []))
            joint = parent_joint[link.name]
            k = piece_of[joint.parent]
            if sizes[k] + weight > MAX_LINKS or dofs[k] + DOFS[joint.type] > MAX_DOFS:
                k = len(self.pieces)
                self.pieces.append([])
                self.cuts.append(joint)
                sizes.append(0)
                dofs.append(0)
            self.pieces[k].append(link)
            sizes[k] += weight
            dofs[k] += DOFS[joint.type]
            piece_of[link.name] = k
        self.piece_helpers = [[h for link in ([order[0]] if k == 0 else []) + links
                               for h in helpers_of.get(link.name, [])]
                              for k, links in enumerate(self.pieces)]
        self.index: dict[str, int] = {root: -1}
        self.helper_index = [0] * len(helpers)
        self.offsets: list[int] = []
        offset = 0
        for k, links in enumerate(self.pieces):
            self.offsets.append(offset)
            for i, link in enumerate(links):
                self.index[link.name] = offset + i
            for i, h in enumerate(self.piece_helpers[k]):
                self.helper_index[h] = offset + len(links) + i
            offset += len(links) + len(self.piece_helpers[k])


def place_parts(client: int, built: BuiltEntity) -> None:
    """Put each part's proxy base where its cut joint is on its parent link, moving with it
    (after the entity was placed, its joints set or its velocity changed)."""
    for part in built.parts:
        body, link = built.locate(part.parent_link)
        if link < 0:
            com, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=client)
            linear, angular = pb.getBaseVelocity(body, physicsClientId=client)
        else:
            state = pb.getLinkState(body, link, computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=client)
            com, orientation, linear, angular = state[0], state[1], state[6], state[7]
        frame = Pose(com, orientation) * built.inertial_inverse[part.parent_link] * part.origin
        pb.resetBasePositionAndOrientation(part.body, frame.position, frame.orientation,
                                           physicsClientId=client)
        arm = np.subtract(frame.position, com)
        velocity = np.add(linear, np.cross(angular, arm))
        pb.resetBaseVelocity(part.body, velocity.tolist(), list(angular),
                             physicsClientId=client)


def principal_inertia(link: Link, movable: bool) -> tuple[float, Pose, tuple[float, float, float]]:
    """Mass, inertial frame (in the link frame) and principal moments PyBullet receives."""
    inertial = link.inertial
    mass = inertial.mass
    xx, xy, xz, yy, yz, zz = inertial.inertia
    if movable and mass <= 0.0:
        mass = MIN_MASS
    if max(abs(xx), abs(yy), abs(zz)) <= 0.0:
        moment = 0.4 * mass * POINT_MASS_RADIUS ** 2
        return mass, Pose(inertial.com), (moment, moment, moment)
    if abs(xy) + abs(xz) + abs(yz) <= 1e-12 * (abs(xx) + abs(yy) + abs(zz)):
        moments, orientation = (xx, yy, zz), (0.0, 0.0, 0.0, 1.0)
    else:
        values, vectors = np.linalg.eigh(np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
        if np.linalg.det(vectors) < 0.0:
            vectors[:, 2] = -vectors[:, 2]
        moments = vec3(values.tolist())
        orientation = quat_from_matrix(vectors.tolist())
    moments = vec3([max(m, MIN_PRINCIPAL_INERTIA) for m in moments])
    return mass, Pose(inertial.com, orientation), moments


@dataclass
class Builder:
    """Creates entities in one PyBullet client, sharing shapes through ``shapes``."""

    client: int
    scene: Scene
    shapes: ShapeCache
    contacts: dict[str, LinkContact]
    textures: dict = field(default_factory=dict)
    pool: BodyPool | None = None  # parked bodies of deleted entities, revived for equal ones

    def build(self, entity: Entity) -> BuiltEntity:
        order, parent_joint = link_order(entity)
        fixed = entity.fixed_base or entity.kind == 'static' or entity.kinematic
        concave = fixed
        index = {link.name: i - 1 for i, link in enumerate(order)}
        masses, inertial_frames, moments = [], [], []
        for i, link in enumerate(order):
            mass, frame, principal = principal_inertia(  # Core3 servos: + armature
                with_armature(link, parent_joint.get(link.name)), movable=not fixed or i > 0)
            if entity.kind == 'static':
                mass = link.inertial.mass
            masses.append(0.0 if (i == 0 and fixed) else mass)
            inertial_frames.append(frame)
            moments.append(principal)
        helpers = sensor_links(entity, self.shapes.warnings)
        moved = {id(c) for helper in helpers for c in helper.collisions}
        collision = [self.shapes.collision_shape(
            tuple(c for c in link.collisions if id(c) not in moved), concave,
            f'link {link.name!r} of {entity.name!r}') for link in order]
        # a height field is placed by moving its body's link frame (PyBullet ignores its
        # collision frame); the base inertial frame PyBullet gets is expressed in that moved
        # frame, so the centre of mass (what PyBullet reports) and our link frames stay put
        field_frame = self.shapes.heightfield_frame(order[0].collisions)
        body_pose, base_inertial = entity.pose, inertial_frames[0]
        if field_frame is not None:
            body_pose = entity.pose * field_frame
            base_inertial = field_frame.inverse() * inertial_frames[0]
        if any(self.shapes.heightfield_frame(link.collisions) for link in order[1:]):
            self.shapes.warnings.append(f'entity {entity.name!r}: a height field on a non-root '
                                        f'link sits at its mid height, not at its heights')
        visual = [self.shapes.visual_shape(link.visuals) for link in order]
        joints = [parent_joint[link.name] for link in order[1:]]
        position = {link.name: i for i, link in enumerate(order)}
        helper_masses, helper_moments, helper_origins = [], [], []
        for helper in helpers:
            i = position[helper.parent]
            mass = min(SENSOR_LINK_MASS, 0.01 * masses[i])
            share = mass / masses[i] if masses[i] > 0.0 else 0.0
            helper_masses.append(mass)
            helper_moments.append(vec3([max(m * share, MIN_PRINCIPAL_INERTIA) for m in moments[i]]))
            masses[i] -= mass
            moments[i] = vec3([m * (1.0 - share) for m in moments[i]])
            at_moved_root = i == 0 and field_frame is not None
            helper_origins.append(field_frame.inverse() if at_moved_root and field_frame is not None
                                  else Pose())
        flags = (pb.URDF_USE_SELF_COLLISION | pb.URDF_USE_SELF_COLLISION_EXCLUDE_PARENT
                 if entity.self_collision else 0)
        helper_shapes = [self.shapes.collision_shape(h.collisions, concave) for h in helpers]
        parts: list[Part] = []
        key: Hashable | None = None  # large entities (parts) are never parked
        if len(order) - 1 + len(helpers) > MAX_LINKS or \
                sum(DOFS[j.type] for j in joints) > MAX_DOFS:
            layout = _Layout(order, parent_joint, helpers)
            index, helper_index = layout.index, layout.helper_index
            body = self._create_parts(
                entity, layout, parts, masses, inertial_frames, collision, visual,
                helper_masses, helper_shapes, body_pose, base_inertial, flags)
        else:
            index = {link.name: i - 1 for i, link in enumerate(order)}
            helper_index = [len(order) - 1 + k for k in range(len(helpers))]
            key = pool_key(entity)
            body = -1 if self.pool is None else self.pool.take(key, body_pose * base_inertial)
            if body < 0:
                body = pb.createMultiBody(
                    baseMass=masses[0], baseCollisionShapeIndex=collision[0],
                    baseVisualShapeIndex=visual[0], basePosition=body_pose.position,
                    baseOrientation=body_pose.orientation,
                    baseInertialFramePosition=base_inertial.position,
                    baseInertialFrameOrientation=base_inertial.orientation,
                    linkMasses=masses[1:] + helper_masses,
                    linkCollisionShapeIndices=collision[1:] + helper_shapes,
                    linkVisualShapeIndices=visual[1:] + [-1] * len(helpers),
                    linkPositions=[j.origin.position for j in joints]
                    + [o.position for o in helper_origins],
                    linkOrientations=[j.origin.orientation for j in joints]
                    + [o.orientation for o in helper_origins],
                    linkInertialFramePositions=[f.position for f in inertial_frames[1:]]
                    + [inertial_frames[position[h.parent]].position for h in helpers],
                    linkInertialFrameOrientations=[f.orientation for f in inertial_frames[1:]]
                    + [inertial_frames[position[h.parent]].orientation for h in helpers],
                    linkParentIndices=[index[j.parent] + 1 for j in joints]
                    + [index[h.parent] + 1 for h in helpers],
                    linkJointTypes=[JOINT_TYPES[j.type] for j in joints]
                    + [pb.JOINT_FIXED] * len(helpers),
                    linkJointAxis=[j.axis for j in joints] + [(0.0, 0.0, 1.0)] * len(helpers),
                    flags=flags, physicsClientId=self.client)
                if body < 0:
                    raise SimulationError(f'PyBullet could not create entity {entity.name!r}')
                for i, joint in enumerate(joints):
                    parent = pb.getJointInfo(body, i, physicsClientId=self.client)[16]
                    if parent != index[joint.parent]:  # our link numbering must be PyBullet's
                        raise SimulationError(f'entity {entity.name!r}: PyBullet numbered link '
                                              f'{joint.child!r} differently')
        movable = tuple(j for j in entity.joints if j.movable and j.child in index)
        built = BuiltEntity(
            entity=entity, body=body, link_index=index,
            link_names={i: name for name, i in index.items()},
            inertial={index[link.name]: inertial_frames[i] for i, link in enumerate(order)},
            movable_joints=movable, joint_indices=[index[j.child] for j in movable],
            motors=MotorBank(movable, self.scene.step_length / substeps_for(self.scene)),
            initial_pose=entity.pose,
            fixed=fixed, kinematic_pose=entity.pose if entity.kinematic else None,
            kinematic_velocity=(entity.linear_velocity, entity.angular_velocity), parts=parts,
            park_key=key)
        if len(built.motors.torque) and not parts:
            built.motors.torque.inertia_source = mobility_source(
                self.client, body, built.joint_indices, built.motors.torque.rows)
        for k, helper in enumerate(helpers):
            built.helper_parent[helper_index[k]] = index[helper.parent]
            built.sensor_links.update((name, helper_index[k]) for name in helper.sensors)
            self._set_dynamics(built, order[position[helper.parent]], helper_index[k],
                               helper_masses[k], helper_moments[k])
        for i, link in enumerate(order):
            self._set_dynamics(built, link, index[link.name], masses[i], moments[i])
            if link.visuals and visual[i] >= 0:
                apply_colors(self.client, *built.locate(index[link.name]), link.visuals,
                             self.textures, self.shapes.warnings)
            elif not self.shapes.visuals:
                check_textures(link.visuals, self.textures, self.shapes.warnings)
        for part in parts:  # the proxies: tiny, not a model link
            pb.changeDynamics(part.body, -1, localInertiaDiagonal=[PROXY_INERTIA] * 3,
                              linearDamping=0.0, angularDamping=0.0,
                              physicsClientId=self.client)
        self._set_joints(built, joints)
        self._set_collision_filters(built)
        if parts:
            self._join_parts(built, order, inertial_frames)
        return built

    def _create_parts(self, entity: Entity, layout: _Layout, parts: list[Part], masses: list,
                      inertial_frames: list[Pose], collision: list[int], visual: list[int],
                      helper_masses: list[float], helper_shapes: list[int], body_pose: Pose,
                      base_inertial: Pose, flags: int) -> int:
        """The multibodies of a large entity (see :class:`Part`); returns the first's id."""
        position = {link.name: i for i, link in enumerate(layout.order)}
        bodies: list[int] = []
        for k, links in enumerate(layout.pieces):
            helpers = layout.piece_helpers[k]
            cut = layout.cuts[k]
            if k == 0:
                base = dict(baseMass=masses[0], baseCollisionShapeIndex=collision[0],
                            baseVisualShapeIndex=visual[0], basePosition=body_pose.position,
                            baseOrientation=body_pose.orientation,
                            baseInertialFramePosition=base_inertial.position,
                            baseInertialFrameOrientation=base_inertial.orientation)
                local = {layout.order[0].name: -1}
            else:
                base = dict(baseMass=0.0 if entity.kind == 'static' else MIN_MASS,
                            baseCollisionShapeIndex=-1, baseVisualShapeIndex=-1,
                            basePosition=entity.pose.position,
                            baseOrientation=entity.pose.orientation)
                local = {}
            for i, link in enumerate(links):
                local[link.name] = i
            rows = [position[link.name] for link in links]
            joints = [layout.parent_joint[link.name] for link in links]
            origins = [Pose() if joint is cut else joint.origin for joint in joints]
            helper_rows = [position[layout.helpers[h].parent] for h in helpers]
            body = pb.createMultiBody(
                **base,
                linkMasses=[masses[r] for r in rows] + [helper_masses[h] for h in helpers],
                linkCollisionShapeIndices=[collision[r] for r in rows]
                + [helper_shapes[h] for h in helpers],
                linkVisualShapeIndices=[visual[r] for r in rows] + [-1] * len(helpers),
                linkPositions=[o.position for o in origins] + [(0.0, 0.0, 0.0)] * len(helpers),
                linkOrientations=[o.orientation for o in origins]
                + [(0.0, 0.0, 0.0, 1.0)] * len(helpers),
                linkInertialFramePositions=[inertial_frames[r].position
                                            for r in rows + helper_rows],
                linkInertialFrameOrientations=[inertial_frames[r].orientation
                                               for r in rows + helper_rows],
                linkParentIndices=[0 if joint is cut else local[joint.parent] + 1
                                   for joint in joints]
                + [local[layout.helpers[h].parent] + 1 for h in helpers],
                linkJointTypes=[JOINT_TYPES[j.type] for j in joints]
                + [pb.JOINT_FIXED] * len(helpers),
                linkJointAxis=[j.axis for j in joints] + [(0.0, 0.0, 1.0)] * len(helpers),
                flags=flags, physicsClientId=self.client)
            if body < 0 or pb.getNumJoints(body, physicsClientId=self.client) != \
                    len(links) + len(helpers):
                raise SimulationError(f'PyBullet could not create part {k} of entity '
                                      f'{entity.name!r}')
            bodies.append(body)
            if cut is not None:
                parts.append(Part(body, layout.offsets[k], len(links) + len(helpers),
                                  layout.index[cut.parent], cut.origin))
        return bodies[0]

    def _join_parts(self, built: BuiltEntity, order: list[Link],
                    inertial_frames: list[Pose]) -> None:
        """Place the parts where their cut joints are and fix them there; keep a part's links
        from colliding with the rest of the entity (self-collision off) or with the link it
        hangs on (self-collision on)."""
        place_parts(self.client, built)
        frames = {built.link_index[link.name]: inertial_frames[i] for i, link in enumerate(order)}
        if built.entity.kind != 'static':  # a static entity's parts are fixed bases
            for part in built.parts:
                parent_body, parent_link = built.locate(part.parent_link)
                frame = frames[part.parent_link].inverse() * part.origin
                part.constraint = pb.createConstraint(
                    parent_body, parent_link, part.body, -1, pb.JOINT_FIXED, (0.0, 0.0, 0.0),
                    frame.position, (0.0, 0.0, 0.0), frame.orientation, (0.0, 0.0, 0.0, 1.0),
                    physicsClientId=self.client)
                pb.changeConstraint(part.constraint, maxForce=PART_FORCE,
                                    physicsClientId=self.client)
        owner = {i: built.locate(i)[0] for i in (*built.link_names, *built.helper_parent)}
        shaped = [i for i in owner
                  if pb.getCollisionShapeData(*built.locate(i), physicsClientId=self.client)]
        cut_pairs = {(part.parent_link, built.global_index(part.body, 0)) for part in built.parts}
        for a in shaped:
            for b in shaped:
                if a >= b or owner[a] == owner[b]:
                    continue
                ma, mb = built.model_link_index(a), built.model_link_index(b)
                if built.entity.self_collision and (ma, mb) not in cut_pairs and \
                        (mb, ma) not in cut_pairs:
                    continue
                pb.setCollisionFilterPair(*built.locate(a), *built.locate(b), 0,
                                          physicsClientId=self.client)

    @property
    def _gravity(self) -> float:
        return math.sqrt(sum(g * g for g in self.scene.gravity))

    def _set_dynamics(self, built: BuiltEntity, link: Link, link_index: int, mass: float,
                      moments: tuple[float, float, float]) -> None:
        contact = self.contacts.get(link_material(link)) or self.contacts['']
        kwargs: dict = dict(lateralFriction=contact.friction,
                            rollingFriction=rolling_coefficient(
                                link, contact.rolling_friction, self._gravity),
                            restitution=contact.restitution, linearDamping=0.0,
                            angularDamping=0.0, physicsClientId=self.client)
        if mass > 0.0:
            kwargs['localInertiaDiagonal'] = list(moments)
        pb.changeDynamics(*built.locate(link_index), **kwargs)

    def _set_joints(self, built: BuiltEntity, joints: list[Joint]) -> None:
        for joint in joints:
            body, j = built.locate(built.link_index[joint.child])
            if joint.type == 'ball':
                pb.setJointMotorControlMultiDof(body, j, pb.POSITION_CONTROL,
                                                targetPosition=[0, 0, 0, 1], force=[0, 0, 0],
                                                physicsClientId=self.client)
            if not joint.movable:
                continue
            kwargs: dict = {}
            if joint.damping:
                kwargs['jointDamping'] = joint.damping
            # a Core2 servo keeps its joint inside the limits itself (SimRobot's ODE Hinge does
            # the same); SimRobotCore3 makes Deflection min/max MuJoCo joint ranges
            if joint.limits is not None and (not isinstance(joint.motor, ServoMotor)
                                             or is_torque_controlled(joint)):
                kwargs['jointLowerLimit'], kwargs['jointUpperLimit'] = joint.limits
            if kwargs:
                pb.changeDynamics(body, j, physicsClientId=self.client, **kwargs)
            pb.resetJointState(body, j, joint.initial_position, 0.0,
                               physicsClientId=self.client)
        self._cap_joint_velocities(built, joints)
        friction = built.motors.friction.tolist()
        for body, indices, ks in built.joint_groups():  # PyBullet's default motors would
            pb.setJointMotorControlArray(body, indices, pb.VELOCITY_CONTROL,  # hold passive
                                         targetVelocities=[0.0] * len(indices),  # joints
                                         forces=[friction[k] for k in ks],
                                         physicsClientId=self.client)

    def _cap_joint_velocities(self, built: BuiltEntity, joints: list[Joint]) -> None:
        """PyBullet's ``maxJointVelocity`` is one cap per body on every coordinate, a free
        base's too (a robot with a 5 rad/s joint falls at most 5 m/s), whichever link sets it:
        a fixed-base body gets the largest of its joints' limits (motors keep each joint within
        its own, :mod:`.motors`), a free one (parts' proxies too) none."""
        if not built.fixed:
            return
        limits = [math.inf if joint.max_velocity is None else joint.max_velocity
                  for joint in joints if joint.movable
                  and built.locate(built.link_index[joint.child])[0] == built.body]
        if limits and math.isfinite(max(limits)):
            pb.changeDynamics(built.body, 0, maxJointVelocity=max(limits),
                              physicsClientId=self.client)

    def _set_collision_filters(self, built: BuiltEntity) -> None:
        entity = built.entity
        client = self.client
        group, mask = entity.collision_group, entity.collision_mask
        if group is None and mask is None and not self.scene.body_collisions:
            group, mask = (STATIC_GROUP, DYNAMIC_GROUP) if built.fixed else \
                (DYNAMIC_GROUP, STATIC_GROUP)
        if group is not None or mask is not None:
            group = DYNAMIC_GROUP if group is None else group
            mask = -1 if mask is None else mask
            for link_index in (*built.link_names, *built.helper_parent):
                pb.setCollisionFilterGroupMask(*built.locate(link_index), group, mask,
                                               physicsClientId=client)
            for part in built.parts:
                pb.setCollisionFilterGroupMask(part.body, -1, group, mask,
                                               physicsClientId=client)
        parent_of = {j.child: j.parent for j in entity.joints}
        excluded: set[tuple[int, int]] = set()
        for a, b in entity.disabled_collisions:
            if a in built.link_index and b in built.link_index:
                excluded.add((built.link_index[a], built.link_index[b]))
                if parent_of.get(a) == b or parent_of.get(b) == a:
                    continue  # PyBullet excludes parent/child pairs already (flag above)
                pb.setCollisionFilterPair(*built.locate(built.link_index[a]),
                                          *built.locate(built.link_index[b]), 0,
                                          physicsClientId=client)
        if entity.self_collision:
            self._exclude_helper_collisions(built, parent_of, excluded)

    def _exclude_helper_collisions(self, built: BuiltEntity, parent_of: dict[str, str],
                                   excluded: set[tuple[int, int]]) -> None:
        """A helper link collides with nothing of its entity that its model link does not."""
        index = built.link_index
        pairs = set(excluded) | {(index[child], index[parent]) for child, parent
                                 in parent_of.items() if child in index and parent in index}
        for helper, link in built.helper_parent.items():
            partners = {b for a, b in pairs if a == link} | {a for a, b in pairs if b == link}
            partners |= {link} | set(built.own_link_indices(link))
            partners.discard(helper)
            for other in sorted(partners):
                pb.setCollisionFilterPair(*built.locate(helper), *built.locate(other), 0,
                                          physicsClientId=self.client)
