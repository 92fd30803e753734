"""The motors of every entity of a MuJoCo world as one set of arrays: one gather of joint
positions and velocities, one evaluation of SimRobot Core3's law for every servo
(:class:`~scene_sim_ros.sim.explicit_servos.ExplicitServos`), one write of generalised forces.

Commands still go to each entity's :class:`~scene_sim_ros.sim.motors.MotorBank` (the commands'
checks and clamps are engine-neutral); the banks are joined into one
:class:`~scene_sim_ros.sim.motors.WorldMotors` (they hold views of its arrays), and
:meth:`MujocoMotors.sync` only decides, after commands, which law holds each joint. Laws other
than Core3's (Core2's PID servo, PT2, velocity motors: a target velocity reached with at most
``max_force``, as ODE's and PyBullet's velocity motors) come from one ``output`` of the joined
banks and are realised as rows of
MuJoCo's constraint solver (:mod:`.velocity_motors`), solved with the contacts; a passive
joint's friction is such a row with target 0, as in the PyBullet engine.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from scene_sim_ros.scene import Joint
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.engines.mujoco.velocity_motors import MotorRows
from scene_sim_ros.sim.explicit_servos import ExplicitServos
from scene_sim_ros.sim.motors import EFFORT, PASSIVE, WorldMotors


class MujocoMotors:
    """Motor state of all movable joints of ``entities`` (in their order, then scene order)."""

    def __init__(self, entities: Sequence[MjEntity], step_length: float, model: mujoco.MjModel):
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
        self.joined = WorldMotors([b.motors for b in self.entities], step_length)
        self.servos = ExplicitServos(joints, step_length)
        self.applied = np.zeros(start)
        self.qpos = np.concatenate([b.qpos for b in self.entities]) if start else \
            np.zeros(0, dtype=np.int64)
        self.dofs = np.concatenate([b.dofs for b in self.entities]) if start else \
            np.zeros(0, dtype=np.int64)
        self.rows = MotorRows(model, self.dofs)
        self.law_rows = np.zeros(0, dtype=np.int64)
        self._new_rows = False
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
        """Choose, after commands, the law of each joint: Core3's (a servo in its mode), a
        commanded effort, or a solver row (a motor's or a friction's)."""
        self.dirty = False
        joined = self.joined
        rows = self.servos.rows
        self.servo_active = joined.mode[rows] == joined.torque_mode[rows]
        self.effort = joined.mode == EFFORT
        law = ((joined.mode != PASSIVE) | (joined.friction > 0.0)) & ~self.effort
        law[rows[self.servo_active]] = False
        self.law_rows = np.flatnonzero(law)
        self._new_rows = self.rows.select(self.dofs[self.law_rows])

    def torques(self, model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
        """The generalised force of every joint for the coming step (Core3's law, commanded
        efforts; 0 where a solver row holds the law), from the state after ``mj_step1``; aims
        the rows. A new choice of rows runs ``mj_step1`` again, which makes them."""
        if self.dirty:
            self.sync()
        if self._new_rows:
            mujoco.mj_step1(model, data)
            self._new_rows = False
        tau = np.zeros(self.count)
        if not self.count:
            return tau
        positions, velocities = data.qpos[self.qpos], data.qvel[self.dofs]
        servos, joined = self.servos, self.joined
        if len(servos):
            servo_tau = servos.torques(joined.position_target, joined.velocity_target, positions,
                                       velocities)
            active = self.servo_active
            tau[servos.rows[active]] = servo_tau[active]
        tau[self.effort] = joined.effort_target[self.effort]
        if len(self.law_rows):
            self._aim_rows(data, positions, velocities)
        self.applied = tau
        return tau

    def _aim_rows(self, data: mujoco.MjData, positions: np.ndarray,
                  velocities: np.ndarray) -> None:
        """The laws' velocity targets and force bounds this step into the rows (one
        evaluation of every bank's laws)."""
        out = self.joined.output(positions, velocities)
        k = self.law_rows
        self.rows.aim(data, self.dofs[k], out.velocities[k], out.forces[k], self.step_length)

    def after_solve(self, data: mujoco.MjData) -> None:
        """The rows' forces as the efforts their joints applied (after ``mj_step2``)."""
        if len(self.law_rows):
            self.applied[self.law_rows] = self.rows.forces(data)

    def efforts(self, name: str) -> np.ndarray:
        """The efforts the entity's joints applied in the last step; a commanded effort as
        commanded (also before the first step after the command), as the PyBullet engine
        reports it."""
        span = self.slices[name]
        out = self.applied[span].copy()
        commanded = self.joined.mode[span] == EFFORT
        out[commanded] = self.joined.effort_target[span][commanded]
        return out

