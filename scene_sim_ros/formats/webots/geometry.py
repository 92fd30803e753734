"""Webots geometry nodes -> model shapes, and the mass properties of bounding objects.

Since R2022a Webots cylinders and capsules lie along their local z axis and planes span x-y
(normal +z), as in our model. Before R2022a they lay along y and planes spanned x-z: those
shapes get an extra rotation (z -> y) in the old worlds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...scene.geometry import Box, Capsule, Cylinder, Heightfield, Mesh, Plane, Shape, Sphere
from ...scene.inertia import ZERO_INERTIA, Inertia6, box_inertia, primitive_inertia
from ...scene.transforms import IDENTITY, Pose, quat_conjugate, quat_from_axis_angle, quat_rotate
from ..mesh_files import MeshFileError, read_mesh_file
from .nodes import Node

WEBOTS_MESH_SUFFIXES = frozenset({'.dae', '.obj', '.stl'})

Y_TO_Z = Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), -math.pi / 2.0))  # maps z to y


@dataclass(frozen=True, slots=True)
class GeometryContext:
    y_up: bool  # a world written before R2022a
    resolve_url: Callable[[Node, str], Path | None]
    warn: Callable[[Node, str], None]


def _along_axis(context: GeometryContext) -> Pose:
    return Y_TO_Z if context.y_up else IDENTITY


def _box(node: Node, context: GeometryContext) -> tuple[Shape, Pose]:
    return Box(node.vec3('size', (0.1, 0.1, 0.1))), IDENTITY


def _sphere(node: Node, context: GeometryContext) -> tuple[Shape, Pose]:
    return Sphere(node.float('radius', 0.1)), IDENTITY


def _cylinder(node: Node, context: GeometryContext) -> tuple[Shape, Pose]:
    return Cylinder(node.float('radius', 0.1), node.float('height', 0.1)), _along_axis(context)


def _capsule(node: Node, context: GeometryContext) -> tuple[Shape, Pose]:
    return Capsule(node.float('radius', 0.1), node.float('height', 0.1)), _along_axis(context)


def _plane(node: Node, context: GeometryContext) -> tuple[Shape, Pose]:
    return Plane(), _along_axis(context)


def _indexed_face_set(node: Node, context: GeometryContext) -> tuple[Shape | None, Pose]:
    coordinate = node.node('coord')
    points = coordinate.mf_vec('point', 3) if coordinate is not None else []
    indices = [int(i) for i in node.mf_numbers('coordIndex')]
    triangles: list[tuple[int, int, int]] = []
    face: list[int] = []
    for index in [*indices, -1]:
        if index >= 0:
            face.append(index)
            continue
        triangles.extend((face[0], face[k], face[k + 1]) for k in range(1, len(face) - 1))
        face = []
    if not points or not triangles:
        context.warn(node, 'IndexedFaceSet without points or faces is ignored')
        return None, IDENTITY
    if max(max(t) for t in triangles) >= len(points):
        raise node.error('IndexedFaceSet.coordIndex refers to a point that does not exist',
                         'coordIndex')
    array = np.array(triangles, dtype=np.int32)
    if not node.bool('ccw', True):
        array = array[:, ::-1]
    return Mesh(np.array(points, dtype=np.float64), array, name=node.def_name or ''), IDENTITY


def _mesh(node: Node, context: GeometryContext) -> tuple[Shape | None, Pose]:
    """A Mesh file as Webots reads it (.dae, .obj, .stl; several meshes merged into one)."""
    for url in node.strings('url'):
        if Path(url.split('?')[0]).suffix.lower() not in WEBOTS_MESH_SUFFIXES:
            context.warn(node, f'Mesh url {url!r}: Webots reads only '
                         f'{", ".join(sorted(WEBOTS_MESH_SUFFIXES))} files; ignored')
            continue
        path = context.resolve_url(node, url)  # warns where it is not found
        if path is None:
            continue
        try:
            mesh = read_mesh_file(path)
        except MeshFileError as err:
            context.warn(node, f'Mesh {err}; ignored')
            continue
        if not node.bool('ccw', True):
            mesh = Mesh(mesh.vertices, mesh.triangles[:, ::-1], texcoords=mesh.texcoords,
                        name=mesh.name)
        return mesh, IDENTITY
    if not node.strings('url'):
        context.warn(node, 'Mesh without url; ignored')
    return None, IDENTITY


def _elevation_grid(node: Node, context: GeometryContext) -> tuple[Shape | None, Pose]:
    if context.y_up:
        context.warn(node, 'ElevationGrid of a world before R2022a is not supported; ignored')
        return None, IDENTITY
    columns, rows = node.int('xDimension', 0), node.int('yDimension', 0)
    heights = node.mf_numbers('height')
    if columns < 2 or rows < 2 or len(heights) < columns * rows:
        context.warn(node, 'ElevationGrid needs xDimension, yDimension >= 2 and their product '
                     'of heights; ignored')
        return None, IDENTITY
    dx, dy = node.float('xSpacing', 1.0), node.float('ySpacing', 1.0)
    size_x, size_y = (columns - 1) * dx, (rows - 1) * dy
    grid = np.array(heights[:columns * rows], dtype=np.float64).reshape(rows, columns)
    # Webots grids start at the node origin; ours are centred on their frame
    return Heightfield(grid, size_x, size_y), Pose((size_x / 2.0, size_y / 2.0, 0.0))


GEOMETRY_HANDLERS: dict[str, Callable[[Node, GeometryContext], tuple[Shape | None, Pose]]] = {
    'Box': _box,
    'Sphere': _sphere,
    'Cylinder': _cylinder,
    'Capsule': _capsule,
    'Plane': _plane,
    'IndexedFaceSet': _indexed_face_set,
    'Mesh': _mesh,
    'ElevationGrid': _elevation_grid,
}


def scaled(shape: Shape, factor: tuple[float, float, float], extra: Pose
           ) -> tuple[Shape | None, str]:
    """``shape`` under a ``Transform.scale`` of ``factor`` (in the Transform's frame; ``extra``
    is the shape's own rotation in it), or ``None`` and why it cannot be scaled so."""
    rotated = quat_rotate(quat_conjugate(extra.orientation), factor)
    sx, sy, sz = (abs(c) for c in rotated) if extra != IDENTITY else factor
    if isinstance(shape, Mesh):
        vertices = shape.vertices * np.array([sx, sy, sz])
        flip = (sx < 0) ^ (sy < 0) ^ (sz < 0)  # a mirror turns the faces inside out
        return Mesh(vertices, shape.triangles[:, ::-1] if flip else shape.triangles,
                    texcoords=shape.texcoords, name=shape.name), ''
    if isinstance(shape, Box):
        x, y, z = shape.size
        return Box((x * abs(sx), y * abs(sy), z * abs(sz))), ''
    if isinstance(shape, Sphere) and abs(sx) == abs(sy) == abs(sz):
        return Sphere(shape.radius * abs(sx)), ''
    if isinstance(shape, (Cylinder, Capsule)) and abs(sx) == abs(sy):
        return type(shape)(shape.radius * abs(sx), shape.length * abs(sz)), ''
    return None, f'a {shape.kind} cannot take the scale {factor} (Webots needs it uniform)'


def plane_visual(node: Node) -> Box:
    """Webots draws a plane of ``size``; its collision is infinite."""
    x, y = node.floats('size', 2, (1.0, 1.0))
    return Box((x, y, 1e-3))


def volume(shape: Shape) -> float:
    if isinstance(shape, Box):
        return shape.size[0] * shape.size[1] * shape.size[2]
    if isinstance(shape, Sphere):
        return 4.0 / 3.0 * math.pi * shape.radius * shape.radius * shape.radius
    if isinstance(shape, Cylinder):
        return math.pi * shape.radius * shape.radius * shape.length
    if isinstance(shape, Capsule):
        return math.pi * shape.radius * shape.radius * (shape.length + 4.0 / 3.0 * shape.radius)
    if isinstance(shape, Mesh):
        v, t = shape.vertices, shape.triangles
        signed = np.einsum('ij,ij->i', v[t[:, 0]], np.cross(v[t[:, 1]], v[t[:, 2]])).sum() / 6.0
        return abs(float(signed))
    return 0.0


def inertia_of(shape: Shape, mass: float) -> Inertia6:
    """Inertia about the shape's centroid (meshes: that of their bounding box)."""
    primitive = primitive_inertia(shape, mass)
    if primitive is not None:
        return primitive
    if isinstance(shape, Mesh):
        extent = shape.vertices.max(axis=0) - shape.vertices.min(axis=0)
        return box_inertia(mass, (float(extent[0]), float(extent[1]), float(extent[2])))
    return ZERO_INERTIA


def centroid_of(shape: Shape) -> tuple[float, float, float]:
    if isinstance(shape, Mesh):
        centre = (shape.vertices.max(axis=0) + shape.vertices.min(axis=0)) / 2.0
        return (float(centre[0]), float(centre[1]), float(centre[2]))
    return (0.0, 0.0, 0.0)

