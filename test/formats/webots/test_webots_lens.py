"""Webots Lens fields -> scene model, and the bad ones: a centre outside [0, 1] clamped with
Webots' warning (WbLens.cpp), non-finite or folding coefficients and wrong counts as file:line."""

from __future__ import annotations

import re

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load
from scene_sim_ros.scene.sensors import Lens

HEADER = '#VRML_SIM R2023b utf8\n'


def camera(write_file, lens, device='Camera', size=(64, 48)):
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  {device} {{ name "eye" '
                               f'width {size[0]} height {size[1]}\n'
                               f'  lens Lens {{ {lens} }} }} ] }}\n')
    scene = load(path)
    return scene.entities[0].sensors[0], scene.warnings, path


def test_lens_fields_are_read_for_cameras_and_range_finders(write_file):
    lens = 'center 0.4 0.6 radialCoefficients -0.3 0.01 tangentialCoefficients 0.001 0.002'
    for device in ('Camera', 'RangeFinder'):
        sensor, warnings, _ = camera(write_file, lens, device, (48, 48))
        assert sensor.lens == Lens((0.4, 0.6), (-0.3, 0.01), (0.001, 0.002)) and not warnings


def test_centre_outside_the_unit_square_is_clamped_with_a_warning(write_file):
    sensor, warnings, path = camera(write_file, 'center 1.5 -0.2 radialCoefficients -0.1 0',
                                    size=(48, 48))
    assert sensor.lens.center == (1.0, 0.0)
    invalid = [w for w in warnings if w.startswith(f'{path}:4: Invalid')]
    # a distortion centred in a corner: no plumb_bob model fits well, which is reported too
    assert len(invalid) == 2 and len(warnings) == 3 and 'approximate' in warnings[2], warnings


@pytest.mark.parametrize(('lens', 'message'), [
    ('radialCoefficients -0.6 0', 'fold the 64x48 image over'),
    ('tangentialCoefficients 0.5 0', 'fold the 64x48 image over'),
    ('radialCoefficients -0.3', 'expected 2 numbers, got 1'),
    ('center 0.5 0.5 0.5', 'expected 2 numbers, got 3'),
    ('radialCoefficients 1e999 0', 'number 1e999 is not finite')])
def test_bad_lens_is_a_file_line_error(write_file, lens, message):
    with pytest.raises(SceneLoadError, match=message) as error:
        camera(write_file, lens)
    assert 'w.wbt:4: ' in str(error.value)


@pytest.mark.parametrize('device', ['Camera', 'RangeFinder'])
def test_an_approximate_camera_model_is_reported_once_with_its_residual(write_file, device):
    """320x240 with k1 = -0.3: the plumb_bob fit is 3.1 px off in the corners (bound 0.5 px)."""
    _, warnings, path = camera(write_file, 'radialCoefficients -0.3 0', device, (320, 240))
    assert len(warnings) == 1, warnings
    match = re.fullmatch(rf"{re.escape(str(path))}:4: camera 'eye': its published plumb_bob "
                         r'CameraInfo is approximate, up to (\d+\.\d+) px off the image '
                         r"\(Webots' lens law is radial in texture coordinates; on a non-square "
                         r'320x240 image plumb_bob cannot describe it exactly\)', warnings[0])
    assert match and 1.0 < float(match[1]) < 5.0, warnings


def test_an_exact_camera_model_is_not_reported(write_file):
    """240x240 with k1 = -0.3: the fit is within 0.02 px."""
    _, warnings, _ = camera(write_file, 'radialCoefficients -0.3 0', size=(240, 240))
    assert not warnings


def projected_camera(write_file, fields):
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  Camera {{ name "eye" width 64 '
                               f'height 32 fieldOfView 6.2832\n  {fields} }} ] }}\n')
    scene = load(path)
    return scene.entities[0].sensors[0], scene.warnings, path


def test_a_spherical_cameras_lens_is_named_as_not_simulated_and_dropped(write_file):
    sensor, warnings, path = projected_camera(
        write_file, 'projection "spherical" lens Lens { radialCoefficients -0.2 0 }')
    assert (sensor.projection, sensor.lens) == ('spherical', None)
    assert sensor.fov_y == pytest.approx(6.2832 * 32 / 64)  # Webots: fov_x h / w
    assert any(w.startswith(f'{path}:4: ') and 'lens of a spherical Camera is not simulated' in w
               for w in warnings), warnings


@pytest.mark.parametrize('projection', ['spherical', 'cylindrical'])
def test_a_non_planar_camera_without_a_lens_loads_quietly(write_file, projection):
    sensor, warnings, _ = projected_camera(write_file, f'projection "{projection}"')
    assert sensor.projection == projection and not warnings


def test_an_unknown_projection_is_planar_with_webots_warning(write_file):
    sensor, warnings, path = projected_camera(write_file, 'projection "fisheye"')
    assert sensor.projection == 'planar'
    assert any(w.startswith(f'{path}:4: ') and 'reset to "planar"' in w for w in warnings), warnings
