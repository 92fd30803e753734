"""Axis-aligned bounding boxes of entities from their collision shapes, in the entity's frame
(its root link frame) or in the world: what a supervisor reports as an entity's bounds.

A shape contributes the corners of its own box (a sphere of radius r: the cube of side 2r, a
cylinder or capsule along its z axis: its enclosing box, a mesh: its vertices), placed by its
link's pose; planes are unbounded and do not count. Mesh files count where the caller passes
a reader of their vertices (the loaders' :func:`~scene_sim_ros.formats.mesh_files.read_mesh_file`
sits above this layer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from .geometry import Box, Capsule, Cylinder, Heightfield, Mesh, MeshFile, Shape, Sphere, Torus
from .model import Entity, Joint
from .transforms import IDENTITY, Pose

AABB = tuple[tuple[float, float, float], tuple[float, float, float]]
"""(lower corner, upper corner)."""


MeshReader = Callable[[Path], 'np.ndarray | None']
"""The vertices of a mesh file (None: unreadable)."""


def shape_points(shape: Shape, read_mesh: MeshReader | None = None) -> np.ndarray | None:
    """Points whose hull encloses ``shape`` in its own frame (N x 3); None: unbounded, or a
    mesh file without ``read_mesh``."""
    if isinstance(shape, Box):
        return _box(np.asarray(shape.size, float) / 2.0)
    if isinstance(shape, Sphere):
        return _box(np.full(3, shape.radius))
    if isinstance(shape, Cylinder):
        return _box(np.array([shape.radius, shape.radius, shape.length / 2.0]))
    if isinstance(shape, Capsule):
        return _box(np.array([shape.radius, shape.radius, shape.length / 2.0 + shape.radius]))
    if isinstance(shape, Torus):
        outer = shape.major_radius + shape.minor_radius
        return _box(np.array([outer, outer, shape.minor_radius]))
    if isinstance(shape, Mesh):
        return np.asarray(shape.vertices, float).reshape(-1, 3) if len(shape.vertices) else None
    if isinstance(shape, MeshFile):
        vertices = read_mesh(shape.path) if read_mesh is not None else None
        return None if vertices is None else vertices * np.asarray(shape.scale, float)
    if isinstance(shape, Heightfield):
        heights = np.asarray(shape.heights, float)
        low, high = float(heights.min()), float(heights.max())
        return np.array([[sx * shape.size_x / 2, sy * shape.size_y / 2, z]
                         for sx in (-1, 1) for sy in (-1, 1) for z in (low, high)])
    return None  # Plane: unbounded


def _box(half: np.ndarray) -> np.ndarray:
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return signs * half


def link_poses_at_zero(entity: Entity) -> dict[str, Pose]:
    """Every link's pose in the root link frame with all joints at 0 (joint origins only)."""
    poses = {entity.root.name: IDENTITY}
    children: dict[str, list[Joint]] = {}
    for joint in entity.joints:
        children.setdefault(joint.parent, []).append(joint)
    stack = [entity.root.name]
    while stack:
        parent = stack.pop()
        for joint in children.get(parent, ()):
            if joint.child not in poses:
                poses[joint.child] = poses[parent] * joint.origin
                stack.append(joint.child)
    return poses


def entity_points(entity: Entity, link_poses: Mapping[str, Pose],
                  read_mesh: MeshReader | None = None) -> np.ndarray | None:
    """Points enclosing every collision shape of ``entity`` with its links at ``link_poses``
    (in any one frame); None where no shape is bounded."""
    parts = []
    for link in entity.links:
        link_pose = link_poses.get(link.name)
        if link_pose is None:
            continue
        for collision in link.collisions:
            points = shape_points(collision.shape, read_mesh)
            if points is None:
                continue
            parts.append(transform_points(link_pose * collision.pose, points))
    return np.concatenate(parts) if parts else None


def transform_points(pose: Pose, points: np.ndarray) -> np.ndarray:
    x, y, z, w = pose.orientation
    rotation = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return points @ rotation.T + np.asarray(pose.position, float)


def aabb(points: np.ndarray | None) -> AABB | None:
    if points is None or not len(points):
        return None
    low, high = points.min(axis=0), points.max(axis=0)
    return (tuple(float(v) for v in low), tuple(float(v) for v in high))  # type: ignore[return-value]


def box_corners(box: AABB) -> np.ndarray:
    low, high = np.asarray(box[0], float), np.asarray(box[1], float)
    return (low + high) / 2.0 + _box((high - low) / 2.0)


def boxes_overlap(a: AABB, b: AABB) -> bool:
    return all(a[0][i] <= b[1][i] and b[0][i] <= a[1][i] for i in range(3))


def box_sphere_overlap(box: AABB, center: Sequence[float], radius: float) -> bool:
    nearest = np.clip(np.asarray(center, float), box[0], box[1])
    return float(np.linalg.norm(nearest - np.asarray(center, float))) <= radius


def convex_overlap(a: np.ndarray, b: np.ndarray, tolerance: float = 1e-9) -> bool:
    """Whether the convex hulls of the point sets ``a`` and ``b`` (N x 3) intersect (touching
    counts): GJK on their Minkowski difference, the nearest point of each simplex found among
    its faces (at most 4 points, so all 15 subsets are tried)."""
    a, b = np.asarray(a, float).reshape(-1, 3), np.asarray(b, float).reshape(-1, 3)

    def support(direction: np.ndarray) -> np.ndarray:
        return a[np.argmax(a @ direction)] - b[np.argmin(b @ direction)]

    direction = a.mean(axis=0) - b.mean(axis=0)
    if not direction.any():
        return True   # the same centroid: the hulls share a point
    simplex = [support(direction)]
    for _ in range(100):
        nearest, simplex = _nearest_on_simplex(simplex)
        distance_sq = float(nearest @ nearest)
        if distance_sq <= tolerance * tolerance:
            return True
        point = support(-nearest)
        if float(point @ -nearest) < 0.0:
            return False   # a plane separates the origin from the difference
        if distance_sq - float(nearest @ point) <= tolerance * max(distance_sq, 1.0):
            return False   # no nearer point exists: the hulls are this far apart
        simplex = [*simplex, point]
    return True   # not converged (degenerate input): say they may touch


def _nearest_on_simplex(simplex: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The point of the simplex nearest the origin and the smallest face holding it."""
    from itertools import combinations
    best: tuple[float, np.ndarray, list[np.ndarray]] | None = None
    for size in range(1, len(simplex) + 1):
        for face in combinations(simplex, size):
            found = _nearest_on_face(np.array(face))
            if found is None:
                continue
            distance_sq = float(found @ found)
            if best is None or distance_sq < best[0] - 1e-15:
                best = (distance_sq, found, list(face))
    assert best is not None   # every single point is a face
    return best[1], best[2]


def _nearest_on_face(face: np.ndarray) -> np.ndarray | None:
    """The origin's projection onto the face's affine hull if it lies inside the face."""
    if len(face) == 1:
        return face[0]
    edges = (face[1:] - face[0]).T                       # 3 x (k-1)
    weights, *_ = np.linalg.lstsq(edges, -face[0], rcond=None)
    barycentric = np.concatenate([[1.0 - weights.sum()], weights])
    if (barycentric < -1e-12).any():
        return None
    return face[0] + edges @ weights
