"""Round primitives' triangles for the GL renderer: within CHORD_ERROR of the true surface for the
radii of real scenes and beyond, a bounded triangle count, and coarser levels only far away.
Pure geometry: runs without an EGL context."""

from __future__ import annotations

import numpy as np
import pytest

from scene_sim_ros.scene import Capsule, Cylinder, Sphere
from scene_sim_ros.sim.render.lod import EXACT_DEPTH_RANGE, pick_level, round_levels
from scene_sim_ros.sim.render.tessellation import (
    CHORD_ERROR,
    MAX_SEGMENTS,
    chord_error,
    round_shape,
    segments_for,
)

# radii of the corpus scenes (0.005-0.15 m) and of larger user-made shapes, up to the radius
# whose tessellation the segment cap still keeps within CHORD_ERROR
RADII = [0.005, 0.03, 0.08, 0.15, 0.4, 1.0, 1.6]
BARYCENTRIC = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0], [0.5, 0, 0.5],
                        [0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])  # corners, edge middles, centroid


def shapes(radius: float) -> list:
    return [Sphere(radius), Cylinder(radius, 3.0 * radius), Capsule(radius, 2.0 * radius)]


def inside_depth(shape, points: np.ndarray) -> np.ndarray:
    """How far inside the true surface each point lies (negative: outside)."""
    if isinstance(shape, Sphere):
        return shape.radius - np.linalg.norm(points, axis=1)
    half = shape.length / 2.0
    if isinstance(shape, Cylinder):
        return np.minimum(shape.radius - np.linalg.norm(points[:, :2], axis=1),
                          half - np.abs(points[:, 2]))
    on_axis = np.clip(points[:, 2], -half, half)
    return shape.radius - np.linalg.norm(points - np.outer(on_axis, [0, 0, 1]), axis=1)


def deviation(shape, segments: int) -> tuple[float, float]:
    """Deepest point (of corners, edge middles and centroids) inside the true surface, and the
    farthest corner outside it."""
    t = round_shape(shape, segments)
    corners = t.positions.astype(np.float64)[t.indices]  # (M, 3, 3)
    samples = np.einsum('kc,mcx->mkx', BARYCENTRIC, corners).reshape(-1, 3)
    return float(inside_depth(shape, samples).max()), float(-inside_depth(shape, t.positions).min())


@pytest.mark.parametrize('radius', RADII)
def test_round_primitives_stay_within_the_chord_error_of_their_true_surface(radius):
    for shape in shapes(radius):
        segments = segments_for(shape)
        inward, outward = deviation(shape, segments)
        assert inward <= CHORD_ERROR * 1.001, (shape, segments, inward)
        assert outward <= 1e-6  # every vertex on the surface (float32)
        # the stated error is the measured one (cells at the equator, or a cylinder's side)
        assert inward == pytest.approx(chord_error(shape, segments), rel=0.02, abs=1e-7)


def test_segments_grow_with_the_radius_between_a_floor_and_a_cap():
    counts = [segments_for(Sphere(r)) for r in RADII]
    assert counts == sorted(counts) and counts[0] == 24 and counts[-1] <= MAX_SEGMENTS
    assert all(segments_for(s) % 4 == 0 for r in RADII for s in shapes(r))
    huge = Sphere(100.0)
    assert segments_for(huge) == MAX_SEGMENTS
    assert len(round_shape(huge, segments_for(huge)).indices) <= 65_536


def test_coarser_round_levels_are_drawn_only_beyond_the_exact_depth_range():
    levels = round_levels(Sphere(0.3))
    assert len(levels) == 4
    assert [len(lv.triangles.indices) for lv in levels] == sorted(
        (len(lv.triangles.indices) for lv in levels), reverse=True)
    assert all(lv.error == pytest.approx(chord_error(Sphere(0.3), _segments(lv)))
               for lv in levels)
    tiny_on_screen = 10.0  # pixels per radian: every level's error is far below a pixel
    assert pick_level(levels, EXACT_DEPTH_RANGE * 0.99, tiny_on_screen) == 0
    assert pick_level(levels, EXACT_DEPTH_RANGE, tiny_on_screen) == len(levels) - 1
    # beyond the range the pixel rule alone decides: a large image keeps full detail
    assert pick_level(levels, EXACT_DEPTH_RANGE * 2, 1e6) == 0


def _segments(level) -> int:
    """Segments around of a sphere's level (its vertex grid is (n/2 + 1) x (n + 1))."""
    vertices = len(level.triangles.positions)
    return int(round((-3 + np.sqrt(9 + 8 * (vertices - 1))) / 2))
