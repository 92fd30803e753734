"""SimRobotCore3's torque servo law (MuJoCo era) as array math, stable at every step length.

Reference: ``Src/SimRobotCore3/Simulation/Motors/ServoMotor.cpp`` and ``VelocityMotor.cpp`` of
bhuman/SimRobot (HEAD 2bf4e57; the same law since a21086e, 2025-09). Per step, before
integration::

    tau = clamp(p * (setpoint - q) - d * qdot_f, -maxForce, maxForce)
    qdot_f = f * qdot + (1 - f) * qdot_f_prev            (f = velocityLowPassFactor, default 1)

the set-point being the one commanded ``delay`` seconds earlier (ring buffer of
``ceil(delay / stepLength) + 1`` entries, initially the joint's initial position); ``i`` and
``maxVelocity`` are parsed but not used. A VelocityMotor applies ``clamp(0.2 * (v_set - qdot),
+-maxForce)``. MuJoCo adds to every servoed joint ``armature 0.01`` (kg*m^2 or kg, inertia of a
rotor that turns with the joint) and ``damping 0.01``; its Euler step is semi-implicit
(``v' = v + h * a``, ``q' = q + h * v'``), like PyBullet's.

How it is reproduced here (all per joint, vectorised over an entity's servos):

- **Armature**: PyBullet has none, so :func:`with_armature` adds the inertia of a thin rotor
  disk (0.01 about the joint axis, 0.005 about the perpendicular axes) to the child link's
  inertia tensor. About the joint axis that is exactly MuJoCo's armature; unlike it, the extra
  inertia also turns when the whole link turns (the NAO gets 24 such disks: its falls are
  slightly slower than in SimRobot).
- **Damping 0.01**: added to the torque as ``-0.01 * qdot``.
- **The PD** is evaluated at the *end* of the step (backward Euler, "stable PD" of Tan et al.
  for all servos of an entity together): ``tau = p (e - h v') - d v'`` with
  ``v' = v + h W tau``, ``W`` the joints' block of the inverse mass matrix of the free-floating
  body (armature included; contacts only add inertia, so the prediction errs on the safe side),
  from the engine's mass matrix every :data:`REFRESH_PERIOD` (30 ms; every step at longer steps;
  PyBullet's: ``sim/engines/pybullet/mass_matrix.py``).
  One linear solve per entity and step, ``(1 + h C W) tau = p e - c v`` (``c = p h + d +
  0.01``), then the clamp to ``maxForce``. This is stable for every gain and step (p = 200, d =
  5 at 5..100 ms) and converges to SimRobotCore3's explicit evaluation as ``h -> 0`` (within 2 %
  of its discrete step response at 1 ms, test_torque_servos.py). The explicit evaluation itself
  is not usable here: on the NAO at 12 ms it oscillates by 15 degrees even on joints whose
  one-joint step is stable, through the coupling of the links, and MuJoCo's own explicit step
  diverges for p = 200, d = 5 at 10 ms and for every NAO gain at 100 ms. Per-joint (diagonal)
  implicit evaluation is not enough either: the stiff gains then overshoot through the coupling.
- **Long steps** (over :data:`MAX_TORQUE_STEP`, e.g. 0.1 s) are split into physics sub-steps
  (:func:`substeps_for`; only in scenes with torque-law motors): the backward-Euler PD predicts
  the joints as if free, so under a load held by contacts its stiffness falls to about
  ``p / (1 + h c / m)``, and a humanoid with p = 200, d = 5 would sag at 0.1 s. Sensors, kinematic
  bodies and the scene's clock still advance once per scene step.
- The torque goes to PyBullet's ``TORQUE_CONTROL``; the joint's velocity motor is disabled
  (force 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from scene_sim_ros.scene import Joint, Link, Scene, ServoMotor, VelocityMotor
from scene_sim_ros.scene.motors import TORQUE_LAW

ARMATURE = 0.01  # kg*m^2 (hinge) or kg (slider), SimRobotCore3 ServoMotor::act
DAMPING = 0.01  # N*m*s/rad or N*s/m
VELOCITY_GAIN = 0.2  # SimRobotCore3 VelocityMotor: MuJoCo velocity actuator kv
EXACT_HALF_LIFE = 0.1  # s: slower-decaying explicit steps are evaluated implicitly
MAX_TORQUE_STEP = 0.0125  # s: longer scene steps are split into physics sub-steps
REFRESH_PERIOD = 0.03  # s between mass-matrix updates (at least one per step)


def is_torque_controlled(joint: Joint | None) -> bool:
    """Whether ``joint`` has a motor with SimRobotCore3's torque law."""
    motor = None if joint is None else joint.motor
    return isinstance(motor, (ServoMotor, VelocityMotor)) and motor.control == TORQUE_LAW


def with_armature(link: Link, joint: Joint | None) -> Link:
    """``link`` with the armature of its parent ``joint`` added to its inertia (about the
    joint's axis, given in the link frame) when that joint is torque controlled."""
    if not is_torque_controlled(joint) or joint is None or joint.type not in ('revolute',
                                                                                 'continuous'):
        return link  # a slider's armature (kg) would be a mass: not reproduced
    ax, ay, az = joint.axis
    norm = math.sqrt(ax * ax + ay * ay + az * az) or 1.0
    ax, ay, az = ax / norm, ay / norm, az / norm
    xx, xy, xz, yy, yz, zz = link.inertial.inertia
    # a thin rotor disk: a about the axis, a / 2 about the perpendicular axes (a tensor of
    # a * axis axis^T alone would break the triangle inequality PyBullet checks)
    half = ARMATURE / 2.0
    tensor = (xx + half + half * ax * ax, xy + half * ax * ay, xz + half * ax * az,
              yy + half + half * ay * ay, yz + half * ay * az, zz + half + half * az * az)
    return replace(link, inertial=replace(link.inertial, inertia=tensor))


def spectral_radius(p: np.ndarray, c: np.ndarray, inertia: np.ndarray, h: float) -> np.ndarray:
    """Spectral radius of one joint's explicit semi-implicit Euler step under
    ``tau = -p q - c v`` (MuJoCo's evaluation of the law)."""
    a11 = 1.0 - h * h * p / inertia
    a22 = 1.0 - h * c / inertia
    a12 = h * a22
    a21 = -h * p / inertia
    trace = a11 + a22
    det = a11 * a22 - a12 * a21
    disc = trace * trace - 4.0 * det
    root = np.sqrt(np.abs(disc))
    real = np.maximum(np.abs(trace + root), np.abs(trace - root)) / 2.0
    return np.where(disc >= 0.0, real, np.sqrt(np.abs(det)))


def substeps_for(scene: Scene) -> int:
    """Physics sub-steps per scene step: 1, or enough to keep steps of at most
    :data:`MAX_TORQUE_STEP` when an entity has a torque-law motor (the stable PD predicts the
    joints without their contacts, so it softens under load as ``h`` grows)."""
    step = float(scene.step_length)
    if step <= MAX_TORQUE_STEP * 1.0001:
        return 1
    if not any(is_torque_controlled(j) for e in scene.entities for j in e.joints):
        return 1
    return math.ceil(step / MAX_TORQUE_STEP - 1e-9)


class TorqueServos:
    """SimRobotCore3 torque law for some joints of one entity (``rows``: their positions in the
    entity's movable-joint list)."""

    def __init__(self, joints: Sequence[Joint], step_length: float):
        self.step_length = h = step_length
        rows, p, d, force, delay, filt, velocity = [], [], [], [], [], [], []
        for k, joint in enumerate(joints):
            if not is_torque_controlled(joint):
                continue
            motor = joint.motor
            rows.append(k)
            assert isinstance(motor, (ServoMotor, VelocityMotor))  # is_torque_controlled
            force.append(motor.max_force)
            if isinstance(motor, ServoMotor):
                p.append(motor.p)
                d.append(motor.d)
                delay.append(max(0, math.ceil(motor.delay / h - 1e-9)))
                filt.append(min(max(motor.velocity_filter, 0.0), 1.0))
                velocity.append(False)
            else:
                p.append(0.0)
                d.append(VELOCITY_GAIN)
                delay.append(0)
                filt.append(1.0)
                velocity.append(True)
        self.rows = np.array(rows, dtype=int)
        self.p = np.array(p, dtype=float)
        self.d = np.array(d, dtype=float)
        self.max_force = np.array(force, dtype=float)
        self.delay = np.array(delay, dtype=int)
        self.filter = np.array(filt, dtype=float)
        self.is_velocity_motor = np.array(velocity, dtype=bool)
        self.mobility = np.eye(len(rows)) / ARMATURE  # W = M^-1 (servo block)
        self._solver: np.ndarray | None = None
        self.refresh_steps = max(1, round(REFRESH_PERIOD / h))
        self.c = self.p * h + self.d * self.filter + DAMPING
        self.gain = self.p.copy()
        self.exact = np.zeros(len(rows), dtype=bool)
        self.max_delay = int(self.delay.max()) if len(rows) else 0
        self._columns = np.arange(len(rows))
        self.filtered = bool(np.any(self.filter < 1.0))
        self.has_velocity_motors = bool(self.is_velocity_motor.any())
        self._steps = 0
        self.inertia_source: Callable[[np.ndarray], np.ndarray] | None = None
        """positions of all joints -> mobility W (the engine's inverse mass matrix block)"""
        self.reset(np.zeros(len(joints)))

    def __len__(self) -> int:
        return len(self.rows)

    def reset(self, initial_positions: np.ndarray) -> None:
        n = len(self.rows)
        start = np.asarray(initial_positions, dtype=float)[self.rows] if n else np.zeros(0)
        depth = int(self.delay.max()) + 1 if n else 1
        self.history = np.tile(start, (depth, 1))  # history[0]: newest set-point
        self.filtered_velocity = np.zeros(n)
        self._steps = 0

    def update_inertia(self, mobility: np.ndarray) -> None:
        """New mobility ``W`` (the servos' block of the inverse mass matrix, armature included;
        a vector is taken as its diagonal)."""
        mobility = np.asarray(mobility, dtype=float)
        self.mobility = mobility if mobility.ndim == 2 else np.diag(mobility)
        self._solver = None
        self._choose_gains()

    def _choose_gains(self) -> None:
        """Per joint: SimRobotCore3's explicit step reproduced exactly (in the one-joint model
        of inertia ``m = 1 / W_kk``) where that step is well damped, else backward Euler.

        The implicit form ``(m + h^2 p' + h d') v' = m v + h p' e`` equals the explicit
        ``m v' = m v + h (p e - d v)`` for ``p' = p / k``, ``d' = (d - h p) / k``,
        ``k = 1 - h d / m``; then ``c = p' h + d' = d / k``.
        """
        h = self.step_length
        m = 1.0 / np.maximum(np.diag(self.mobility), 1e-12)
        d = self.d * self.filter + DAMPING
        kappa = 1.0 - h * d / m
        radius = spectral_radius(self.p, d, m, h)
        # well damped: stable, and a disturbance halves within EXACT_HALF_LIFE
        exact = (kappa > 0.05) & (radius < 1.0) & (
            radius ** (EXACT_HALF_LIFE / h) <= 0.5)
        safe_kappa = np.where(exact, kappa, 1.0)
        self.exact = exact
        self.gain = np.where(exact, self.p / safe_kappa, self.p)
        self.c = np.where(exact, d / safe_kappa, self.p * h + d)

    def _solver_for(self, active: np.ndarray | None) -> np.ndarray:
        """``(1 + h C W)^-1`` for the active rows (all rows: cached until W changes)."""
        if active is None and self._solver is not None:
            return self._solver
        mobility = self.mobility if active is None else self.mobility[np.ix_(active, active)]
        c = self.c if active is None else self.c[active]
        system = np.eye(len(c)) + (self.step_length * c)[:, None] * mobility
        try:
            solver = np.linalg.inv(system)
        except np.linalg.LinAlgError:
            solver = np.diag(1.0 / np.diag(system))
        if active is None:
            self._solver = solver
        return solver

    def torques(self, active: np.ndarray, setpoints: np.ndarray, velocity_targets: np.ndarray,
                positions: np.ndarray, velocities: np.ndarray) -> np.ndarray:
        """The torques of all rows (0 where not ``active``, a mask over all joints) for the next
        step; advances the set-point ring buffer and the velocity filter (call once per physics
        step)."""
        if self.inertia_source is not None and self._steps % self.refresh_steps == 0:
            self.update_inertia(self.inertia_source(positions))
        self._steps += 1
        rows = self.rows
        if self.max_delay:
            self.history = np.roll(self.history, 1, axis=0)
            self.history[0] = setpoints[rows]
            setpoint = self.history[self.delay, self._columns]
        else:
            setpoint = setpoints[rows]
        q = positions[rows]
        v = velocities[rows]
        # backward Euler: the PD (and the damping) at v' = v + h W tau, the velocity filter
        # taking v' as its newest sample: (1 + h C W) tau = p e + d (ref - (1 - f) vf) - c v
        rhs = self.gain * (setpoint - q) - self.c * v
        if self.filtered:
            previous = self.filtered_velocity
            self.filtered_velocity = self.filter * v + (1.0 - self.filter) * previous
            rhs -= self.d * (1.0 - self.filter) * previous
        if self.has_velocity_motors:
            motor = self.is_velocity_motor
            rhs[motor] = self.d[motor] * velocity_targets[rows][motor] - self.c[motor] * v[motor]
        mask = active[rows]
        tau = np.zeros(len(rows))
        if mask.all():
            tau = self._solver_for(None) @ rhs
        elif mask.any():
            tau[mask] = self._solver_for(mask) @ rhs[mask]
        # clamp the motor's part (the damping 0.01 is the joint's, outside the clamp)
        tau = np.clip(tau + DAMPING * v, -self.max_force, self.max_force) - DAMPING * v
        tau[~mask] = 0.0
        return tau
