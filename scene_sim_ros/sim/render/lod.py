"""Levels of detail for large meshes, made once at load with fast-simplification.

A mesh of at least :data:`MIN_TRIANGLES` triangles gets coarser versions with
:data:`LEVEL_FRACTIONS` of its triangles. Each level records its geometric error: the largest
distance from an original vertex to the nearest vertex of the level (an upper bound of that
vertex's distance to the simplified surface). A level is drawn only where that error projects to
at most :data:`MAX_ERROR_PIXELS` pixels, so a far mesh changes depth by at most its level's
error (:attr:`Level.error`) and its image by less than a pixel's width. Levels are cached in
memory by the mesh's content key, so identical meshes (14 NAOs) are simplified once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tessellation import Triangles, flat

MIN_TRIANGLES = 400
LEVEL_FRACTIONS = (0.25, 0.06)
MAX_ERROR_PIXELS = 0.75
_SAMPLE = 4000  # original vertices checked for the error of a level


@dataclass(frozen=True)
class Level:
    triangles: Triangles
    error: float  # metres, see the module docstring


def levels_of(triangles: Triangles) -> list[Level]:
    """The full mesh (error 0) followed by its simplified levels, coarsest last."""
    levels = [Level(triangles, 0.0)]
    if len(triangles.indices) < MIN_TRIANGLES:
        return levels
    try:
        import fast_simplification  # type: ignore[import-untyped]
    except ImportError:
        return levels
    points, faces = _welded(triangles)
    for fraction in LEVEL_FRACTIONS:
        target = max(8, int(len(triangles.indices) * fraction))
        if target >= len(faces):
            continue
        simple_points, simple_faces = fast_simplification.simplify(
            points, faces, target_count=target)
        if len(simple_faces) == 0:
            break
        simplified = flat(simple_points.astype(np.float32), simple_faces.astype(np.uint32))
        levels.append(Level(simplified, max(_error(points, simple_points), levels[-1].error)))
    return levels


def pick_level(levels: list[Level], distance: float, pixels_per_radian: float) -> int:
    """The coarsest level whose error seen from ``distance`` is below the pixel threshold."""
    chosen = 0
    for index in range(1, len(levels)):
        if levels[index].error * pixels_per_radian <= MAX_ERROR_PIXELS * max(distance, 1e-6):
            chosen = index
    return chosen


def kick_in_distance(level: Level, pixels_per_radian: float) -> float:
    """The distance from which ``level`` may be drawn."""
    return level.error * pixels_per_radian / MAX_ERROR_PIXELS


def _welded(triangles: Triangles) -> tuple[np.ndarray, np.ndarray]:
    """Shared vertices (flat-shaded meshes repeat them per triangle)."""
    points, inverse = np.unique(triangles.positions, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[triangles.indices]
    keep = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    return points.astype(np.float32), faces[keep].astype(np.int64)


def _error(original: np.ndarray, simplified: np.ndarray) -> float:
    step = max(1, len(original) // _SAMPLE)
    sample = original[::step].astype(np.float64)
    worst = 0.0
    for chunk in np.array_split(sample, max(1, len(sample) // 256)):
        d2 = ((chunk[:, None, :] - simplified[None, :, :].astype(np.float64)) ** 2).sum(-1)
        worst = max(worst, float(np.sqrt(d2.min(axis=1).max())))
    return worst
