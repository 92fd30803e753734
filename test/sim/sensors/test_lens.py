"""Webots lens distortion of rendered images, on both engines: a grid of dark boxes on a wall
seen through ``Lens { radialCoefficients -0.3 0 }``; its published CameraInfo model, applied
with OpenCV's ``undistortPoints``, puts each row of box centres back on a straight line."""

from __future__ import annotations

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.scene.lens import plumb_bob
from support.lens_target import blob_centres, lens_world, rows_of, straightness

cv2 = pytest.importorskip('cv2', reason='opencv-python-headless is in requirements/dev.txt')

STRAIGHT_PX = 0.5
"""Issue 46's Done-when bound on a row's distance from a line after undistortion."""


def camera_image(make_sim, tmp_path, width, height, lens='', device='Camera'):
    path = tmp_path / 'lens.wbt'
    path.write_text(lens_world(width, height, lens, device))
    scene = load_scene(path)
    camera = next(s for e in scene.entities for s in e.sensors if s.name == 'cam')
    return make_sim(scene).read('eye', 'cam'), camera


def undistorted(points, camera):
    model = plumb_bob(camera.lens, camera.width, camera.height, camera.fov_x, camera.fov_y)
    k = np.array([[model.fx, 0, model.cx], [0, model.fy, model.cy], [0, 0, 1]])
    return cv2.undistortPoints(points.reshape(-1, 1, 2), k, np.array(model.d), P=k).reshape(-1, 2)


def test_rows_of_a_checkerboard_are_straight_after_undistorting_with_the_model(make_sim,
                                                                              tmp_path):
    image, camera = camera_image(make_sim, tmp_path, 240, 240, 'radialCoefficients -0.3 0')
    centres = blob_centres(image)
    assert len(centres) == 25
    raw = max(straightness(row) for row in rows_of(centres))
    straight = max(straightness(row) for row in rows_of(undistorted(centres, camera)))
    columns = max(straightness(col) for col in rows_of(
        undistorted(centres, camera).reshape(5, 5, 2).transpose(1, 0, 2).reshape(-1, 2)))
    assert raw > 1.5  # the lens bends the outer rows: the check below can fail
    assert straight < STRAIGHT_PX and columns < STRAIGHT_PX, (straight, columns)


def test_zero_coefficients_give_the_image_without_a_lens(make_sim, tmp_path):
    plain, _ = camera_image(make_sim, tmp_path, 64, 48)
    zero, camera = camera_image(make_sim, tmp_path, 64, 48,
                                'center 0.3 0.6 radialCoefficients 0 0 tangentialCoefficients 0 0')
    assert camera.lens is not None
    assert np.array_equal(plain, zero)


def test_depth_through_the_lens_is_nearest_and_no_return_outside_the_render(make_sim, tmp_path):
    path = tmp_path / 'lens.wbt'
    path.write_text(lens_world(80, 60, 'radialCoefficients -0.3 0', 'RangeFinder',
                               'maxRange 5'))
    scene = load_scene(path)
    depth = np.asarray(make_sim(scene).read('eye', 'cam'))
    wall = 2.0 - 0.02  # the dots' faces; the wall's face is at 2.0
    assert np.isfinite(depth).all()
    assert depth[0, 0] == 5.0  # the corner looks beyond the rendered frame: no return
    seen = depth[depth < 5.0]
    # nearest neighbour: every value is a rendered surface, none blended between dot and wall
    assert np.all((np.abs(seen - 2.0) < 2e-3) | (np.abs(seen - wall) < 2e-3))
