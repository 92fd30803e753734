"""Triangle meshes as files, and meshes generated for shapes that have no primitive.

No PyBullet here: the URDF exporter (``scene-sim-ros urdf``) uses it without a simulator.
Files are named by the mesh's content digest, so every process and every instance of a mesh
shares one file, written atomically on first use.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np

from scene_sim_ros.scene import Heightfield, Mesh, Torus

TORUS_SEGMENTS = 16
TORUS_SIDES = 12
PLANE_VISUAL_SIZE = 200.0
"""An infinite plane is drawn as a slab this wide (m) and this thick, by every renderer."""
PLANE_VISUAL_THICKNESS = 0.002


def default_mesh_dir() -> Path:
    """Where inline meshes are written (``$SCENE_SIM_ROS_MESH_DIR`` or a temp-dir folder)."""
    return Path(os.environ.get('SCENE_SIM_ROS_MESH_DIR')
                or Path(tempfile.gettempdir()) / 'scene_sim_ros_meshes')


def write_obj(mesh: Mesh, path: Path) -> None:
    """Write ``mesh`` as a Wavefront .obj file (vertices, texture coordinates, normals, faces)."""
    lines = [f'# {mesh.name or "mesh"} {mesh.digest}']
    lines += [f'v {x:.9g} {y:.9g} {z:.9g}' for x, y, z in mesh.vertices]
    # per-vertex attributes only: one of another length is left out
    uv, normals = (a if a is not None and len(a) == len(mesh.vertices) else None
                   for a in (mesh.texcoords, mesh.normals))
    has_uv, has_normals = uv is not None, normals is not None
    if uv is not None:
        lines += [f'vt {u:.9g} {v:.9g}' for u, v in uv]
    if normals is not None:
        lines += [f'vn {x:.9g} {y:.9g} {z:.9g}' for x, y, z in normals]
    for a, b, c in mesh.triangles + 1:
        if has_uv and has_normals:
            lines.append(f'f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}')
        elif has_uv:
            lines.append(f'f {a}/{a} {b}/{b} {c}/{c}')
        elif has_normals:
            lines.append(f'f {a}//{a} {b}//{b} {c}//{c}')
        else:
            lines.append(f'f {a} {b} {c}')
    tmp = path.with_suffix(f'.{os.getpid()}.tmp')
    tmp.write_text('\n'.join(lines) + '\n', encoding='ascii')
    tmp.replace(path)  # atomic: a concurrent reader never sees half a file


def mesh_file(mesh: Mesh, directory: Path) -> Path:
    """The .obj file of ``mesh`` in ``directory``, written on first use (named by its digest)."""
    path = directory / f'{mesh.digest}.obj'
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        write_obj(mesh, path)
    return path


def torus_mesh(major_radius: float, minor_radius: float, segments: int = TORUS_SEGMENTS * 2,
               sides: int = TORUS_SIDES) -> Mesh:
    """A closed triangle mesh of a torus around z (for drawing and URDF export)."""
    u = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
    v = np.linspace(0.0, 2.0 * math.pi, sides, endpoint=False)
    uu, vv = np.meshgrid(u, v, indexing='ij')
    ring = major_radius + minor_radius * np.cos(vv)
    vertices = np.stack([ring * np.cos(uu), ring * np.sin(uu), minor_radius * np.sin(vv)], -1)
    i, j = np.meshgrid(np.arange(segments), np.arange(sides), indexing='ij')
    a = i * sides + j
    b = ((i + 1) % segments) * sides + j
    c = ((i + 1) % segments) * sides + (j + 1) % sides
    d = i * sides + (j + 1) % sides
    triangles = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3),
                                np.stack([a, c, d], -1).reshape(-1, 3)])
    return Mesh(vertices.reshape(-1, 3), triangles, name='torus')


def torus_segments(torus: Torus) -> list[Mesh]:
    """Convex pieces of a torus: each the hull of two neighbouring ring cross-sections."""
    pieces = []
    v = np.linspace(0.0, 2.0 * math.pi, TORUS_SIDES, endpoint=False)
    for k in range(TORUS_SEGMENTS):
        points = []
        for angle in (2 * math.pi * k / TORUS_SEGMENTS, 2 * math.pi * (k + 1) / TORUS_SEGMENTS):
            ring = torus.major_radius + torus.minor_radius * np.cos(v)
            points.append(np.stack([ring * math.cos(angle), ring * math.sin(angle),
                                    torus.minor_radius * np.sin(v)], -1))
        vertices = np.concatenate(points)
        # a fan over the points is enough: PyBullet takes the convex hull of a collision mesh
        triangles = np.array([[0, i, i + 1] for i in range(1, len(vertices) - 1)])
        pieces.append(Mesh(vertices, triangles, name='torus-segment'))
    return pieces


def heightfield_mesh(field: Heightfield) -> Mesh:
    """The surface of a height field as triangles (centred on its frame, like the model)."""
    rows, columns = field.heights.shape
    x = np.linspace(-field.size_x / 2.0, field.size_x / 2.0, columns)
    y = np.linspace(-field.size_y / 2.0, field.size_y / 2.0, rows)
    xx, yy = np.meshgrid(x, y)
    vertices = np.stack([xx, yy, field.heights], -1).reshape(-1, 3)
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(columns - 1), indexing='ij')
    a = r * columns + c
    triangles = np.concatenate([np.stack([a, a + 1, a + columns + 1], -1).reshape(-1, 3),
                                np.stack([a, a + columns + 1, a + columns], -1).reshape(-1, 3)])
    return Mesh(vertices, triangles, name='heightfield')
