"""Rigid transforms in plain Python: positions (x, y, z) and quaternions (x, y, z, w).

Scene loading composes thousands of small transforms; plain tuples are several times faster
than numpy for 3-vectors, so numpy is only used where a whole array is transformed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
Matrix3 = tuple[Vec3, Vec3, Vec3]

IDENTITY_QUAT: Quat = (0.0, 0.0, 0.0, 1.0)
ZERO: Vec3 = (0.0, 0.0, 0.0)


def vec3(values: Sequence[float]) -> Vec3:
    """Return ``values`` as a tuple of three floats."""
    x, y, z = values
    return (float(x), float(y), float(z))


def quat(values: Sequence[float]) -> Quat:
    """Return ``values`` (x, y, z, w) as a tuple of four floats, as they are (not normalised)."""
    x, y, z, w = values
    return (float(x), float(y), float(z), float(w))


def add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(a: Vec3, s: float) -> Vec3:
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Vec3) -> float:
    return math.sqrt(dot(a, a))


def normalized(a: Vec3) -> Vec3:
    """``a`` of length 1; ValueError for a zero or non-finite vector."""
    n = norm(a)
    if not 0.0 < n < math.inf:  # zero, or its square under- or overflowed (1e-320, 1e308)
        biggest = max(abs(a[0]), abs(a[1]), abs(a[2]))
        if not (0.0 < biggest < math.inf and all(map(math.isfinite, a))):
            raise ValueError('cannot normalise a zero or non-finite vector')
        a = (a[0] / biggest, a[1] / biggest, a[2] / biggest)
        n = norm(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def quat_normalized(q: Sequence[float]) -> Quat:
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if n == 0.0:
        raise ValueError('cannot normalise a zero quaternion')
    if w < 0.0:  # canonical sign keeps equal rotations equal as tuples
        n = -n
    return (x / n, y / n, z / n, w / n)


def quat_multiply(a: Quat, b: Quat) -> Quat:
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def quat_conjugate(q: Quat) -> Quat:
    return (-q[0], -q[1], -q[2], q[3])


def quat_rotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate vector ``v`` by unit quaternion ``q``."""
    qx, qy, qz, qw = q
    # t = 2 * cross(q.xyz, v); v' = v + w * t + cross(q.xyz, t)
    tx = 2.0 * (qy * v[2] - qz * v[1])
    ty = 2.0 * (qz * v[0] - qx * v[2])
    tz = 2.0 * (qx * v[1] - qy * v[0])
    return (
        v[0] + qw * tx + (qy * tz - qz * ty),
        v[1] + qw * ty + (qz * tx - qx * tz),
        v[2] + qw * tz + (qx * ty - qy * tx),
    )


def quat_from_axis_angle(axis: Vec3, angle: float) -> Quat:
    x, y, z = normalized(axis)
    s = math.sin(angle / 2.0)
    return (x * s, y * s, z * s, math.cos(angle / 2.0))


def quat_from_rpy(roll: float, pitch: float, yaw: float) -> Quat:
    """Quaternion of extrinsic x-y-z rotations (URDF ``rpy``): ``Rz(yaw) Ry(pitch) Rx(roll)``."""
    cr, sr = math.cos(roll / 2.0), math.sin(roll / 2.0)
    cp, sp = math.cos(pitch / 2.0), math.sin(pitch / 2.0)
    cy, sy = math.cos(yaw / 2.0), math.sin(yaw / 2.0)
    return (
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    )


def rpy_from_quat(q: Quat) -> Vec3:
    """Inverse of :func:`quat_from_rpy`."""
    x, y, z, w = q
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    sinp = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    pitch = math.asin(sinp)
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return (roll, pitch, yaw)


def matrix_from_quat(q: Quat) -> Matrix3:
    x, y, z, w = q
    return (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )


def quat_from_matrix(m: Sequence[Sequence[float]]) -> Quat:
    """Quaternion of a rotation matrix (rows), robust for every trace (Shepperd's method)."""
    m00, m01, m02 = m[0][0], m[0][1], m[0][2]
    m10, m11, m12 = m[1][0], m[1][1], m[1][2]
    m20, m21, m22 = m[2][0], m[2][1], m[2][2]
    trace = m00 + m11 + m22
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s)
    elif m00 > m11 and m00 > m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = (0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)
    elif m11 > m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s)
    return quat_normalized(q)


def quat_angle(a: Quat, b: Quat) -> float:
    """Angle in radians of the rotation between ``a`` and ``b``."""
    d = abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3])
    return 2.0 * math.acos(min(1.0, d))


@dataclass(frozen=True, slots=True)
class Pose:
    """A rigid transform: ``position`` (metres) and unit quaternion ``orientation`` (x, y, z, w).

    ``a * b`` composes: the pose of frame ``b`` (given in frame ``a``) expressed in ``a``'s parent.
    """

    position: Vec3 = ZERO
    orientation: Quat = IDENTITY_QUAT

    def __mul__(self, other: Pose) -> Pose:
        rotated = quat_rotate(self.orientation, other.position)
        return Pose(add(self.position, rotated),
                    quat_normalized(quat_multiply(self.orientation, other.orientation)))

    def inverse(self) -> Pose:
        inv = quat_conjugate(self.orientation)
        return Pose(scale(quat_rotate(inv, self.position), -1.0), inv)

    def transform_point(self, point: Vec3) -> Vec3:
        return add(self.position, quat_rotate(self.orientation, point))

    def rotate(self, vector: Vec3) -> Vec3:
        return quat_rotate(self.orientation, vector)

    def is_identity(self, tolerance: float = 1e-12) -> bool:
        return (norm(self.position) <= tolerance
                and quat_angle(self.orientation, IDENTITY_QUAT) <= tolerance)

    def is_close(self, other: Pose, position_tol: float = 1e-9, angle_tol: float = 1e-9) -> bool:
        return (norm(sub(self.position, other.position)) <= position_tol
                and quat_angle(self.orientation, other.orientation) <= angle_tol)

    @staticmethod
    def from_xyz_rpy(xyz: Sequence[float] = ZERO, rpy: Sequence[float] = ZERO) -> Pose:
        return Pose(vec3(xyz), quat_normalized(quat_from_rpy(*rpy)))

    @staticmethod
    def from_matrix4(m: Sequence[Sequence[float]]) -> Pose:
        """Pose from a 4x4 homogeneous matrix given as rows (translation in the last column)."""
        rotation = [row[:3] for row in m[:3]]
        return Pose((float(m[0][3]), float(m[1][3]), float(m[2][3])), quat_from_matrix(rotation))


IDENTITY = Pose()
