"""Levels of detail for large meshes, made once at load with fast-simplification.

A mesh of at least :data:`MIN_TRIANGLES` triangles gets coarser versions with
:data:`LEVEL_FRACTIONS` of its triangles. Each level records its geometric error
(:func:`_error`: how far the simplified surface lies from a sample of the original vertices, an
estimate, not a bound). A level is drawn only where that error projects to at most
:data:`MAX_ERROR_PIXELS` pixels, so a far mesh changes depth by about its level's error
(:attr:`Level.error`; the tests check the depth change where a level kicks in) and its outline
by about a pixel. Levels are cached in
memory by the mesh's content key, so identical meshes (14 NAOs) are simplified once.

Round primitives (sphere, cylinder, capsule) are not simplified but tessellated again with half,
a quarter, an eighth of their segments (:func:`round_levels`), each with its exact error; those
coarser levels are drawn only beyond :data:`EXACT_DEPTH_RANGE`, so that nearer depth images
keep the primitive within the tessellation's 0.25 mm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scene_sim_ros.scene import Capsule, Cylinder, Sphere
from scene_sim_ros.sim.render.tessellation import Triangles, chord_error, flat, round_shape, segments_for

MIN_TRIANGLES = 400
LEVEL_FRACTIONS = (0.25, 0.06, 0.015)
MAX_ERROR_PIXELS = 1.0
EXACT_DEPTH_RANGE = 5.0
"""Metres within which round primitives are drawn at full detail whatever their size in pixels
(depth images within 1 mm of the exact shape over 0.2-5 m, issue 17)."""
_SAMPLE = 4000  # original vertices checked for the error of a level
_NEAREST = 6


@dataclass(frozen=True)
class Level:
    triangles: Triangles
    error: float  # metres, see the module docstring
    nearest: float = 0.0  # never drawn nearer than this (metres from the camera)


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
        levels.append(Level(simplified, max(_error(points, simplified), levels[-1].error)))
    return levels


def round_levels(shape: Sphere | Cylinder | Capsule) -> list[Level]:
    """Full detail (:func:`.tessellation.segments_for`) and, where that has at least
    :data:`MIN_TRIANGLES` triangles, up to :data:`LEVEL_FRACTIONS`-many levels with half the
    segments of the one before (at least 8), drawn only beyond :data:`EXACT_DEPTH_RANGE`."""
    segments = segments_for(shape)
    levels = [Level(round_shape(shape, segments), chord_error(shape, segments))]
    if len(levels[0].triangles.indices) < MIN_TRIANGLES:
        return levels
    while len(levels) <= len(LEVEL_FRACTIONS) and segments >= 16:
        segments = 4 * round(segments / 8)  # half, a multiple of 4 (a capsule's quarters)
        levels.append(Level(round_shape(shape, segments), chord_error(shape, segments),
                            EXACT_DEPTH_RANGE))
    return levels


def pick_level(levels: list[Level], distance: float, pixels_per_radian: float) -> int:
    """The coarsest level whose error seen from ``distance`` is below the pixel threshold."""
    chosen = 0
    for index in range(1, len(levels)):
        if (levels[index].error * pixels_per_radian <= MAX_ERROR_PIXELS * max(distance, 1e-6)
                and distance >= levels[index].nearest):
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


def _error(original: np.ndarray, simplified: Triangles) -> float:
    """How far the simplified surface lies from the original vertices (a sample of at most
    :data:`_SAMPLE`): per vertex the distance to the plane of the nearest of the
    :data:`_NEAREST` closest simplified triangles (by centroid), the largest of them, and at
    least how much the bounding box changed."""
    step = max(1, len(original) // _SAMPLE)
    sample = original[::step].astype(np.float64)
    corners = simplified.positions[simplified.indices].astype(np.float64)
    centroids = corners.mean(axis=1)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
    k = min(_NEAREST, len(centroids))
    worst = 0.0
    for chunk in np.array_split(sample, max(1, len(sample) // 256)):
        d2 = ((chunk[:, None, :] - centroids[None, :, :]) ** 2).sum(-1)
        nearest = np.argpartition(d2, k - 1, axis=1)[:, :k]
        offsets = chunk[:, None, :] - centroids[nearest]
        plane = np.abs((offsets * normal[nearest]).sum(-1)).min(axis=1)
        worst = max(worst, float(plane.max()))
    # a thin part collapsed into a plane lies close to that plane but lost its extent
    shrink = np.abs(np.r_[original.min(axis=0) - simplified.positions.min(axis=0),
                          original.max(axis=0) - simplified.positions.max(axis=0)]).max()
    return max(worst, float(shrink))
