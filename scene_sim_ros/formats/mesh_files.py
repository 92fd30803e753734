"""Triangle meshes from the files robot formats name (.obj, .stl, .dae, .ply) through trimesh
(pycollada reads Collada), as the model's inline :class:`~scene_sim_ros.scene.geometry.Mesh`.

A file holding several meshes (an .obj with groups, a Collada scene) becomes one mesh, with the
scene graph's transforms applied, as Webots merges them. Per-vertex texture coordinates are
kept where the file has them (normals are left to the renderer). One that cannot be read raises
:class:`MeshFileError` with a message that names the file and the reason, never its content.

Parsing is the slow part of loading a robot with meshes (trimesh's import alone takes a third
of a second), so a parsed mesh is kept twice: per path and modification time in the process,
and as ``.npz`` in the user cache (``parsed-meshes/`` under ``$SCENE_SIM_ROS_CACHE_DIR`` or the
platform's cache folder), named by a digest of the file's bytes, so that every later load of
that content (from any path, in any process) skips the parser.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from ..scene.geometry import Mesh

MESH_SUFFIXES = frozenset({'.obj', '.stl', '.dae', '.ply'})
PARSE_VERSION = b'1'  # part of the digest: change it when parsing changes what a file gives


def parsed_mesh_dir() -> Path:
    root = os.environ.get('SCENE_SIM_ROS_CACHE_DIR')
    base = Path(root).expanduser() if root else platformdirs.user_cache_path('scene_sim_ros')
    return base / 'parsed-meshes'


class MeshFileError(Exception):
    """A mesh file is missing, unreadable or holds no triangles."""


def read_mesh_file(path: Path) -> Mesh:
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as err:
        raise MeshFileError(f'{path}: cannot read ({err.strerror})') from None
    return _read(path.resolve(), stamp)


@functools.lru_cache(maxsize=256)
def _read(path: Path, stamp: int) -> Mesh:
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise MeshFileError(f'{path}: unknown mesh format {suffix or "(no suffix)"} '
                            f'(readable: {", ".join(sorted(MESH_SUFFIXES))})')
    try:
        content = path.read_bytes()
    except OSError as err:
        raise MeshFileError(f'{path}: cannot read ({err.strerror})') from None
    digest = hashlib.blake2b(content + suffix.encode() + PARSE_VERSION, digest_size=16)
    stored = parsed_mesh_dir() / f'{digest.hexdigest()}.npz'
    mesh = _load_parsed(stored, path.name)
    if mesh is None:
        mesh = _parse(path, suffix)
        _store_parsed(stored, mesh)
    return mesh


def _load_parsed(stored: Path, name: str) -> Mesh | None:
    try:
        with np.load(stored) as arrays:
            texcoords = arrays['texcoords']
            return Mesh(arrays['vertices'], arrays['triangles'],
                        texcoords=texcoords if len(texcoords) else None, name=name)
    except (OSError, ValueError, KeyError):  # absent, or half a file from a crashed writer
        return None


def _store_parsed(stored: Path, mesh: Mesh) -> None:
    texcoords = mesh.texcoords if mesh.texcoords is not None else np.empty((0, 2))
    partial = stored.with_name(f'{stored.stem}.{os.getpid()}.part.npz')
    try:
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.savez(partial, vertices=mesh.vertices, triangles=mesh.triangles, texcoords=texcoords)
        os.replace(partial, stored)
    except OSError:
        partial.unlink(missing_ok=True)  # a read-only cache only costs the next load the parse


def _parse(path: Path, suffix: str) -> Mesh:
    import trimesh  # a second or so to import: only when a scene has mesh files
    logging.getLogger('trimesh').setLevel(logging.ERROR)
    try:
        loaded = trimesh.load(str(path), process=False)
    except Exception as err:  # noqa: BLE001 - every reader fails in its own way
        raise MeshFileError(f'{path}: cannot read as {suffix} ({type(err).__name__})') from None
    meshes = _triangle_meshes(loaded, trimesh)
    if not meshes:
        raise MeshFileError(f'{path}: holds no triangles')
    return _merged(meshes, path.name)


def _triangle_meshes(loaded: Any, trimesh: Any) -> list[Any]:
    scene_type = trimesh.Scene
    mesh_type = trimesh.Trimesh
    if isinstance(loaded, scene_type):
        parts = loaded.dump()  # each geometry instance with its scene-graph transform applied
        return [m for m in parts if isinstance(m, mesh_type) and len(m.faces)]
    if isinstance(loaded, mesh_type) and len(loaded.faces):
        return [loaded]
    return []


def _merged(meshes: list[Any], name: str) -> Mesh:
    vertices: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    texcoords: list[np.ndarray | None] = []
    offset = 0
    for mesh in meshes:
        vertices.append(np.asarray(mesh.vertices, dtype=np.float64))
        triangles.append(np.asarray(mesh.faces, dtype=np.int64) + offset)
        offset += len(mesh.vertices)
        texcoords.append(_uv(mesh))
    return Mesh(np.concatenate(vertices), np.concatenate(triangles),
                texcoords=_all_or_none(texcoords),
                name=name)


def _all_or_none(parts: list[np.ndarray | None]) -> np.ndarray | None:
    present = [p for p in parts if p is not None]
    return np.concatenate(present) if len(present) == len(parts) else None


def _uv(mesh: Any) -> np.ndarray | None:
    uv = getattr(getattr(mesh, 'visual', None), 'uv', None)
    vertices = np.asarray(mesh.vertices)
    if uv is None or len(uv) != len(vertices):
        return None
    return np.asarray(uv, dtype=np.float64)[:, :2]
