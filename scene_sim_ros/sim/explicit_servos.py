"""SimRobot Core3's servo law evaluated as ``ServoMotor.cpp`` evaluates it: explicitly, once per
step, for every servo of the world in one array expression.

Reference: ``Src/SimRobotCore3/Simulation/Motors/ServoMotor.cpp`` (``act``) and
``VelocityMotor.cpp`` of bhuman/SimRobot (HEAD 2bf4e57)::

    qdot_f = f * qdot + (1 - f) * qdot_f_prev             (f = velocityLowPassFactor)
    tau    = clamp(p * (setpoint - q) - d * qdot_f, -maxForce, maxForce)

the set-point being the one commanded ``delay`` seconds earlier (a ring of ``1 + ceil(delay /
stepLength)`` set-points, all the joint's position at the first step); a VelocityMotor applies
``clamp(0.2 * (v_set - qdot), +-maxForce)``. The joint's armature and damping (0.01 each) belong
to the engine (MuJoCo integrates them), not to this law. Unlike
:class:`~scene_sim_ros.sim.torque_servos.TorqueServos` (the PyBullet engine's backward-Euler
form, stable at every gain), this is the law as SimRobot computes it, instabilities included:
the NAO's head servos chatter at maxForce at 12 ms, as in SimRobot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from scene_sim_ros.scene import Joint, ServoMotor, VelocityMotor
from scene_sim_ros.sim.torque_servos import VELOCITY_GAIN, is_torque_controlled


class ExplicitServos:
    """Core3's law for the torque-controlled joints among ``joints`` (the world's movable joints
    in one order; :attr:`rows` are the positions of the servoed ones)."""

    def __init__(self, joints: Sequence[Joint], step_length: float):
        rows, p, d, force, delay, filt, velocity = [], [], [], [], [], [], []
        for k, joint in enumerate(joints):
            if not is_torque_controlled(joint):
                continue
            motor = joint.motor
            assert isinstance(motor, (ServoMotor, VelocityMotor))  # is_torque_controlled
            rows.append(k)
            force.append(motor.max_force)
            if isinstance(motor, ServoMotor):
                p.append(motor.p)
                d.append(motor.d)
                delay.append(max(0, math.ceil(motor.delay / step_length - 1e-9)))
                filt.append(min(max(motor.velocity_filter, 0.0), 1.0))
            else:
                p.append(0.0)
                d.append(VELOCITY_GAIN)
                delay.append(0)
                filt.append(1.0)
            velocity.append(not isinstance(motor, ServoMotor))
        self.rows = np.array(rows, dtype=np.int64)
        self.p = np.array(p, dtype=float)
        self.d = np.array(d, dtype=float)
        self.max_force = np.array(force, dtype=float)
        self.delay = np.array(delay, dtype=np.int64)
        self.filter = np.array(filt, dtype=float)
        self.is_velocity_motor = np.array(velocity, dtype=bool)
        self._columns = np.arange(len(rows))
        self._delayed = bool(self.delay.any())
        self._filtered = bool(np.any(self.filter < 1.0))
        self._velocity_motors = bool(self.is_velocity_motor.any())
        self.reset(np.zeros(len(joints)))

    def __len__(self) -> int:
        return len(self.rows)

    def reset(self, positions: np.ndarray, columns: np.ndarray | None = None) -> None:
        """Every set-point of the ring at the joints' ``positions`` (of all joints), as
        ``act()`` does on its first call; no filtered velocity. ``columns`` (a mask over the
        rows) resets only those."""
        start = np.asarray(positions, dtype=float)[self.rows]
        if columns is None:
            depth = int(self.delay.max()) + 1 if len(self.rows) else 1
            self.history = np.tile(start, (depth, 1))  # history[0]: the newest set-point
            self.filtered_velocity = np.zeros(len(self.rows))
            return
        self.history[:, columns] = start[columns]
        self.filtered_velocity[columns] = 0.0

    def torques(self, setpoints: np.ndarray, velocity_targets: np.ndarray,
                positions: np.ndarray, velocities: np.ndarray) -> np.ndarray:
        """The torque of every row for the coming step (arguments over all joints); advances
        the ring and the velocity filter (call once per step)."""
        rows = self.rows
        q = positions[rows]
        v = velocities[rows]
        if self._delayed:
            self.history = np.roll(self.history, 1, axis=0)
            self.history[0] = setpoints[rows]
            setpoint = self.history[self.delay, self._columns]
        else:
            setpoint = setpoints[rows]
        if self._filtered:
            v = self.filter * v + (1.0 - self.filter) * self.filtered_velocity
            self.filtered_velocity = v
        tau = self.p * (setpoint - q) - self.d * v
        if self._velocity_motors:
            motor = self.is_velocity_motor
            tau[motor] = self.d[motor] * (velocity_targets[rows][motor] - v[motor])
        return np.clip(tau, -self.max_force, self.max_force)
