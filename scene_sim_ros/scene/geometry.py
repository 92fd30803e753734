"""Shapes used for collision and appearance, in metres, centred on their own frame.

Primitive conventions (the same as URDF/PyBullet): ``Box.size`` holds the full extents along
x, y and z; ``Cylinder`` and ``Capsule`` lie along z, and a capsule's ``length`` is the
cylindrical part between the centres of its two caps; ``Torus`` lies in the xy plane around z;
``Plane`` is the infinite plane z = 0 of its frame, solid below.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, overload

import numpy as np

from .transforms import Vec3

RGBA = tuple[float, float, float, float]
WHITE: RGBA = (1.0, 1.0, 1.0, 1.0)
GREY: RGBA = (0.7, 0.7, 0.7, 1.0)


@dataclass(frozen=True, slots=True)
class Box:
    size: Vec3
    kind: ClassVar[str] = 'box'


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float
    kind: ClassVar[str] = 'sphere'


@dataclass(frozen=True, slots=True)
class Cylinder:
    radius: float
    length: float
    kind: ClassVar[str] = 'cylinder'


@dataclass(frozen=True, slots=True)
class Capsule:
    radius: float
    length: float
    kind: ClassVar[str] = 'capsule'


@dataclass(frozen=True, slots=True)
class Torus:
    major_radius: float
    minor_radius: float
    kind: ClassVar[str] = 'torus'


@dataclass(frozen=True, slots=True)
class Plane:
    kind: ClassVar[str] = 'plane'


@overload
def _frozen(array: np.ndarray, dtype: type) -> np.ndarray: ...
@overload
def _frozen(array: np.ndarray | None, dtype: type) -> np.ndarray | None: ...


def _frozen(array: np.ndarray | None, dtype: type) -> np.ndarray | None:
    if array is None:
        return None
    out: np.ndarray = np.ascontiguousarray(array, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, slots=True, eq=False)
class Mesh:
    """An inline triangle mesh.

    ``vertices`` (N, 3) float64 metres, ``triangles`` (M, 3) int32 vertex indices (counter-
    clockwise seen from outside), optional per-vertex ``normals`` (N, 3) and ``texcoords`` (N, 2).
    Equality and hashing go by content, so two loads of one definition compare equal and a
    simulator can share one collision/visual shape between all instances (``digest`` is the key).
    """

    vertices: np.ndarray
    triangles: np.ndarray
    normals: np.ndarray | None = None
    texcoords: np.ndarray | None = None
    name: str = ''
    digest: str = ''
    kind: ClassVar[str] = 'mesh'

    def __post_init__(self) -> None:
        object.__setattr__(self, 'vertices', _frozen(self.vertices, np.float64).reshape(-1, 3))
        object.__setattr__(self, 'triangles', _frozen(self.triangles, np.int32).reshape(-1, 3))
        object.__setattr__(self, 'normals', _frozen(self.normals, np.float64))
        object.__setattr__(self, 'texcoords', _frozen(self.texcoords, np.float64))
        if not self.digest:
            h = hashlib.blake2b(digest_size=16)
            for part in (self.vertices, self.triangles, self.normals, self.texcoords):
                h.update(b'|' if part is None else part.tobytes())
            object.__setattr__(self, 'digest', h.hexdigest())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mesh) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return (f'Mesh(name={self.name!r}, vertices={len(self.vertices)}, '
                f'triangles={len(self.triangles)}, digest={self.digest[:8]})')


@dataclass(frozen=True, slots=True)
class MeshFile:
    """A mesh in a file the simulator reads itself (.obj, .stl, .dae), scaled per axis."""

    path: Path
    scale: Vec3 = (1.0, 1.0, 1.0)
    kind: ClassVar[str] = 'mesh_file'


@dataclass(frozen=True, slots=True, eq=False)
class Heightfield:
    """A height map: ``heights`` (rows along y, columns along x) in metres, centred on its frame.

    ``size_x``/``size_y`` are the extents covered by the grid.
    """

    heights: np.ndarray
    size_x: float
    size_y: float
    digest: str = ''
    kind: ClassVar[str] = 'heightfield'

    def __post_init__(self) -> None:
        heights = _frozen(self.heights, np.float64)
        if heights is None or heights.ndim != 2:
            raise ValueError('heightfield heights must be a 2-D array')
        object.__setattr__(self, 'heights', heights)
        if not self.digest:
            h = hashlib.blake2b(heights.tobytes(), digest_size=16)
            h.update(f'{heights.shape}{self.size_x}{self.size_y}'.encode())
            object.__setattr__(self, 'digest', h.hexdigest())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Heightfield) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)


Shape = Box | Sphere | Cylinder | Capsule | Torus | Plane | Mesh | MeshFile | Heightfield
