"""Mesh files the GL renderer reads itself: Wavefront .obj and .stl (binary or ASCII).

Only what drawing needs: positions, triangles (polygons fanned), per-corner normals and
texture coordinates where every corner of the file has them. Files are read once per process.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from scene_sim_ros.scene import Mesh


@functools.lru_cache(maxsize=256)
def read_mesh_file(path: Path) -> Mesh | None:
    """The mesh in ``path`` (None for other formats or unreadable files)."""
    suffix = path.suffix.lower()
    try:
        if suffix == '.obj':
            return _read_obj(path)
        if suffix == '.stl':
            return _read_stl(path)
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_obj(path: Path) -> Mesh:
    positions: list[list[float]] = []
    uvs: list[list[float]] = []
    normals: list[list[float]] = []
    corners: list[tuple[int, int, int]] = []  # (position, uv, normal) indices, -1 when absent
    for line in path.read_text(errors='replace').splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == 'v':
            positions.append([float(x) for x in fields[1:4]])
        elif fields[0] == 'vt':
            uvs.append([float(x) for x in fields[1:3]])
        elif fields[0] == 'vn':
            normals.append([float(x) for x in fields[1:4]])
        elif fields[0] == 'f':
            polygon = [_obj_corner(f, len(positions), len(uvs), len(normals)) for f in fields[1:]]
            for i in range(1, len(polygon) - 1):
                corners += [polygon[0], polygon[i], polygon[i + 1]]
    table = np.array(corners, dtype=np.int64).reshape(-1, 3)
    vertices = np.array(positions, dtype=np.float64)[table[:, 0]]
    has_uv = len(uvs) and (table[:, 1] >= 0).all()
    has_normals = len(normals) and (table[:, 2] >= 0).all()
    return Mesh(vertices, np.arange(len(vertices)).reshape(-1, 3),
                np.array(normals)[table[:, 2]] if has_normals else None,
                np.array(uvs)[table[:, 1]] if has_uv else None, name=path.stem)


def _obj_corner(text: str, n_positions: int, n_uvs: int, n_normals: int) -> tuple[int, int, int]:
    parts = (text.split('/') + ['', ''])[:3]

    def index(value: str, count: int) -> int:
        if not value:
            return -1
        i = int(value)
        return i - 1 if i > 0 else count + i

    return (index(parts[0], n_positions), index(parts[1], n_uvs), index(parts[2], n_normals))


def _read_stl(path: Path) -> Mesh:
    data = path.read_bytes()
    if data[:5].lower() == b'solid' and b'facet' in data[:1024]:
        numbers = [float(x) for line in data.decode(errors='replace').splitlines()
                   if line.strip().startswith('vertex') for x in line.split()[1:4]]
        vertices = np.array(numbers).reshape(-1, 3)
    else:
        count = int(np.frombuffer(data, dtype='<u4', count=1, offset=80)[0])
        record = np.dtype([('normal', '<f4', 3), ('corners', '<f4', (3, 3)), ('attr', '<u2')])
        facets = np.frombuffer(data, dtype=record, count=count, offset=84)
        vertices = facets['corners'].reshape(-1, 3).astype(np.float64)
    return Mesh(vertices, np.arange(len(vertices)).reshape(-1, 3), name=path.stem)
