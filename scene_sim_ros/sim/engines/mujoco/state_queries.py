"""Reading and setting the state of a :class:`~.simulation.MujocoSimulation`'s entities: names,
poses, velocities, joints, forces, contacts and mass (a mixin). MuJoCo's body frames are the
model's link frames; velocities are world-frame, linear velocity of the link frame's origin
(``mj_objectVelocity``)."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from scene_sim_ros.errors import CommandError, SimulationError
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import vec3
from scene_sim_ros.sim.engines.mujoco.builder import wxyz
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.motors import POSITION
from scene_sim_ros.sim.requests import requested_pose, requested_push, requested_velocity
from scene_sim_ros.sim.simulator import ContactPoint, JointSample, Quaternion, Vector

if TYPE_CHECKING:
    from scene_sim_ros.scene import Scene
    from scene_sim_ros.sim.engines.mujoco.guard import MujocoGuard
    from scene_sim_ros.sim.engines.mujoco.world_motors import MujocoMotors
    from scene_sim_ros.sim.sensors.rendering import Rendering


@dataclass
class Push:
    """A force and torque (world frame, at the link's centre of mass) for ``steps_left`` more
    steps."""

    entity: str
    index: int
    force: Vector
    torque: Vector
    steps_left: int


def xyzw(quaternion: Sequence[float]) -> Quaternion:
    w, x, y, z = (float(v) for v in quaternion)
    return (x, y, z, w)


class StateQueries:
    """Names, poses, velocities, joints, forces, contacts and mass."""

    scene: Scene
    step_length: float
    model: mujoco.MjModel
    data: mujoco.MjData
    rendering: Rendering
    _entities: dict[str, MjEntity]
    _by_number: dict[int, MjEntity]
    _motors: MujocoMotors
    _pushes: list[Push]
    _guard: MujocoGuard

    def _forward(self) -> None: ...  # MujocoSimulation's

    # -- names -----------------------------------------------------------------------------
    def entity_names(self) -> list[str]:
        return list(self._entities)

    def _built(self, entity: str, error: type[SimulationError] = SimulationError) -> MjEntity:
        try:
            return self._entities[entity]
        except KeyError:
            raise error(f'unknown entity {entity!r}; entities: '
                        + ', '.join(self._entities)) from None

    def _resolve(self, name: str) -> tuple[MjEntity, int]:
        """``"entity"`` or ``"entity/link"`` -> (entity, link index)."""
        if name in self._entities:
            return self._entities[name], -1
        entity, sep, link = name.rpartition('/')
        if not sep:
            self._built(name)
        return self._built(entity), self.link_index(entity, link)

    def link_index(self, entity: str, link: str) -> int:
        built = self._built(entity)
        try:
            return built.link_index[link]
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no link {link!r}; links: '
                                  + ', '.join(built.link_index)) from None

    # -- poses -----------------------------------------------------------------------------
    def _pose(self, body: int) -> Pose:
        x, y, z = self.data.xpos[body].tolist()
        w, qx, qy, qz = self.data.xquat[body].tolist()
        if not math.isfinite(x + y + z + w + qx + qy + qz):
            self._guard.require_finite_body(body)
        return Pose((x, y, z), (qx, qy, qz, w))

    def link_world_pose(self, entity: str, link: str) -> Pose:
        built = self._built(entity)
        return self._pose(built.body_of(self.link_index(entity, link)))

    def link_poses(self, entity: str) -> dict[str, Pose]:
        built = self._built(entity)
        positions = self.data.xpos[built.bodies]
        orientations = self.data.xquat[built.bodies]
        if not np.isfinite(positions).all() or not np.isfinite(orientations).all():
            self._guard.require_finite_body(int(built.bodies[0]))
        return {built.link_names[i - 1]: Pose(tuple(p), xyzw(q))
                for i, (p, q) in enumerate(zip(positions.tolist(), orientations.tolist()))}

    def get_pose(self, name: str) -> tuple[Vector, Quaternion]:
        built, index = self._resolve(name)
        pose = self._pose(built.body_of(index))
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
        self._forward()

    def _place_root(self, built: MjEntity, pose: Pose) -> None:
        if built.free_qpos >= 0:
            address = built.free_qpos
            self.data.qpos[address:address + 3] = pose.position
            self.data.qpos[address + 3:address + 7] = wxyz(pose.orientation)
        elif built.mocap >= 0:
            self.data.mocap_pos[built.mocap] = pose.position
            self.data.mocap_quat[built.mocap] = wxyz(pose.orientation)
        else:  # welded to the world: its body's place in the model
            root = built.body_of(-1)
            self.model.body_pos[root] = pose.position
            self.model.body_quat[root] = wxyz(pose.orientation)

    # -- velocities ------------------------------------------------------------------------
    def _velocity(self, body: int) -> tuple[Vector, Vector]:
        """(linear velocity of the body frame's origin, angular velocity), world frame, from
        MuJoCo's ``cvel`` (taken about the centre of mass of the body's tree) in Python: a MuJoCo
        call (``mj_objectVelocity``) would release the GIL and wait to get it back, which on a
        node's busy physics thread cost 15 us a call."""
        data = self.data
        wx, wy, wz, vx, vy, vz = data.cvel[body].tolist()
        px, py, pz = data.xpos[body].tolist()
        cx, cy, cz = data.subtree_com[self.model.body_rootid[body]].tolist()
        rx, ry, rz = px - cx, py - cy, pz - cz
        return (vx + wy * rz - wz * ry, vy + wz * rx - wx * rz, vz + wx * ry - wy * rx), \
            (wx, wy, wz)

    def link_world_velocity(self, entity: str, link: str) -> tuple[Vector, Vector]:
        built = self._built(entity)
        return self._velocity(built.body_of(self.link_index(entity, link)))

    def link_world_state(self, entity: str, link: str) -> tuple[Pose, Vector, Vector]:
        built = self._entities.get(entity)
        index = built.link_index.get(link) if built is not None else None
        body = built.body_of(index) if built is not None and index is not None else \
            self._built(entity).body_of(self.link_index(entity, link))
        linear, angular = self._velocity(body)
        return self._pose(body), linear, angular

    def get_velocity(self, name: str) -> tuple[Vector, Vector]:
        built, index = self._resolve(name)
        return self._velocity(built.body_of(index))

    def set_velocity(self, name: str, linear: Sequence[float], angular: Sequence[float]) -> None:
        """Set an entity's root velocity (linear of the root frame's origin, world frame)."""
        built, index = self._resolve(name)
        if index != -1:
            raise SimulationError(f'{name!r}: only an entity root velocity can be set')
        linear_v, angular_v = requested_velocity(name, linear, angular)
        if built.kinematic_pose is not None:
            built.kinematic_velocity = (linear_v, angular_v)
        self._set_root_velocity(built, linear_v, angular_v)
        self._forward()

    def _set_root_velocity(self, built: MjEntity, linear: Sequence[float],
                           angular: Sequence[float]) -> None:
        """A free joint's velocity is the root frame origin's linear velocity (world) and the
        angular velocity in the root frame."""
        if built.free_dof < 0:
            return
        address = built.free_dof
        rotation = np.zeros(9)
        quaternion = self.data.qpos[built.free_qpos + 3:built.free_qpos + 7]
        mujoco.mju_quat2Mat(rotation, quaternion)
        self.data.qvel[address:address + 3] = linear
        self.data.qvel[address + 3:address + 6] = rotation.reshape(3, 3).T @ np.asarray(angular)

    # -- joints ----------------------------------------------------------------------------
    def joint_states(self, entity: str) -> dict[str, tuple[float, float, float]]:
        built = self._built(entity)
        positions, velocities, efforts = self.joint_state_arrays(entity)
        return {joint.name: (float(p), float(v), float(e)) for joint, p, v, e in zip(
            built.movable_joints, positions, velocities, efforts)}

    def joint_state_arrays(self, entity: str) -> JointSample:
        built = self._built(entity)
        return (self.data.qpos[built.qpos], self.data.qvel[built.dofs],
                self._motors.efforts(entity).copy())

    def command(self, entity: str, joint: str, position: float | None = None,
                velocity: float | None = None, effort: float | None = None) -> None:
        self._built(entity, CommandError).motors.command(joint, position, velocity, effort)
        self._motors.dirty = True

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
        self.data.qpos[built.qpos[k]] = position
        self.data.qvel[built.dofs[k]] = 0.0
        if motors.mode[k] == POSITION:
            motors.position_target[k] = min(max(position, motors.lower[k]), motors.upper[k])
        self._motors.dirty = True
        self._forward()

    # -- forces, contacts, mass --------------------------------------------------------------
    def apply_force(self, entity: str, link: str | None, force: Sequence[float],
                    torque: Sequence[float] = (0.0, 0.0, 0.0), duration: float = 0.0) -> None:
        self._built(entity)
        index = -1 if link is None else self.link_index(entity, link)
        force_v, torque_v, steps = requested_push(force, torque, duration, self.step_length)
        self._pushes.append(Push(entity, index, force_v, torque_v, steps))

    def contacts(self, entity: str) -> list[ContactPoint]:
        """Contact points of ``entity`` in the current state, with the normal force MuJoCo's
        solver gives each under the last step's applied forces: solved on a copy of the data
        (``mj_forward``), since after ``mj_step1`` the solver's forces belong to the previous
        state's contacts (a supervisor's query, not a per-step read)."""
        built = self._built(entity)
        mine = set(built.bodies.tolist())
        model, data = self.model, copy.copy(self.data)
        mujoco.mj_forward(model, data)
        points = []
        wrench = np.zeros(6)
        for i in range(data.ncon):
            contact = data.contact[i]
            body1 = int(model.geom_bodyid[contact.geom1])
            body2 = int(model.geom_bodyid[contact.geom2])
            if body1 not in mine and body2 not in mine:
                continue
            this, other, sign = (body1, body2, -1.0) if body1 in mine else (body2, body1, 1.0)
            force = 0.0
            if contact.efc_address >= 0 and contact.efc_address < data.nefc:
                mujoco.mj_contactForce(model, data, i, wrench)
                force = float(wrench[0])
            normal = contact.frame[:3] * sign
            other_built = self._by_number.get(int(self._body_number[other]))
            points.append(ContactPoint(
                link=built.link_names.get(int(self._body_link[this]), ''),
                other_entity=other_built.name if other_built else '',
                other_link=other_built.link_names.get(int(self._body_link[other]), '')
                if other_built else '',
                position=vec3(contact.pos.tolist()), normal=vec3(normal.tolist()),
                normal_force=force, distance=float(contact.dist)))
        return points

    _body_number: np.ndarray
    _body_link: np.ndarray

    def center_of_mass(self, entity: str) -> Vector:
        built = self._built(entity)
        bodies = built.bodies
        masses = self.model.body_mass[bodies]
        total = float(masses.sum())
        if total <= 0.0:
            return vec3(self.data.xpos[bodies[0]].tolist())
        return vec3((masses @ self.data.xipos[bodies] / total).tolist())
