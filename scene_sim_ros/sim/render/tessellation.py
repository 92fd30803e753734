"""Triangles for every visual shape of the scene model, in the shape's own frame.

Round primitives get as many segments around as keep the tessellated surface within
:data:`CHORD_ERROR` (0.25 mm) of the true one (:func:`segments_for`), between
:data:`MIN_SEGMENTS` and a cap that bounds the triangle count; so depth images agree with the
exact primitives of the physics (and its ray tests) to well under a millimetre. Far shapes are
drawn with fewer segments (:func:`.lod.round_levels`). Meshes without normals get flat normals
(their vertices are split per triangle), as PyBullet draws them. (Shared vertices with normals
from screen-space derivatives in the fragment shader were measured 1.5-2x slower on llvmpipe:
Game.ros2 overview, 94k triangles.) A ``Plane`` is drawn as the same thin 200 m box the
PyBullet path uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scene_sim_ros.scene import Box, Capsule, Cylinder, Heightfield, Mesh, MeshFile, Plane, Sphere, Torus
from scene_sim_ros.scene.geometry import Shape
from scene_sim_ros.sim.meshes import PLANE_VISUAL_SIZE, PLANE_VISUAL_THICKNESS, heightfield_mesh, torus_mesh
from scene_sim_ros.sim.render.meshfiles import read_mesh_file

CHORD_ERROR = 0.25e-3
"""Largest distance (m) between a round primitive's triangles and its true surface."""
MIN_SEGMENTS = 24
MAX_SEGMENTS = 256
"""Around a sphere or capsule: at most 256 x 128 x 2 = 65,536 triangles (a sphere of radius
up to 1.6 m within :data:`CHORD_ERROR`)."""
MAX_CYLINDER_SEGMENTS = 1024
"""Around a cylinder (4 triangles per segment): radius up to 53 m within :data:`CHORD_ERROR`."""


@dataclass(frozen=True)
class Triangles:
    """Vertex arrays ready for upload: positions, normals (N, 3) and uvs (N, 2) float32,
    indices (M, 3) uint32."""

    positions: np.ndarray
    normals: np.ndarray
    uvs: np.ndarray
    indices: np.ndarray

    @property
    def bounding_sphere(self) -> tuple[np.ndarray, float]:
        """Centre (of the bounding box) and radius enclosing every vertex."""
        if not len(self.positions):
            return np.zeros(3), 0.0
        low, high = self.positions.min(axis=0), self.positions.max(axis=0)
        centre = (low + high) / 2.0
        return centre, float(np.linalg.norm(self.positions - centre, axis=1).max())


def triangles_of(shape: Shape) -> Triangles | None:
    """The triangles that draw ``shape`` (None for shapes without a surface or a readable file)."""
    if isinstance(shape, Box):
        return box(np.asarray(shape.size) / 2.0)
    if isinstance(shape, Plane):
        half = PLANE_VISUAL_SIZE / 2.0
        t = PLANE_VISUAL_THICKNESS / 2.0
        b = box(np.array([half, half, t]))
        return Triangles(b.positions - np.array([0.0, 0.0, t], np.float32), b.normals, b.uvs,
                         b.indices)
    if isinstance(shape, (Sphere, Cylinder, Capsule)):
        return round_shape(shape, segments_for(shape))
    if isinstance(shape, Torus):
        return from_mesh(torus_mesh(shape.major_radius, shape.minor_radius), smooth=False)
    if isinstance(shape, Heightfield):
        return from_mesh(heightfield_mesh(shape), smooth=False)
    if isinstance(shape, Mesh):
        return from_mesh(shape)
    if isinstance(shape, MeshFile):
        mesh = read_mesh_file(shape.path)
        if mesh is None:
            return None
        scaled = Mesh(mesh.vertices * np.asarray(shape.scale), mesh.triangles,
                      None if mesh.normals is None else mesh.normals / np.asarray(shape.scale),
                      mesh.texcoords)
        return from_mesh(scaled)
    return None


def segments_for(shape: Sphere | Cylinder | Capsule, error: float = CHORD_ERROR) -> int:
    """Segments around ``shape`` (a multiple of 4) that keep :func:`chord_error` <= ``error``."""
    ratio = min(error / shape.radius, 1.0) if shape.radius > 0.0 else 1.0
    if isinstance(shape, Cylinder):
        needed, cap = math.pi / math.acos(1.0 - ratio), MAX_CYLINDER_SEGMENTS
    else:
        needed, cap = math.pi / math.asin(math.sqrt(ratio)), MAX_SEGMENTS
    return int(min(max(4 * math.ceil(needed / 4.0 - 1e-9), MIN_SEGMENTS), cap))


def chord_error(shape: Sphere | Cylinder | Capsule, segments: int) -> float:
    """How far inside the true surface the triangles of ``shape`` reach at most: a cylinder's
    side by the sagitta r (1 - cos(pi/n)) of its segments; a sphere (or a capsule's ends) at
    the centre of its cells at the equator, whose four corners lie in one plane at
    r cos^2(pi/n) from the centre, by r sin^2(pi/n)."""
    if isinstance(shape, Cylinder):
        return shape.radius * (1.0 - math.cos(math.pi / segments))
    return shape.radius * math.sin(math.pi / segments) ** 2


def round_shape(shape: Sphere | Cylinder | Capsule, segments: int) -> Triangles:
    """``shape`` with ``segments`` (a multiple of 4) around its axis."""
    if isinstance(shape, Sphere):
        return sphere(shape.radius, segments)
    if isinstance(shape, Cylinder):
        return cylinder(shape.radius, shape.length, segments)
    return capsule(shape.radius, shape.length, segments)


def from_mesh(mesh: Mesh, smooth: bool = True) -> Triangles:
    """Per-vertex normals where the mesh has them (and ``smooth``), else flat ones. Only the
    vertices the triangles use are kept (SimRobot appearances share one vertex list)."""
    n = len(mesh.vertices)
    used, triangles = np.unique(np.asarray(mesh.triangles).reshape(-1), return_inverse=True)
    triangles = triangles.reshape(-1, 3).astype(np.uint32)
    vertices = np.asarray(mesh.vertices, dtype=np.float32)[used]
    uvs = (np.asarray(mesh.texcoords, dtype=np.float32)[used]
           if mesh.texcoords is not None and len(mesh.texcoords) == n else None)
    n = len(vertices)
    if smooth and mesh.normals is not None and len(mesh.normals) == len(mesh.vertices):
        normals = _unit(np.asarray(mesh.normals, dtype=np.float32)[used])
        return Triangles(vertices, normals, uvs if uvs is not None else np.zeros((n, 2), np.float32),
                         triangles)
    return flat(vertices, triangles, uvs)


def flat(vertices: np.ndarray, triangles: np.ndarray, uvs: np.ndarray | None = None) -> Triangles:
    """Vertices split per triangle, each with its face normal."""
    corners = vertices[triangles]  # (M, 3, 3)
    normal = _unit(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]))
    positions = corners.reshape(-1, 3).astype(np.float32)
    normals = np.repeat(normal, 3, axis=0).astype(np.float32)
    flat_uvs = (uvs[triangles].reshape(-1, 2) if uvs is not None
                else np.zeros((len(positions), 2), np.float32))
    indices = np.arange(len(positions), dtype=np.uint32).reshape(-1, 3)
    return Triangles(positions, normals, flat_uvs.astype(np.float32), indices)


def box(half: np.ndarray) -> Triangles:
    positions: list[np.ndarray] = []
    normals: list[np.ndarray] = []
    uvs: list[tuple[float, float]] = []
    indices: list[tuple[int, int, int]] = []
    for axis in range(3):
        for sign in (1.0, -1.0):
            u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
            normal = np.zeros(3)
            normal[axis] = sign
            base = len(positions)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis] = sign * half[axis]
                p[u_axis] = du * half[u_axis]
                p[v_axis] = dv * half[v_axis] * sign  # mirrored so that faces wind outwards
                positions.append(p)
                normals.append(normal)
                uvs.append(((du + 1) / 2, (dv + 1) / 2))
            indices += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return Triangles(np.array(positions, np.float32), np.array(normals, np.float32),
                     np.array(uvs, np.float32), np.array(indices, np.uint32))


def _grid_indices(rows: int, columns: int, offset: int = 0) -> np.ndarray:
    """Two triangles per cell of a (rows+1) x (columns+1) vertex grid (row-major)."""
    r, c = np.meshgrid(np.arange(rows), np.arange(columns), indexing='ij')
    a = offset + r * (columns + 1) + c
    b, d = a + 1, a + columns + 1
    return np.concatenate([np.stack([a, d + 1, b], -1).reshape(-1, 3),
                           np.stack([a, d, d + 1], -1).reshape(-1, 3)]).astype(np.uint32)


def _surface_of_revolution(profile: np.ndarray, profile_normals: np.ndarray,
                           segments: int) -> Triangles:
    """Revolve (radius, z) ``profile`` points around z (counter-clockwise from outside)."""
    angle = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    cos, sin = np.cos(angle)[None, :], np.sin(angle)[None, :]
    r, z = profile[:, :1], profile[:, 1:]
    nr, nz = profile_normals[:, :1], profile_normals[:, 1:]
    positions = np.stack([r * cos, r * sin, np.broadcast_to(z, (len(r), segments + 1))], -1)
    normals = np.stack([nr * cos, nr * sin, np.broadcast_to(nz, (len(r), segments + 1))], -1)
    v, u = np.meshgrid(np.linspace(0.0, 1.0, len(r)), np.linspace(0.0, 1.0, segments + 1),
                       indexing='ij')
    return Triangles(positions.reshape(-1, 3).astype(np.float32),
                     normals.reshape(-1, 3).astype(np.float32),
                     np.stack([u, v], -1).reshape(-1, 2).astype(np.float32),
                     _grid_indices(len(r) - 1, segments))


def sphere(radius: float, segments: int) -> Triangles:
    theta = np.linspace(0.0, math.pi, segments // 2 + 1)  # from the north pole down
    unit = np.stack([np.sin(theta), np.cos(theta)], -1)
    return _surface_of_revolution(unit * radius, unit, segments)


def cylinder(radius: float, length: float, segments: int) -> Triangles:
    h = length / 2.0
    profile = np.array([[0.0, h], [radius, h], [radius, h], [radius, -h], [radius, -h],
                        [0.0, -h]])
    normals = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0], [0.0, -1.0],
                        [0.0, -1.0]])
    return _surface_of_revolution(profile, normals, segments)


def capsule(radius: float, length: float, segments: int) -> Triangles:
    quarter = segments // 4
    top = np.linspace(0.0, math.pi / 2.0, quarter + 1)
    bottom = np.linspace(math.pi / 2.0, math.pi, quarter + 1)
    unit = np.concatenate([np.stack([np.sin(top), np.cos(top)], -1),
                           np.stack([np.sin(bottom), np.cos(bottom)], -1)])
    shift = np.concatenate([np.full(quarter + 1, length / 2.0), np.full(quarter + 1, -length / 2.0)])
    profile = unit * radius + np.stack([np.zeros_like(shift), shift], -1)
    return _surface_of_revolution(profile, unit, segments)


def _unit(vectors: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.where(length > 0.0, length, 1.0)).astype(np.float32)
