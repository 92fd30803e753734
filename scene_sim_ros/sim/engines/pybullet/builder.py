"""Scene model entities as PyBullet multibodies: :class:`Builder` creates an entity's bodies,
their dynamics, joints and collision filters; the link order, collision-sensor helper links, the
cut of a large entity into parts and principal inertia are :mod:`.link_layout`'s; what a build
returns is :class:`~scene_sim_ros.sim.engines.pybullet.built_entity.BuiltEntity`.

One multibody per entity, links in parent-before-child order (the root is PyBullet's base,
index -1; the others follow in breadth-first order of the joint tree). Frames:

- PyBullet's ``basePosition`` and ``linkPositions`` are link frames (the model's), but the pose
  PyBullet *reports* for the base (``getBasePositionAndOrientation``) and the link pose it reports
  first (``getLinkState[0:2]``) are the centre-of-mass (inertial) frames.
  :class:`~.built_entity.BuiltEntity` keeps each link's inertial frame so the
  simulation can convert.
- A link's inertial frame is at its centre of mass, rotated onto the principal axes of its
  inertia tensor (PyBullet takes a diagonal inertia); a diagonal tensor keeps the link's axes.

Masses: fixed-base entities (static compounds, robots hinged to the world) get base mass 0, which
PyBullet reads as "fixed". Massless links of movable entities get
:data:`~scene_sim_ros.sim.link_layout.MIN_MASS` (Featherstone needs positive mass behind every
movable joint); point masses get the inertia of a 1 cm sphere.

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
to no model API: :attr:`~scene_sim_ros.sim.engines.pybullet.built_entity.BuiltEntity.link_names` lists model
links only; ``sensor_links`` and ``helper_parent`` map sensors to helpers and helpers back to
their model link.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

import pybullet as pb

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Entity, Joint, Link, Pose, Scene, ServoMotor
from scene_sim_ros.scene.transforms import vec3
from scene_sim_ros.sim.engines.pybullet.body_pool import BodyPool, pool_key
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity, Part, place_parts
from scene_sim_ros.sim.engines.pybullet.mass_matrix import mass_matrix_source
from scene_sim_ros.sim.engines.pybullet.shapes import ShapeCache, apply_colors, check_textures
from scene_sim_ros.sim.link_layout import (
    DOFS,
    MAX_DOFS,
    MAX_LINKS,
    MIN_MASS,
    MIN_PRINCIPAL_INERTIA,
    _Layout,
    link_order,
    principal_inertia,
    sensor_links,
)
from scene_sim_ros.sim.materials import LinkContact, link_material, rolling_coefficient
from scene_sim_ros.sim.motors import MotorBank
from scene_sim_ros.sim.torque_servos import is_torque_controlled, substeps_for, with_armature

SENSOR_LINK_MASS = 1e-4
JOINT_TYPES = {'revolute': pb.JOINT_REVOLUTE, 'prismatic': pb.JOINT_PRISMATIC,
               'fixed': pb.JOINT_FIXED, 'ball': pb.JOINT_SPHERICAL}
DYNAMIC_GROUP, STATIC_GROUP = 1, 2
PART_FORCE = 1e7  # N, what the constraint holding a part to its parent may take
PROXY_INERTIA = 1e-6  # kg*m^2, principal moments of a part's proxy base


PYBULLET_MAX_JOINT_VELOCITY = 100.0
"""PyBullet's default ``maxJointVelocity`` of a multibody (rad/s or m/s, every coordinate)."""


@dataclass
class Builder:
    """Creates entities in one PyBullet client, sharing shapes through ``shapes``."""

    client: int
    scene: Scene
    shapes: ShapeCache
    contacts: dict[str, LinkContact]
    textures: dict[Path, int] = field(default_factory=dict)
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
            built.motors.torque.set_mass_matrix_source(mass_matrix_source(
                self.client, body, built.joint_indices, built.motors.torque.rows))
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

    def _create_parts(self, entity: Entity, layout: _Layout, parts: list[Part], masses: list[float],
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
        kwargs: dict[str, float | list[float]] = dict(
            lateralFriction=contact.friction,
            rollingFriction=rolling_coefficient(link, contact.rolling_friction, self._gravity),
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
            kwargs: dict[str, float] = {}
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
        its own, :mod:`.motors`), a free one (parts' proxies too) none, unless a motor of it
        must run faster than PyBullet's default cap of 100 rad/s (a propeller's helix): then
        that motor's limit."""
        if not built.fixed:
            motor_limits = [float(getattr(joint.motor, 'max_velocity', math.inf))
                            for joint in joints if joint.movable and joint.motor is not None]
            fastest = max((v for v in motor_limits if math.isfinite(v)), default=0.0)
            if fastest > PYBULLET_MAX_JOINT_VELOCITY and any(
                    i >= 0 and built.locate(i)[0] == built.body for i in built.link_names):
                pb.changeDynamics(built.body, 0, maxJointVelocity=fastest,
                                  physicsClientId=self.client)
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
