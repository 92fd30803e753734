"""Mass properties of primitive solids and their combination (parallel-axis theorem).

Inertia tensors are 6-tuples ``(ixx, ixy, ixz, iyy, iyz, izz)`` in kg*m^2 about the centre of
mass, expressed in the frame the centre of mass is given in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .geometry import Box, Capsule, Cylinder, Shape, Sphere, Torus
from .transforms import Quat, Vec3, matrix_from_quat

Inertia6 = tuple[float, float, float, float, float, float]
ZERO_INERTIA: Inertia6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def box_inertia(mass: float, size: Vec3) -> Inertia6:
    x, y, z = size
    k = mass / 12.0
    return (k * (y * y + z * z), 0.0, 0.0, k * (x * x + z * z), 0.0, k * (x * x + y * y))


def sphere_inertia(mass: float, radius: float) -> Inertia6:
    i = 0.4 * mass * radius * radius
    return (i, 0.0, 0.0, i, 0.0, i)


def cylinder_inertia(mass: float, radius: float, length: float) -> Inertia6:
    """Solid cylinder along z."""
    side = mass * (3.0 * radius * radius + length * length) / 12.0
    return (side, 0.0, 0.0, side, 0.0, 0.5 * mass * radius * radius)


def capsule_inertia(mass: float, radius: float, length: float) -> Inertia6:
    """Solid capsule along z; ``length`` is the cylindrical part between the cap centres."""
    r, h = radius, length
    v_cyl = math.pi * r * r * h
    v_hemis = 4.0 / 3.0 * math.pi * r ** 3
    total = v_cyl + v_hemis
    if total == 0.0:
        return ZERO_INERTIA
    m_cyl = mass * v_cyl / total
    m_hemis = mass * v_hemis / total  # both caps together
    izz = m_cyl * r * r / 2.0 + m_hemis * 2.0 * r * r / 5.0
    # each cap: own inertia about its centroid plus the shift to the capsule centre
    ixx = (m_cyl * (r * r / 4.0 + h * h / 12.0)
           + m_hemis * (2.0 * r * r / 5.0 + h * h / 4.0 + 3.0 * h * r / 8.0))
    return (ixx, 0.0, 0.0, ixx, 0.0, izz)


def torus_inertia(mass: float, major_radius: float, minor_radius: float) -> Inertia6:
    """Solid torus around z."""
    big, small = major_radius, minor_radius
    izz = mass * (big * big + 0.75 * small * small)
    ixx = mass * (0.5 * big * big + 0.625 * small * small)
    return (ixx, 0.0, 0.0, ixx, 0.0, izz)


def primitive_inertia(shape: Shape, mass: float) -> Inertia6 | None:
    """Inertia of a uniform solid primitive about its centre; ``None`` for meshes, planes and
    height fields (each format decides what stands in for them)."""
    if isinstance(shape, Box):
        return box_inertia(mass, shape.size)
    if isinstance(shape, Sphere):
        return sphere_inertia(mass, shape.radius)
    if isinstance(shape, Cylinder):
        return cylinder_inertia(mass, shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return capsule_inertia(mass, shape.radius, shape.length)
    if isinstance(shape, Torus):
        return torus_inertia(mass, shape.major_radius, shape.minor_radius)
    return None


def to_matrix(i: Inertia6) -> list[list[float]]:
    xx, xy, xz, yy, yz, zz = i
    return [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]


def from_matrix(m: list[list[float]]) -> Inertia6:
    return (m[0][0], m[0][1], m[0][2], m[1][1], m[1][2], m[2][2])


def rotate_inertia(i: Inertia6, orientation: Quat) -> Inertia6:
    """Express ``i`` (given in a frame rotated by ``orientation``) in the parent frame: R I R^T."""
    r = matrix_from_quat(orientation)
    m = to_matrix(i)
    rm = [[sum(r[a][k] * m[k][b] for k in range(3)) for b in range(3)] for a in range(3)]
    out = [[sum(rm[a][k] * r[b][k] for k in range(3)) for b in range(3)] for a in range(3)]
    return from_matrix(out)


def combine(parts: Iterable[tuple[float, Vec3, Inertia6]]) -> tuple[float, Vec3, Inertia6]:
    """Combine ``(mass, com, inertia about com)`` parts given in one frame into one.

    Returns total mass, the common centre of mass and the inertia about it.
    """
    items = [p for p in parts if p[0] > 0.0]
    mass = sum(p[0] for p in items)
    if mass <= 0.0:
        return 0.0, (0.0, 0.0, 0.0), ZERO_INERTIA
    com = tuple(sum(m * c[k] for m, c, _ in items) / mass for k in range(3))
    total = [0.0] * 6
    for m, c, inertia in items:
        dx, dy, dz = c[0] - com[0], c[1] - com[1], c[2] - com[2]
        shifted = (
            inertia[0] + m * (dy * dy + dz * dz),
            inertia[1] - m * dx * dy,
            inertia[2] - m * dx * dz,
            inertia[3] + m * (dx * dx + dz * dz),
            inertia[4] - m * dy * dz,
            inertia[5] + m * (dx * dx + dy * dy),
        )
        total = [t + s for t, s in zip(total, shifted)]
    return mass, (com[0], com[1], com[2]), (total[0], total[1], total[2], total[3], total[4], total[5])
