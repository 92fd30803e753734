"""Reading and setting the state of a :class:`Simulation`'s entities: poses, velocities (with
the per-step :meth:`~StateQueries.link_world_state` cache), joints, forces, contacts and mass.

Poses are the *model's* link frames (never PyBullet's inertial frames); velocities are
world-frame, linear velocity of the link frame's origin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pybullet as pb

from scene_sim_ros.errors import CommandError, SimulationError
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import cross
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity, place_parts
from scene_sim_ros.sim.engines.pybullet.entity_lookup import EntityLookup, Push
from scene_sim_ros.sim.engines.pybullet.motor_world import MotorWorld
from scene_sim_ros.sim.motors import POSITION
from scene_sim_ros.sim.requests import requested_pose, requested_push, requested_velocity
from scene_sim_ros.sim.simulator import ContactPoint, JointSample, Quaternion, Vector
from scene_sim_ros.sim.torque_servos import substeps_for

_NO_JOINTS = np.zeros(0)
_NO_JOINTS.flags.writeable = False


class StateQueries(EntityLookup):
    """Poses, velocities, joints, forces, contacts and mass (a mixin of :class:`Simulation`)."""

    # -- poses -----------------------------------------------------------------------------
    def _inertial(self, built: BuiltEntity, link: int) -> Pose:
        return built.inertial[link]

    def _com_position(self, body: int, link: int) -> Vector:
        if link < 0:
            return pb.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        return pb.getLinkState(body, link, computeForwardKinematics=1,
                               physicsClientId=self.client)[0]

    def link_world_pose(self, entity: str, link: str) -> Pose:
        """World pose of the model's frame of ``link`` (root: ``entity.links[0].name``)."""
        built = self._built(entity)
        return self._link_pose(built, self.link_index(entity, link))

    def _link_pose(self, built: BuiltEntity, index: int) -> Pose:
        if index < 0:
            position, orientation = pb.getBasePositionAndOrientation(
                built.body, physicsClientId=self.client)
            self._guard.require_finite(built.name, (*position, *orientation))
            return Pose(position, orientation) * built.inertial_inverse[-1]
        # the centre-of-mass frame comes in double precision, the link frame [4:6] in float
        state = pb.getLinkState(*built.locate(index), computeForwardKinematics=1,
                                physicsClientId=self.client)
        self._guard.require_finite(built.name, (*state[0], *state[1]))
        return Pose(state[0], state[1]) * built.inertial_inverse[index]

    def link_poses(self, entity: str) -> dict[str, Pose]:
        """World poses of all links of ``entity`` (one batched PyBullet query, for TF)."""
        built = self._built(entity)
        poses = {built.link_names[-1]: self._link_pose(built, -1)}
        indices = [i for i in built.link_names if i >= 0]
        for body in built.bodies:
            mine = [i for i in indices if built.locate(i)[0] == body]
            if not mine:
                continue
            states = pb.getLinkStates(body, [built.locate(i)[1] for i in mine],
                                      computeForwardKinematics=1, physicsClientId=self.client)
            for i, state in zip(mine, states):
                poses[built.link_names[i]] = Pose(state[0], state[1]) * built.inertial_inverse[i]
        return poses

    def get_pose(self, name: str) -> tuple[Vector, Quaternion]:
        """World pose of an entity's root (``"entity"``) or of a link (``"entity/link"``)."""
        built, index = self._resolve(name)
        pose = self._link_pose(built, index)
        return pose.position, pose.orientation

    def set_pose(self, name: str, xyz: Sequence[float], quat_xyzw: Sequence[float]) -> None:
        """Teleport an entity so that its root link frame is at ``xyz``/``quat_xyzw``."""
        built, index = self._resolve(name)
        if index != -1:
            raise SimulationError(f'{name!r}: only an entity root can be placed')
        pose = requested_pose(name, xyz, quat_xyzw)
        if built.kinematic_pose is not None:
            built.kinematic_pose = pose
        self._place_root(built, pose)
        self._world_moved()

    def _place_root(self, built: BuiltEntity, pose: Pose) -> None:
        inertial = pose * built.inertial[-1]
        pb.resetBasePositionAndOrientation(built.body, inertial.position, inertial.orientation,
                                           physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)

    # -- velocities ------------------------------------------------------------------------
    def link_world_velocity(self, entity: str, link: str) -> tuple[Vector, Vector]:
        """(linear velocity of the link frame's origin, angular velocity), world frame."""
        built = self._built(entity)
        return self._link_velocity(built, self.link_index(entity, link))

    def _link_velocity(self, built: BuiltEntity, index: int) -> tuple[Vector, Vector]:
        _, linear, angular = self._link_state(built, index)
        return linear, angular

    def link_world_state(self, entity: str, link: str) -> tuple[Pose, Vector, Vector]:
        """:meth:`link_world_pose` and :meth:`link_world_velocity` from one PyBullet query
        (an IMU reads both after every step; kept until the next step or teleport)."""
        cached = self._link_states.get((entity, link))
        if cached is not None:
            return cached
        state = self._link_state(self._built(entity), self.link_index(entity, link))
        self._link_states[(entity, link)] = state
        return state

    def _link_state(self, built: BuiltEntity, index: int) -> tuple[Pose, Vector, Vector]:
        """(pose of the link frame, linear velocity of its origin, angular velocity) now, world
        frame, from one PyBullet query."""
        if index < 0:
            com, orientation = pb.getBasePositionAndOrientation(built.body,
                                                                physicsClientId=self.client)
            self._guard.require_finite(built.name, (*com, *orientation))
            pose = Pose(com, orientation) * built.inertial_inverse[-1]
            linear, angular = pb.getBaseVelocity(built.body, physicsClientId=self.client)
        else:
            state = pb.getLinkState(*built.locate(index), computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=self.client)
            self._guard.require_finite(built.name, (*state[0], *state[1]))
            pose = Pose(state[0], state[1]) * built.inertial_inverse[index]
            com, linear, angular = state[0], state[6], state[7]
        offset = tuple(o - c for o, c in zip(pose.position, com))
        linear = tuple(v + w for v, w in zip(linear, cross(angular, offset)))
        return pose, linear, tuple(angular)

    def get_velocity(self, name: str) -> tuple[Vector, Vector]:
        """(linear, angular) world velocity of an entity root or ``"entity/link"``."""
        built, index = self._resolve(name)
        return self._link_velocity(built, index)

    def set_velocity(self, name: str, linear: Sequence[float], angular: Sequence[float]) -> None:
        """Set an entity's root velocity (linear of the root frame's origin, world frame)."""
        built, index = self._resolve(name)
        if index != -1:
            raise SimulationError(f'{name!r}: only an entity root velocity can be set')
        linear_v, angular_v = requested_velocity(name, linear, angular)
        if built.kinematic_pose is not None:
            built.kinematic_velocity = (linear_v, angular_v)
        com = pb.getBasePositionAndOrientation(built.body, physicsClientId=self.client)[0]
        origin = self._link_pose(built, -1).position
        offset = tuple(c - o for c, o in zip(com, origin))
        com_velocity = tuple(v + w for v, w in zip(linear_v, cross(angular_v, offset)))
        pb.resetBaseVelocity(built.body, com_velocity, angular_v, physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)
        self._world_moved()

    # -- joints ----------------------------------------------------------------------------
    def joint_states(self, entity: str) -> dict[str, tuple[float, float, float]]:
        """``{joint: (position, velocity, effort)}`` of the movable joints, in scene order.

        Effort is the commanded torque/force for effort-commanded joints, else the torque/force
        PyBullet's motor applied in the last step.
        """
        built = self._built(entity)
        if not built.joint_indices:
            return {}
        positions, velocities, efforts = self.joint_state_arrays(entity)
        return {joint.name: (float(p), float(v), float(e)) for joint, p, v, e in zip(
            built.movable_joints, positions, velocities, efforts)}

    def joint_state_arrays(self, entity: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`joint_states` as three arrays (position, velocity, effort) in scene order:
        one call per step for the ROS node's joint states and TF, without a dict per joint."""
        built = self._built(entity)
        if not built.joint_indices:
            empty = np.zeros(0)
            return empty, empty, empty
        positions, velocities, applied = self._joint_sample(built)
        return positions, velocities, built.motors.efforts(applied)

    def _joint_sample(self, built: BuiltEntity) -> JointSample:
        """(positions, velocities, applied efforts) of ``built``'s movable joints as they are
        now: its part of the world's joint states (read-only views), which the readers after a
        step and the motors of the next step share (kept until the next step or edit)."""
        cached = self._joint_samples.get(built.name)
        if cached is not None:
            return cached
        world = self._motors()
        joints = world.slices.get(built.name)
        if joints is None:  # no movable joints
            return _NO_JOINTS, _NO_JOINTS, _NO_JOINTS
        positions, velocities, applied = self._world_joint_sample(world)
        sample = positions[joints], velocities[joints], applied[joints]
        self._joint_samples[built.name] = sample
        return sample

    def _world_joint_sample(self, world: MotorWorld) -> JointSample:
        """The joint states of every entity, read from PyBullet once between two steps
        (emptied by every step and edit)."""
        if self._world_sample is None:
            self._world_sample = world.read()
        return self._world_sample

    def _motors(self) -> MotorWorld:
        """The motors of all entities as one (built anew after entities came or went)."""
        if self._motor_world is None:
            self._motor_world = MotorWorld(self.client, self._entities.values(),
                                           self.scene.step_length / substeps_for(self.scene))
        return self._motor_world

    def command(self, entity: str, joint: str, position: float | None = None,
                velocity: float | None = None, effort: float | None = None) -> None:
        """Command one joint (see :mod:`scene_sim_ros.sim.motors`); raises CommandError."""
        self._built(entity, CommandError).motors.command(joint, position, velocity, effort)

    def set_joint_position(self, entity: str, joint: str, position: float) -> None:
        """Teleport a movable joint to ``position`` at rest; a position-controlled joint then
        holds it there (its set-point moves along)."""
        built = self._built(entity)
        motors = built.motors
        if joint not in motors.index:
            raise SimulationError(f'entity {entity!r} has no movable joint {joint!r}')
        position = float(position)
        if not math.isfinite(position):
            raise SimulationError(f'joint {joint!r}: position must be finite')
        k = motors.index[joint]
        pb.resetJointState(*built.locate(built.joint_indices[k]), position, 0.0,
                           physicsClientId=self.client)
        if built.parts:
            place_parts(self.client, built)
        if motors.mode[k] == POSITION:
            motors.position_target[k] = min(max(position, motors.lower[k]), motors.upper[k])
        self._world_moved()

    # -- forces, contacts, mass --------------------------------------------------------------
    def apply_force(self, entity: str, link: str | None, force: Sequence[float],
                    torque: Sequence[float] = (0.0, 0.0, 0.0), duration: float = 0.0) -> None:
        """Apply ``force`` (N, at the link's centre of mass) and ``torque`` (N*m), both in the
        world frame, during each of the next ``max(1, round(duration / step_length))`` steps."""
        built = self._built(entity)
        index = -1 if link is None else self.link_index(entity, link)
        force_v, torque_v, steps = requested_push(force, torque, duration, self.step_length)
        body, local = built.locate(index)
        self._pushes.append(Push(body, local, force_v, torque_v, steps))

    def contacts(self, entity: str) -> list[ContactPoint]:
        """Contact points of ``entity`` after the last step."""
        built = self._built(entity)
        points = []
        for body in built.bodies:
            for c in pb.getContactPoints(bodyA=body, physicsClientId=self.client):
                other = self._by_body.get(c[2])
                points.append(ContactPoint(
                    link=built.model_link_name(built.global_index(body, c[3])) or '',
                    other_entity=other.name if other else '',
                    other_link=(other.model_link_name(other.global_index(c[2], c[4])) or '')
                    if other else '',
                    position=c[5], normal=tuple(c[7]),
                    normal_force=c[9], distance=c[8]))
        return points

    def center_of_mass(self, entity: str) -> Vector:
        """World position of the centre of mass of ``entity`` (static bodies: of their links)."""
        built = self._built(entity)
        client = self.client
        masses, positions = [], []
        for index in (*built.link_names, *built.helper_parent):
            body, local = built.locate(index)
            mass = pb.getDynamicsInfo(body, local, physicsClientId=client)[0]
            if index == -1 and built.fixed:
                mass = built.entity.root.inertial.mass
            masses.append(mass)
            positions.append(self._com_position(body, local))
        total = sum(masses)
        if total <= 0.0:
            return self._link_pose(built, -1).position
        return tuple(sum(m * p[k] for m, p in zip(masses, positions)) / total
                     for k in range(3))
