"""Joint motor models with SimRobot's semantics, computed with numpy for all joints at once.

Reference: ``Src/SimRobotCore2/Simulation/Motors/*.cpp`` of bhuman/SimRobot @ 7348c36 (ODE). ODE
hinge motors take a target velocity (``dParamVel``) reached with at most ``dParamFMax``; PyBullet's
``VELOCITY_CONTROL`` with ``force`` is the same thing, so every model below ends in one velocity
target and force per joint, sent for all joints of a body in one
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

Each entity has a :class:`MotorBank` (its commands, its reset); a simulation steps the motors of
all entities as one :class:`WorldMotors`, which evaluates every law once per physics step as
arrays over all joints of the world (no Python loop per entity) and gives the banks views of
its arrays, so that an entity's commands and resets reach it.
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
    """What one step sends to the engine for the movable joints (of an entity or a world)."""

    velocities: np.ndarray  # VELOCITY_CONTROL targets, all joints
    forces: np.ndarray  # VELOCITY_CONTROL force limits, all joints (0 = no motor)
    effort_joints: np.ndarray  # positions (into the joint list) of joints under TORQUE_CONTROL
    efforts: np.ndarray  # their torques / forces


JOINT_ARRAYS = ('is_pt2', 'p', 'i', 'd', 'max_velocity', 'max_force', 'pt2', 'lower', 'upper',
                'friction', 'commandable', 'is_torque', 'torque_mode', 'mode', 'position_target',
                'velocity_target', 'effort_target', 'error_sum', 'last_error', 'pt2_state',
                'pt2_history', 'pt2_count', 'pt2_velocity', 'torque_output')
"""The per-joint arrays of :class:`JointMotors` (first axis: the joints). They are only ever
written in place: a bank's may be views of its world's."""


class ModePlan:
    """What the modes of the joints decide in a step, worked out once per change of modes
    (commands change them; most steps do not): which law each joint follows, which joints
    take torques, and every velocity motor's force limit."""

    def __init__(self, motors: JointMotors):
        mode = motors.mode
        self.torque_rows = motors.is_torque & (mode == motors.torque_mode)
        """Torque-law motors in their law's mode (a mask)."""
        position_mode = (mode == POSITION) & ~self.torque_rows
        servo = position_mode & ~motors.is_pt2
        pt2 = position_mode & motors.is_pt2
        velocity = (mode == VELOCITY) & ~self.torque_rows
        effort = mode == EFFORT
        self.servo, self.pt2, self.velocity = (_indices(servo), _indices(pt2),
                                               _indices(velocity))
        self.effort_mode = np.flatnonzero(effort)
        self.active_torque = self.torque_rows[motors.torque.rows]  # a mask over its rows
        self.any_torque = bool(self.active_torque.any())
        torque_joints = motors.torque.rows[self.active_torque]
        self.effort_joints = np.concatenate([self.effort_mode, torque_joints])
        """The joints under torque control: effort-commanded ones, then torque-law motors."""
        self.effort_joints.flags.writeable = False
        self.forces = motors.friction.copy()
        motor = servo | pt2 | velocity
        self.forces[motor] = motors.max_force[motor]
        self.forces[effort] = 0.0
        self.forces[torque_joints] = 0.0


def _indices(mask: np.ndarray) -> np.ndarray | None:
    return np.flatnonzero(mask) if mask.any() else None


class JointMotors:
    """Parameters and state of the motors of some movable joints as arrays over the joints, and
    the laws evaluated for all of them at once: one entity's (:class:`MotorBank`) or a world's
    (:class:`WorldMotors`)."""

    step_length: float
    torque: TorqueServos
    # parameters
    is_pt2: np.ndarray
    p: np.ndarray
    i: np.ndarray
    d: np.ndarray
    max_velocity: np.ndarray
    max_force: np.ndarray
    pt2: np.ndarray  # (n, 4): T, D, K, V
    lower: np.ndarray
    upper: np.ndarray
    friction: np.ndarray
    commandable: np.ndarray
    is_torque: np.ndarray  # a torque-law motor (see torque_servos)
    torque_mode: np.ndarray  # the mode in which a torque-law joint is active (else -1)
    # state
    mode: np.ndarray
    position_target: np.ndarray
    velocity_target: np.ndarray
    effort_target: np.ndarray
    error_sum: np.ndarray
    last_error: np.ndarray
    pt2_state: np.ndarray
    pt2_history: np.ndarray  # (n, 2)
    pt2_count: np.ndarray
    pt2_velocity: np.ndarray
    torque_output: np.ndarray  # the last torques of torque-law motors
    _planned_modes: bytes | None = None
    _plan: ModePlan

    def efforts(self, applied: np.ndarray) -> np.ndarray:
        """The effort each joint reports: the commanded effort, a torque-law motor's torque, else
        ``applied`` (what the engine's velocity motor applied; one per joint)."""
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

    # -- one step --------------------------------------------------------------------------
    def output(self, positions: np.ndarray,
               joint_velocities: np.ndarray | None = None) -> MotorOutput:
        """Velocity targets, forces and efforts for the next step, given joint ``positions``
        (and ``joint_velocities``, needed by torque-law motors).

        Advances the controllers' internal state (call exactly once per physics step).
        """
        plan = self._mode_plan()
        n = len(self.mode)
        velocities = np.zeros(n)
        if plan.servo is not None:
            velocities[plan.servo] = self._servo(plan.servo, positions)
        if plan.pt2 is not None:
            velocities[plan.pt2] = self._pt2(plan.pt2, positions)
        if plan.velocity is not None:
            velocities[plan.velocity] = self.velocity_target[plan.velocity]
        efforts = self.effort_target[plan.effort_mode]
        if len(self.torque):
            if joint_velocities is None:
                joint_velocities = np.zeros(n)
            torques = self.torque.torques(plan.torque_rows, self.position_target,
                                          self.velocity_target, positions, joint_velocities)
            self.torque_output[:] = 0.0
            self.torque_output[self.torque.rows] = torques
            if plan.any_torque:
                efforts = np.concatenate([efforts, torques[plan.active_torque]])
        return MotorOutput(velocities, plan.forces.copy(), plan.effort_joints, efforts)

    def _mode_plan(self) -> ModePlan:
        """The plan of the current modes (worked out anew only when they changed)."""
        modes = self.mode.tobytes()
        if modes != self._planned_modes:
            self._plan = ModePlan(self)
            self._planned_modes = modes
        return self._plan

    def _servo(self, mask: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """The velocity targets of the Core2 servos at ``mask`` (a mask or their indices)."""
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

    def _pt2(self, joints: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """The velocities of the PT2 motors at ``joints``; each waits for three set-points, as
        in SimRobot (its last velocity meanwhile), then integrates with the set-point of two
        steps earlier."""
        count = self.pt2_count[joints]
        waiting = count < 2
        filling = joints[waiting]
        self.pt2_history[filling, count[waiting]] = self.position_target[filling]
        self.pt2_count[filling] += 1
        running = joints[~waiting]
        if len(running):
            self._pt2_integrate(running, positions)
        return self.pt2_velocity[joints]

    def _pt2_integrate(self, joints: np.ndarray, positions: np.ndarray) -> None:
        dt = self.step_length
        delayed = self.pt2_history[joints, 0]
        self.pt2_history[joints, 0] = self.pt2_history[joints, 1]
        self.pt2_history[joints, 1] = self.position_target[joints]
        t, damping, gain, v_max = self.pt2[joints].T
        x = self.pt2_state[joints]
        x = x + dt / t * (gain * delayed - positions[joints] - 2.0 * damping * x)
        velocity = np.minimum(np.maximum(x / t, -v_max), v_max)
        self.pt2_state[joints] = velocity * t
        self.pt2_velocity[joints] = velocity


class MotorBank(JointMotors):
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
        self.torque_mode = np.full(n, -1)
        for k in self.torque.rows:
            self.torque_mode[k] = VELOCITY if isinstance(self.joints[k].motor,
                                                         VelocityMotor) else POSITION
        self._allocate_state(n)
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

    def _allocate_state(self, n: int) -> None:
        self.mode = np.full(n, PASSIVE)
        self.position_target = np.zeros(n)
        self.velocity_target = np.zeros(n)
        self.effort_target = np.zeros(n)
        self.error_sum = np.zeros(n)
        self.last_error = np.zeros(n)
        self.pt2_state = np.zeros(n)
        self.pt2_history = np.zeros((n, 2))
        self.pt2_count = np.zeros(n, dtype=int)
        self.pt2_velocity = np.zeros(n)
        self.torque_output = np.zeros(n)

    def reset(self) -> None:
        """The state right after loading: servos and PT2 motors hold the initial positions,
        velocity motors stand still, passive joints are free (in place: the arrays may be
        views of a :class:`WorldMotors`')."""
        self.mode[:] = PASSIVE
        self.position_target[:] = np.clip([j.initial_position for j in self.joints],
                                          self.lower, self.upper)
        for state in (self.velocity_target, self.effort_target, self.error_sum,
                      self.last_error, self.pt2_state, self.pt2_history, self.pt2_count,
                      self.pt2_velocity):
            state[...] = 0
        for k, joint in enumerate(self.joints):
            if isinstance(joint.motor, (ServoMotor, PT2Motor)):
                self.mode[k] = POSITION
            elif isinstance(joint.motor, VelocityMotor):
                self.mode[k] = VELOCITY
        self.torque.reset(self.position_target)

    def adopt(self, world: WorldMotors, offset: int) -> None:
        """Hold views of ``world``'s arrays from now on (this entity's joints start at
        ``offset`` there)."""
        joints = slice(offset, offset + len(self.joints))
        for name in JOINT_ARRAYS:
            setattr(self, name, getattr(world, name)[joints])

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


class WorldMotors(JointMotors):
    """The motors of several entities as one: their banks' arrays concatenated (in the order of
    ``banks``), so that one :meth:`output` evaluates every law for every joint of the world.
    The banks hold views of these arrays from then on (their commands and resets act here);
    when entities come or go, join the banks anew."""

    def __init__(self, banks: Sequence[MotorBank], step_length: float):
        if any(bank.step_length != step_length for bank in banks):
            raise ValueError('the motors of one world share one step length')
        self.banks = tuple(banks)
        self.step_length = step_length
        self.offsets = np.cumsum([0, *(len(bank.joints) for bank in banks)])
        """Where each bank's joints start in the arrays (and, last, their number)."""
        parts = self.banks or (MotorBank((), step_length),)  # an empty bank: the arrays' shapes
        for name in JOINT_ARRAYS:
            setattr(self, name, np.concatenate([getattr(bank, name) for bank in parts]))
        self.torque = TorqueServos.joined([bank.torque for bank in self.banks],
                                          self.offsets[:-1].tolist(), step_length)
        for bank, offset in zip(self.banks, self.offsets.tolist()):
            bank.adopt(self, offset)
