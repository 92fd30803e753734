"""Joint motor models with SimRobot's semantics, computed per entity with numpy.

Reference: ``Src/SimRobotCore2/Simulation/Motors/*.cpp`` of bhuman/SimRobot @ 7348c36 (ODE). ODE
hinge motors take a target velocity (``dParamVel``) reached with at most ``dParamFMax``; PyBullet's
``VELOCITY_CONTROL`` with ``force`` is the same thing, so every model below ends in one velocity
target and force per joint, sent for all joints of an entity in one
``setJointMotorControlArray`` call.

- **ServoMotor** (position): the set-point is clamped to the joint limits when commanded; each
  step it is moved at most ``max_velocity * step_length`` away from the current position (slew
  limit), and a PID controller on ``set-point - position`` gives the velocity target (``errorSum
  += i * e * dt``; ``v = p * e + errorSum + d * (e - lastError) / dt``), realised with at most
  ``max_force``. As in SimRobot, a servo joint has no joint stops: the servo keeps it in range.
- **VelocityMotor**: the commanded velocity clamped to ``+-max_velocity``, realised with at most
  ``max_force``.
- **PT2Motor** (position): the second-order lag ``T^2 y'' + 2 D T y' + y = K u`` integrated
  with SimRobot's scheme (``x += dt / T * (K u - y - 2 D x)``, velocity ``x / T`` limited to ``V``,
  force ``F``), using the set-point of two steps earlier as SimRobot does. SimRobot limits the
  velocity on the positive side only; we limit both sides (the one-sided limit looks like a slip).
- **Passive joints** (no motor): no motor holds them; a joint ``friction`` becomes a zero-velocity
  motor of that force (Bullet's usual way to model dry joint friction).

Every joint accepts commands of any kind (what ROS commanders send):

- ``position``: the joint's position model (servo or PT2; a velocity motor or a passive joint with
  ``max_effort`` uses the servo law with the default gains of :class:`~scene_sim_ros.scene.ServoMotor`);
- ``velocity``: a velocity motor with the motor's velocity and force limits;
- ``effort``: a force/torque applied directly (``TORQUE_CONTROL``), clamped to the motor's force.

A passive joint without ``max_effort`` takes effort commands only.

Motors with ``control='torque'`` (SimRobotCore3's laws) are computed by
:mod:`scene_sim_ros.sim.torque_servos` and sent as ``TORQUE_CONTROL`` with the joint's velocity
motor off: a ServoMotor while position-commanded, a VelocityMotor while velocity-commanded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scene_sim_ros.errors import CommandError
from scene_sim_ros.scene import Joint, PT2Motor, ServoMotor, VelocityMotor
from scene_sim_ros.sim.torque_servos import TorqueServos

PASSIVE, POSITION, VELOCITY, EFFORT = 0, 1, 2, 3
MODE_NAMES = {PASSIVE: 'passive', POSITION: 'position', VELOCITY: 'velocity', EFFORT: 'effort'}
DEFAULT_SERVO = ServoMotor(max_velocity=math.inf, max_force=0.0)


@dataclass
class MotorOutput:
    """What one step sends to PyBullet for one entity's movable joints."""

    velocities: np.ndarray  # VELOCITY_CONTROL targets, all joints
    forces: np.ndarray  # VELOCITY_CONTROL force limits, all joints (0 = no motor)
    effort_joints: np.ndarray  # positions (into the joint list) of joints under TORQUE_CONTROL
    efforts: np.ndarray  # their torques / forces


class MotorBank:
    """Motor state of the movable joints of one entity (in the entity's joint order)."""

    def __init__(self, joints: Sequence[Joint], step_length: float):
        self.joints = tuple(joints)
        self.names = [j.name for j in self.joints]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.step_length = step_length
        n = len(self.joints)
        self.is_pt2 = np.array([isinstance(j.motor, PT2Motor) for j in self.joints], dtype=bool)
        self.p = np.zeros(n)
        self.i = np.zeros(n)
        self.d = np.zeros(n)
        self.max_velocity = np.full(n, math.inf)
        self.max_force = np.zeros(n)
        self.pt2 = np.zeros((n, 4))  # T, D, K, V
        self.lower = np.array([j.limits[0] if j.limits else -math.inf for j in self.joints])
        self.upper = np.array([j.limits[1] if j.limits else math.inf for j in self.joints])
        self.friction = np.array([j.friction for j in self.joints], dtype=float)
        self.commandable = np.ones(n, dtype=bool)
        for k, joint in enumerate(self.joints):
            self._set_parameters(k, joint)
        self.torque = TorqueServos(self.joints, step_length)
        self.is_torque = np.zeros(n, dtype=bool)
        self.is_torque[self.torque.rows] = True
        self.torque_output = np.zeros(n)  # the last torques of torque-law motors
        self.torque_mode = np.full(n, -1)  # the mode in which a torque-law row is active
        for k in self.torque.rows:
            self.torque_mode[k] = VELOCITY if isinstance(self.joints[k].motor,
                                                         VelocityMotor) else POSITION
        self.reset()

    def _set_parameters(self, k: int, joint: Joint) -> None:
        motor = joint.motor
        servo = motor if isinstance(motor, ServoMotor) else DEFAULT_SERVO
        self.p[k], self.i[k], self.d[k] = servo.p, servo.i, servo.d
        if isinstance(motor, (ServoMotor, VelocityMotor)):
            self.max_velocity[k], self.max_force[k] = motor.max_velocity, motor.max_force
        elif isinstance(motor, PT2Motor):
            self.max_velocity[k], self.max_force[k] = motor.v, motor.f
            self.pt2[k] = (motor.t, motor.d, motor.k, motor.v)
        elif joint.max_effort is not None:
            self.max_force[k] = joint.max_effort
            if joint.max_velocity is not None:
                self.max_velocity[k] = joint.max_velocity
        else:
            self.commandable[k] = False
        if motor is not None and joint.max_effort is not None:
            self.max_force[k] = min(self.max_force[k], joint.max_effort)
        if motor is not None and joint.max_velocity is not None:
            self.max_velocity[k] = min(self.max_velocity[k], joint.max_velocity)

    def reset(self) -> None:
        """The state right after loading: servos and PT2 motors hold the initial positions,
        velocity motors stand still, passive joints are free."""
        n = len(self.joints)
        self.mode = np.full(n, PASSIVE)
        self.position_target = np.clip([j.initial_position for j in self.joints],
                                       self.lower, self.upper) if n else np.zeros(0)
        self.velocity_target = np.zeros(n)
        self.effort_target = np.zeros(n)
        self.error_sum = np.zeros(n)
        self.last_error = np.zeros(n)
        self.pt2_state = np.zeros(n)
        self.pt2_history = np.zeros((n, 2))
        self.pt2_count = np.zeros(n, dtype=int)
        self.pt2_velocity = np.zeros(n)
        for k, joint in enumerate(self.joints):
            if isinstance(joint.motor, (ServoMotor, PT2Motor)):
                self.mode[k] = POSITION
            elif isinstance(joint.motor, VelocityMotor):
                self.mode[k] = VELOCITY
        if hasattr(self, 'torque'):
            self.torque.reset(self.position_target)

    def efforts(self, applied: np.ndarray) -> np.ndarray:
        """The effort each joint reports: the commanded effort, a torque-law motor's torque, else
        ``applied`` (what PyBullet's velocity motor applied; one per joint)."""
        out = np.array(applied, dtype=np.float64)
        torque_rows = self.is_torque & (self.mode == self.torque_mode)
        out[torque_rows] = self.torque_output[torque_rows]
        effort_mode = self.mode == EFFORT
        out[effort_mode] = self.effort_target[effort_mode]
        return out

    @property
    def active(self) -> bool:
        """Whether any joint needs motor output every step."""
        return bool(np.any(self.mode != PASSIVE))

    # -- commands --------------------------------------------------------------------------
    def command(self, joint: str, position: float | None = None, velocity: float | None = None,
                effort: float | None = None) -> None:
        """Command one joint; ``position`` wins over ``velocity``, which wins over ``effort``.

        Values are clamped to the joint limits / the motor's velocity and force limits.
        """
        if joint not in self.index:
            raise CommandError(f'unknown joint {joint!r}; movable joints: '
                               + ', '.join(self.names))
        given = {k: v for k, v in (('position', position), ('velocity', velocity),
                                   ('effort', effort)) if v is not None}
        if not given:
            raise CommandError(f'joint {joint!r}: no position, velocity or effort given')
        for kind, value in given.items():
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise CommandError(f'joint {joint!r}: {kind} {value!r} is not a number') from None
            if not math.isfinite(number):
                raise CommandError(f'joint {joint!r}: {kind} must be finite, got {number}')
            given[kind] = number
        k = self.index[joint]
        if 'effort' not in given or len(given) > 1:
            if not self.commandable[k]:
                raise CommandError(f'joint {joint!r} has no motor; it takes effort commands only')
        if 'position' in given:
            if self.mode[k] != POSITION:
                self.error_sum[k] = self.last_error[k] = 0.0
                self.pt2_state[k] = 0.0
                self.pt2_count[k] = 0
            self.mode[k] = POSITION
            self.position_target[k] = min(max(given['position'], self.lower[k]), self.upper[k])
        elif 'velocity' in given:
            self.mode[k] = VELOCITY
            limit = self.max_velocity[k]
            self.velocity_target[k] = min(max(given['velocity'], -limit), limit)
        else:
            self.mode[k] = EFFORT
            limit = self.max_force[k] if self.commandable[k] else math.inf
            self.effort_target[k] = min(max(given['effort'], -limit), limit)

    # -- one step --------------------------------------------------------------------------
    def output(self, positions: np.ndarray,
               joint_velocities: np.ndarray | None = None) -> MotorOutput:
        """Velocity targets, forces and efforts for the next step, given joint ``positions``
        (and ``joint_velocities``, needed by torque-law motors).

        Advances the controllers' internal state (call exactly once per physics step).
        """
        n = len(self.joints)
        velocities = np.zeros(n)
        forces = self.friction.copy()
        torque_rows = self.is_torque & (self.mode == self.torque_mode)
        position_mode = (self.mode == POSITION) & ~torque_rows
        servo = position_mode & ~self.is_pt2
        if servo.any():
            velocities[servo] = self._servo(servo, positions)
            forces[servo] = self.max_force[servo]
        pt2 = position_mode & self.is_pt2
        if pt2.any():
            velocities[pt2] = self._pt2(pt2, positions)
            forces[pt2] = self.max_force[pt2]
        velocity_mode = (self.mode == VELOCITY) & ~torque_rows
        velocities[velocity_mode] = self.velocity_target[velocity_mode]
        forces[velocity_mode] = self.max_force[velocity_mode]
        effort_mode = self.mode == EFFORT
        forces[effort_mode] = 0.0
        effort_joints = np.flatnonzero(effort_mode)
        efforts = self.effort_target[effort_joints]
        if len(self.torque):
            if joint_velocities is None:
                joint_velocities = np.zeros(n)
            torques = self.torque.torques(torque_rows, self.position_target,
                                          self.velocity_target, positions, joint_velocities)
            active = torque_rows[self.torque.rows]
            self.torque_output[:] = 0.0
            self.torque_output[self.torque.rows] = torques
            if active.any():
                rows = self.torque.rows[active]
                forces[rows] = 0.0
                effort_joints = np.concatenate([effort_joints, rows])
                efforts = np.concatenate([efforts, torques[active]])
        return MotorOutput(velocities, forces, effort_joints, efforts)

    def _servo(self, mask: np.ndarray, positions: np.ndarray) -> np.ndarray:
        dt = self.step_length
        current = positions[mask]
        setpoint = self.position_target[mask]
        max_change = self.max_velocity[mask] * dt
        setpoint = np.clip(setpoint, current - max_change, current + max_change)
        error = setpoint - current
        self.error_sum[mask] += self.i[mask] * error * dt
        result = (self.p[mask] * error + self.error_sum[mask]
                  + self.d[mask] * (error - self.last_error[mask]) / dt)
        self.last_error[mask] = error
        return result

    def _pt2(self, mask: np.ndarray, positions: np.ndarray) -> np.ndarray:
        dt = self.step_length
        out = np.empty(int(mask.sum()))
        for slot, k in enumerate(np.flatnonzero(mask)):
            if self.pt2_count[k] < 2:  # SimRobot waits for three set-points
                self.pt2_history[k, self.pt2_count[k]] = self.position_target[k]
                self.pt2_count[k] += 1
                out[slot] = self.pt2_velocity[k]
                continue
            delayed = self.pt2_history[k, 0]
            self.pt2_history[k] = (self.pt2_history[k, 1], self.position_target[k])
            t, damping, gain, v_max = self.pt2[k]
            x = self.pt2_state[k]
            x += dt / t * (gain * delayed - positions[k] - 2.0 * damping * x)
            velocity = min(max(x / t, -v_max), v_max)
            self.pt2_state[k] = velocity * t
            self.pt2_velocity[k] = velocity
            out[slot] = velocity
        return out
