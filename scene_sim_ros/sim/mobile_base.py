"""Mobile bases without ROS: wheel geometry from the scene, drive kinematics, odometry.

- :func:`find_diff_drive` derives a differential drive from an entity: two coaxial revolute
  joints driven by velocity motors, directly (or through fixed joints) on the base, each child
  carrying a wheel (a collision cylinder along the joint axis, or a sphere); the radius is that
  shape's radius, the separation the distance between the two wheel centres along the axle, and
  the sign of each joint says whether a positive joint velocity rolls the base forward (+x).
- :func:`diff_drive_wheel_speeds` / :func:`diff_drive_twist`: the closed-form kinematics
  (``w_l = (v - omega s / 2) / r``, ``w_r = (v + omega s / 2) / r``).
- :class:`TwistController`: a commanded planar twist ramped under velocity and acceleration
  limits; after ``timeout`` seconds of sim time without a new command it brakes to zero and then
  goes idle (stops commanding, so other joint commands are not overridden).
- :class:`OdometryEstimator`: the odometry pose of a base from its true pose, step by step:
  exact when noise-free, otherwise each step's motion (in the base frame) gets Gaussian noise
  and a systematic drift, so the estimate wanders away from the truth like wheel odometry.

Poses are :class:`~scene_sim_ros.scene.Pose` (position + quaternion xyzw); the base frame has x
forward, y left, z up (REP-103).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scene_sim_ros.scene import Entity, Joint, Pose
from scene_sim_ros.scene.bounds import link_poses_at_zero
from scene_sim_ros.scene.geometry import Cylinder, Sphere
from scene_sim_ros.scene.motors import VelocityMotor
from scene_sim_ros.scene.transforms import IDENTITY, quat_from_axis_angle, vec3

COAXIAL_TOLERANCE = math.radians(5.0)
"""Largest angle between two wheel axes (and between an axis and the line joining the wheel
centres) for the wheels to count as coaxial."""

LEVEL_TOLERANCE = math.radians(10.0)
"""Largest angle between a wheel axis and the base's y axis (a drive wheel rolls along x)."""

TELEPORT_DISTANCE = 0.5
"""A root displacement (m) in one step above this is a teleport (supervisor, reset), not motion:
the odometry does not integrate it."""

FOOTPRINT_LINK = 'base_footprint'


# --- geometry --------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiffDriveGeometry:
    """Two wheels on one axle: joint names, separation (m), radius (m), the sign of each joint's
    velocity that rolls the base forward, and the largest wheel speed the motors allow (rad/s)."""

    left_joint: str
    right_joint: str
    separation: float
    radius: float
    left_sign: float = 1.0
    right_sign: float = 1.0
    max_wheel_velocity: float = math.inf

    def joint_velocities(self, linear: float, angular: float) -> tuple[float, float]:
        """Joint velocities (rad/s) for a base twist, scaled down together (keeping the
        curvature) when one of them would exceed ``max_wheel_velocity``."""
        left, right = diff_drive_wheel_speeds(linear, angular, self.separation, self.radius)
        largest = max(abs(left), abs(right))
        if largest > self.max_wheel_velocity:
            factor = self.max_wheel_velocity / largest
            left, right = left * factor, right * factor
        return self.left_sign * left, self.right_sign * right


def diff_drive_wheel_speeds(linear: float, angular: float, separation: float,
                            radius: float) -> tuple[float, float]:
    """Wheel angular speeds (rad/s, positive = rolling forward) of a differential drive moving
    at ``linear`` m/s along x and turning at ``angular`` rad/s about z."""
    half = 0.5 * separation * angular
    return (linear - half) / radius, (linear + half) / radius


def diff_drive_twist(left: float, right: float, separation: float,
                     radius: float) -> tuple[float, float]:
    """The base twist (linear m/s, angular rad/s) of wheel speeds ``left``/``right`` (rad/s)."""
    return radius * (left + right) / 2.0, radius * (right - left) / separation


def _wheel_radius(entity: Entity, link_name: str, axis_in_link: Sequence[float]) -> float | None:
    """The largest radius of a cylinder along ``axis_in_link`` or a sphere on the link."""
    try:
        link = entity.link(link_name)
    except KeyError:
        return None
    best = None
    for collision in link.collisions:
        shape = collision.shape
        if isinstance(shape, Sphere):
            radius = shape.radius
        elif isinstance(shape, Cylinder):
            along = collision.pose.rotate((0.0, 0.0, 1.0))
            if abs(float(np.dot(along, axis_in_link))) < math.cos(COAXIAL_TOLERANCE):
                continue
            radius = shape.radius
        else:
            continue
        best = radius if best is None else max(best, radius)
    return best


@dataclass(frozen=True)
class _Wheel:
    joint: Joint
    center: np.ndarray  # in the base (root) frame
    axis: np.ndarray  # unit, in the base frame
    radius: float


def _drive_wheels(entity: Entity) -> list[_Wheel]:
    poses = link_poses_at_zero(entity)
    wheels = []
    for joint in entity.joints:
        if joint.type != 'revolute' or not isinstance(joint.motor, VelocityMotor):
            continue
        radius = _wheel_radius(entity, joint.child, joint.axis)
        if radius is None or radius <= 0.0:
            continue
        child = poses.get(joint.child)
        if child is None:
            continue
        axis = np.array(child.rotate(joint.axis), dtype=float)
        axis /= np.linalg.norm(axis)
        if abs(axis[1]) < math.cos(LEVEL_TOLERANCE):
            continue  # not an axle across the base: steering, a turret, a vertical spinner
        wheels.append(_Wheel(joint, np.array(child.position, dtype=float), axis, radius))
    return wheels


def _max_velocity(joint: Joint) -> float:
    limit = math.inf
    if isinstance(joint.motor, VelocityMotor):
        limit = joint.motor.max_velocity
    if joint.max_velocity is not None:
        limit = min(limit, joint.max_velocity)
    return limit if limit > 0.0 else math.inf


def find_diff_drive(entity: Entity) -> DiffDriveGeometry | None:
    """The differential drive of ``entity`` when it has exactly two coaxial velocity-driven
    wheels (on opposite sides of the base), else ``None``."""
    wheels = _drive_wheels(entity)
    if len(wheels) != 2:
        return None
    a, b = wheels
    if abs(float(np.dot(a.axis, b.axis))) < math.cos(COAXIAL_TOLERANCE):
        return None
    between = b.center - a.center
    separation = float(abs(np.dot(between, a.axis)))
    if separation <= 1e-6:
        return None
    off_axis = float(np.linalg.norm(between - np.dot(between, a.axis) * a.axis))
    if off_axis > separation * math.tan(COAXIAL_TOLERANCE):
        return None
    left, right = (a, b) if a.center[1] > b.center[1] else (b, a)
    if abs(left.radius - right.radius) > 0.05 * max(left.radius, right.radius):
        return None
    return DiffDriveGeometry(
        left_joint=left.joint.name, right_joint=right.joint.name, separation=separation,
        radius=0.5 * (left.radius + right.radius),
        # a joint turning about +y rolls its wheel forward: (axis x z) . x = axis_y
        left_sign=1.0 if left.axis[1] > 0.0 else -1.0,
        right_sign=1.0 if right.axis[1] > 0.0 else -1.0,
        max_wheel_velocity=min(_max_velocity(left.joint), _max_velocity(right.joint)))


def wheel_geometry(entity: Entity, left_joint: str, right_joint: str, separation: float = 0.0,
                   radius: float = 0.0) -> DiffDriveGeometry:
    """A differential drive on the named joints; a separation or radius of 0 is derived from
    the scene (wheel centres along the axle, the wheel's cylinder or sphere). Raises ValueError
    naming what is missing."""
    joints = {j.name: j for j in entity.movable_joints}
    for name in (left_joint, right_joint):
        if name not in joints or joints[name].type != 'revolute':
            raise ValueError(f'{entity.name!r} has no revolute joint {name!r}; revolute joints: '
                             f'{sorted(n for n, j in joints.items() if j.type == "revolute")}')
    poses = link_poses_at_zero(entity)
    sides = []
    for name in (left_joint, right_joint):
        joint = joints[name]
        child = poses.get(joint.child, IDENTITY)
        axis = np.array(child.rotate(joint.axis), dtype=float)
        sides.append((joint, np.array(child.position, dtype=float), axis / np.linalg.norm(axis)))
    (lj, lc, la), (rj, rc, ra) = sides
    if separation <= 0.0:
        separation = float(abs(np.dot(rc - lc, la)))
        if separation <= 1e-6:
            raise ValueError(f'{entity.name!r}: cannot derive the wheel separation of '
                             f'{left_joint}/{right_joint}; set it')
    if radius <= 0.0:
        left = _wheel_radius(entity, lj.child, lj.axis)
        right = _wheel_radius(entity, rj.child, rj.axis)
        if left is None or right is None:
            raise ValueError(f'{entity.name!r}: no wheel cylinder or sphere on '
                             f'{lj.child}/{rj.child}; set the wheel radius')
        radius = 0.5 * (left + right)

    def sign(axis: np.ndarray) -> float:
        return 1.0 if axis[1] >= 0.0 else -1.0
    return DiffDriveGeometry(lj.name, rj.name, float(separation), float(radius), sign(la),
                             sign(ra), min(_max_velocity(lj), _max_velocity(rj)))


def base_link_name(entity: Entity, override: str = '') -> str:
    """The link odometry reports: ``override`` if given, else a link named ``base_footprint``
    (REP-120) if the entity has one, else the root link."""
    names = [link.name for link in entity.links]
    if override:
        if override not in names:
            raise ValueError(f'{entity.name!r} has no link {override!r}; links: {names}')
        return override
    return FOOTPRINT_LINK if FOOTPRINT_LINK in names else entity.root.name


# --- command following -----------------------------------------------------------------------

@dataclass(frozen=True)
class TwistLimits:
    """Limits of a commanded planar twist; 0 (or less) = unlimited."""

    linear_velocity: float = 0.0
    angular_velocity: float = 0.0
    linear_acceleration: float = 0.0
    angular_acceleration: float = 0.0


def _clamp(value: float, limit: float) -> float:
    return value if limit <= 0.0 else min(max(value, -limit), limit)


def _ramp(current: float, target: float, rate: float, dt: float) -> float:
    if rate <= 0.0:
        return target
    step = rate * dt
    return min(max(target, current - step), current + step)


class TwistController:
    """Follows the last commanded twist (vx, vy, wz) under :class:`TwistLimits`; ``timeout`` s of
    sim time after the last command (0: never) the target becomes zero.

    :meth:`update` returns the twist to apply for the next step, or ``None`` while idle (no
    command yet, or stopped after a timeout and already told the drive so).
    """

    def __init__(self, limits: TwistLimits = TwistLimits(), timeout: float = 0.5):
        self.limits = limits
        self.timeout = timeout
        self.target = (0.0, 0.0, 0.0)
        self.current = (0.0, 0.0, 0.0)
        self.last_command: float | None = None
        self.active = False

    def command(self, linear_x: float, linear_y: float, angular_z: float, t: float) -> None:
        lim = self.limits
        # one limit for the planar speed: scale (vx, vy) together
        speed = math.hypot(linear_x, linear_y)
        if lim.linear_velocity > 0.0 and speed > lim.linear_velocity:
            linear_x, linear_y = (v * lim.linear_velocity / speed for v in (linear_x, linear_y))
        self.target = (linear_x, linear_y, _clamp(angular_z, lim.angular_velocity))
        self.last_command = t
        self.active = True

    def stop(self) -> None:
        """Forget the command and the current twist (after a reset)."""
        self.target = self.current = (0.0, 0.0, 0.0)
        self.last_command = None
        self.active = False

    def timed_out(self, t: float) -> bool:
        return (self.timeout > 0.0 and self.last_command is not None
                and t - self.last_command >= self.timeout - 1e-9)

    def update(self, t: float, dt: float) -> tuple[float, float, float] | None:
        if not self.active:
            return None
        target = (0.0, 0.0, 0.0) if self.timed_out(t) else self.target
        lim = self.limits
        vx = _ramp(self.current[0], target[0], lim.linear_acceleration, dt)
        vy = _ramp(self.current[1], target[1], lim.linear_acceleration, dt)
        wz = _ramp(self.current[2], target[2], lim.angular_acceleration, dt)
        self.current = (vx, vy, wz)
        if self.timed_out(t) and self.current == (0.0, 0.0, 0.0):
            self.active = False  # this last zero is applied; then leave the joints alone
        return self.current


# --- odometry --------------------------------------------------------------------------------

@dataclass(frozen=True)
class OdometryNoise:
    """Odometry error model (all 0: ground truth).

    ``linear``: random walk of the travelled distance, m per sqrt(m) travelled; ``angular``:
    random walk of the heading, rad per sqrt(m + rad) of motion; ``drift_linear``: scale error
    of the distance (0.02 reads 2 % long); ``drift_angular``: heading drift in rad per metre.
    """

    linear: float = 0.0
    angular: float = 0.0
    drift_linear: float = 0.0
    drift_angular: float = 0.0

    @property
    def noisy(self) -> bool:
        return any((self.linear, self.angular, self.drift_linear, self.drift_angular))


def _yaw_of(q: Sequence[float]) -> float:
    x, y, z, w = q
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


class OdometryEstimator:
    """The odometry pose of a base, updated once per step from its true pose.

    Noise-free the estimate *is* the true pose (the odom frame coincides with the world).
    With noise, each step's motion ``last^-1 * true`` (base frame) is perturbed and integrated,
    so ``true * estimate^-1`` (world -> odom) drifts. Teleports are not integrated.
    """

    def __init__(self, noise: OdometryNoise = OdometryNoise(),
                 rng: np.random.Generator | None = None):
        self.noise = noise
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.estimate: Pose | None = None
        self._last: Pose | None = None
        self.distance = 0.0  # travelled (m), for the covariance
        self.turned = 0.0  # rad

    def reset(self) -> None:
        self.estimate = self._last = None
        self.distance = self.turned = 0.0

    def update(self, true_pose: Pose) -> Pose:
        if not self.noise.noisy or self.estimate is None or self._last is None:
            if self.estimate is None or not self.noise.noisy:
                self.estimate = true_pose
            self._last = true_pose
            return self.estimate
        delta = self._last.inverse() * true_pose
        self._last = true_pose
        d = math.sqrt(sum(v * v for v in delta.position))
        if d > TELEPORT_DISTANCE:
            return self.estimate  # not motion: world -> odom absorbs it
        turn = abs(_yaw_of(delta.orientation))
        self.distance += d
        self.turned += turn
        n = self.noise
        rng = self.rng
        scale = 1.0 + n.drift_linear
        if n.linear and d > 0.0:
            scale += float(rng.normal(0.0, n.linear * math.sqrt(d))) / d
        extra_yaw = n.drift_angular * d
        if n.angular and d + turn > 0.0:
            extra_yaw += float(rng.normal(0.0, n.angular * math.sqrt(d + turn)))
        position = vec3([v * scale for v in delta.position])
        orientation = delta.orientation
        if extra_yaw:
            orientation = (Pose((0.0, 0.0, 0.0), quat_from_axis_angle((0.0, 0.0, 1.0), extra_yaw))
                           * Pose((0.0, 0.0, 0.0), orientation)).orientation
        self.estimate = self.estimate * Pose(position, orientation)
        return self.estimate

    def variances(self, floor: float = 1e-6) -> tuple[float, float]:
        """(position variance m^2, heading variance rad^2) of the estimate so far."""
        n = self.noise
        return (max(n.linear ** 2 * self.distance, floor),
                max(n.angular ** 2 * (self.distance + self.turned), floor))


__all__ = ['DiffDriveGeometry', 'OdometryEstimator', 'OdometryNoise', 'TwistController',
           'TwistLimits', 'base_link_name', 'diff_drive_twist', 'diff_drive_wheel_speeds',
           'find_diff_drive', 'link_poses_at_zero', 'wheel_geometry']
