"""Webots' lens law and its plumb_bob fit (scene_sim_ros.scene.lens), cross-checked with
OpenCV: the published CameraInfo model undoes Webots' distortion pixel for pixel."""

from __future__ import annotations

import numpy as np
import pytest

from scene_sim_ros.scene.lens import fold, ideal, plumb_bob, source_pixels
from scene_sim_ros.scene.sensors import Lens

cv2 = pytest.importorskip('cv2', reason='opencv-python-headless is in requirements/dev.txt')
FOV = 0.7854


def matrix(model):
    return np.array([[model.fx, 0, model.cx], [0, model.fy, model.cy], [0, 0, 1]])


def numpy_distort(model, x, y):
    """OpenCV's plumb_bob forward model, in numpy: normalised direction -> pixel."""
    k1, k2, p1, p2, k3 = model.d
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 ** 2 + k3 * r2 ** 3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return model.fx * xd + model.cx, model.fy * yd + model.cy


@pytest.mark.parametrize(('lens', 'bound'), [
    (Lens(radial=(-0.3, 0.0)), 0.05), (Lens(radial=(0.2, 0.05), tangential=(0.01, -0.005)), 0.5)])
def test_square_image_model_undoes_webots_law_within_its_stated_residual(lens, bound):
    size = 240
    model = plumb_bob(lens, size, size, FOV, FOV)
    pinhole = ideal(size, size, FOV, FOV)
    source_x, source_y = source_pixels(lens, size, size)
    seen = (source_x >= 0) & (source_x <= size - 1) & (source_y >= 0) & (source_y <= size - 1)
    rows, columns = np.nonzero(seen)
    pixels = np.stack([columns, rows], axis=-1).astype(np.float64)[::7]
    rectified = cv2.undistortPointsIter(
        pixels.reshape(-1, 1, 2), matrix(model), np.array(model.d), np.eye(3), matrix(pinhole),
        (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)).reshape(-1, 2)
    truth = np.stack([source_x[seen][::7], source_y[seen][::7]], axis=-1)
    # OpenCV's undistortion of the published pixel finds the ideal pixel Webots sampled
    assert np.hypot(*(rectified - truth).T).max() < model.max_residual + 0.05
    # the same model in numpy, forward: the true direction lands on the published pixel
    u, v = numpy_distort(model, (truth[:, 0] - pinhole.cx) / pinhole.fx,
                         (truth[:, 1] - pinhole.cy) / pinhole.fy)
    assert np.hypot(u - pixels[:, 0], v - pixels[:, 1]).max() <= model.max_residual + 1e-9
    assert model.max_residual < bound


def test_non_square_image_residual_is_stated_truthfully():
    """Webots' law is radial in texture coordinates: elliptical in angle for 320x240, which a
    radial model cannot express; the fit states how far off it is."""
    lens = Lens(radial=(-0.3, 0.0))
    model = plumb_bob(lens, 320, 240, FOV, 2 * np.arctan(np.tan(FOV / 2) * 0.75))
    assert 1.0 < model.max_residual < 5.0


def test_zero_coefficients_are_the_ideal_camera_exactly():
    assert plumb_bob(Lens(center=(0.2, 0.7)), 64, 48, 1.0, 0.8) == ideal(64, 48, 1.0, 0.8)


def test_centre_offset_moves_the_principal_point_to_the_image_of_the_optical_axis():
    lens = Lens(center=(0.8, 0.3), radial=(-0.3, 0.0))
    model = plumb_bob(lens, 240, 240, FOV, FOV)
    source_x, source_y = source_pixels(lens, 240, 240)
    # the published pixel that shows the optical axis (the render's centre), interpolated
    distance = np.hypot(source_x - 119.5, source_y - 119.5)
    row, column = np.unravel_index(np.argmin(distance), distance.shape)
    jacobian = np.array([[source_x[row, column + 1] - source_x[row, column],
                          source_x[row + 1, column] - source_x[row, column]],
                         [source_y[row, column + 1] - source_y[row, column],
                          source_y[row + 1, column] - source_y[row, column]]])
    axis = np.array([column, row]) + np.linalg.solve(
        jacobian, [119.5 - source_x[row, column], 119.5 - source_y[row, column]])
    assert abs(model.cx - 119.5) > 0.5 and abs(model.cy - 119.5) > 0.5
    # K's principal point is a fitted value: within the fit's stated residual of the truth
    assert np.hypot(model.cx - axis[0], model.cy - axis[1]) <= model.max_residual


@pytest.mark.parametrize(('lens', 'folds'), [
    (Lens(radial=(-0.3, 0.0)), False), (Lens(radial=(-0.6, 0.0)), True),
    (Lens(radial=(0.0, -2.0)), True), (Lens(tangential=(0.5, 0.0)), True)])
def test_fold_finds_laws_that_are_not_one_to_one(lens, folds):
    assert (fold(lens, 64, 48) is not None) == folds
