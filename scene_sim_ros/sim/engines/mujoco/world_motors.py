"""The motors of every entity of a MuJoCo world as one set of arrays: one gather of joint
positions and velocities, one evaluation of SimRobot Core3's law for every servo
(:class:`~scene_sim_ros.sim.explicit_servos.ExplicitServos`), one write of generalised forces.

Commands still go to each entity's :class:`~scene_sim_ros.sim.motors.MotorBank` (the commands'
checks and clamps are engine-neutral); :meth:`WorldMotors.sync` copies what they hold into the
world arrays once after commands, not every step. Laws other than Core3's (Core2's PID servo,
PT2, velocity motors: a target velocity reached with at most ``max_force``, as ODE's and
PyBullet's velocity motors) come from the bank's ``output`` and are realised as the torque that
reaches the target velocity in one step, from the joint's inertia at the reference pose
(``dof_invweight0``) and its bias force (gravity, Coriolis), clamped to ``max_force``. A passive
joint's friction is MuJoCo's friction loss (the builder's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scene_sim_ros.scene import Joint
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.explicit_servos import ExplicitServos
from scene_sim_ros.sim.motors import EFFORT, PASSIVE


class WorldMotors:
    """Motor state of all movable joints of ``entities`` (in their order, then scene order)."""

    def __init__(self, entities: Sequence[MjEntity], step_length: float):
        self.entities = list(entities)
        self.step_length = step_length
        self.slices: dict[str, slice] = {}
        start = 0
        joints: list[Joint] = []
        for built in self.entities:
            n = len(built.movable_joints)
            self.slices[built.name] = slice(start, start + n)
            joints.extend(built.movable_joints)
            start += n
        self.count = start
        self.servos = ExplicitServos(joints, step_length)
        self.applied = np.zeros(start)
        self.qpos = np.concatenate([b.qpos for b in self.entities]) if start else \
            np.zeros(0, dtype=np.int64)
        self.dofs = np.concatenate([b.dofs for b in self.entities]) if start else \
            np.zeros(0, dtype=np.int64)
        self.dirty = True

    def hold_initial(self, built: MjEntity, positions: np.ndarray) -> None:
        """``built``'s motors as after loading, its joints at ``positions`` (all joints of the
        world): the bank reset, Core3's ring at those positions. Core3's initial set-point is
        the joint's initial position, not clamped into its range (SimRobotCore3 Hinge.cpp; only
        commands are clamped)."""
        bank = built.motors
        bank.reset()
        rows = np.flatnonzero(bank.is_torque)
        bank.position_target[rows] = [bank.joints[k].initial_position for k in rows]
        span = self.slices[built.name]
        mine = (self.servos.rows >= span.start) & (self.servos.rows < span.stop)
        self.servos.reset(positions, mine)
        self.applied[span] = 0.0
        self.dirty = True

    def sync(self) -> None:
        """Copy the banks' modes and targets into the world arrays (after commands)."""
        banks = [b.motors for b in self.entities]
        if not self.count:
            self.dirty = False
            self._python_laws: list[MjEntity] = []
            return
        self.mode = np.concatenate([b.mode for b in banks])
        self.position_target = np.concatenate([b.position_target for b in banks])
        self.velocity_target = np.concatenate([b.velocity_target for b in banks])
        self.effort_target = np.concatenate([b.effort_target for b in banks])
        torque_mode = np.concatenate([b.torque_mode for b in banks])
        rows = self.servos.rows
        self.servo_active = self.mode[rows] == torque_mode[rows]
        self.effort = self.mode == EFFORT
        law = (self.mode != PASSIVE) & ~self.effort
        law[rows[self.servo_active]] = False
        self._python_laws = [b for b in self.entities if law[self.slices[b.name]].any()]
        self.dirty = False

    def torques(self, positions: np.ndarray, velocities: np.ndarray, bias: np.ndarray,
                inverse_inertia: np.ndarray) -> np.ndarray:
        """The generalised force of every joint for the coming step (arguments over all
        joints: positions, velocities, MuJoCo's bias force and ``dof_invweight0``)."""
        if self.dirty:
            self.sync()
        tau = np.zeros(self.count)
        if not self.count:
            return tau
        servos = self.servos
        if len(servos):
            servo_tau = servos.torques(self.position_target, self.velocity_target, positions,
                                       velocities)
            active = self.servo_active
            tau[servos.rows[active]] = servo_tau[active]
        tau[self.effort] = self.effort_target[self.effort]
        for built in self._python_laws:
            self._velocity_motor_law(built, tau, positions, velocities, bias, inverse_inertia)
        self.applied = tau
        return tau

    def _velocity_motor_law(self, built: MjEntity, tau: np.ndarray, positions: np.ndarray,
                            velocities: np.ndarray, bias: np.ndarray,
                            inverse_inertia: np.ndarray) -> None:
        span = self.slices[built.name]
        bank = built.motors
        out = bank.output(positions[span], velocities[span])
        mode = bank.mode
        rows = (mode != PASSIVE) & (mode != EFFORT) & (out.forces > 0.0)
        rows[bank.is_torque & (mode == bank.torque_mode)] = False
        if not rows.any():
            return
        h = self.step_length
        inertia = 1.0 / np.maximum(inverse_inertia[span][rows], 1e-12)
        wanted = inertia * (out.velocities[rows] - velocities[span][rows]) / h + bias[span][rows]
        limit = out.forces[rows]
        local = tau[span]
        local[rows] = np.clip(wanted, -limit, limit)
        tau[span] = local

    def efforts(self, name: str) -> np.ndarray:
        """The efforts the entity's joints applied in the last step."""
        return self.applied[self.slices[name]]
