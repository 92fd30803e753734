"""Webots Lidar fields -> the spherical DepthCamera: layers, tilt, rotation, noise relative to
``maxRange``, and the fields Webots resets (src/webots/nodes/WbLidar.cpp at cyberbotics/webots
0160e6b01d1c, the ``WbLidar::update*`` checks): each reset is a warning at the field's line with
the value used, as Webots' ``parsingWarn``; a value that is not finite is the parser's error at
its line; a lidar never gives NaN ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load
from scene_sim_ros.scene.sensors import DepthCamera

HEADER = '#VRML_SIM R2023b utf8\n'


def lidar_world(write_file, fields: str):
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  Lidar {{ {fields} }} ] }}\n')
    scene = load(path)
    (lidar,) = scene.entities[0].sensors
    assert isinstance(lidar, DepthCamera)
    return path, scene, lidar


def test_the_fields_map_to_layers_tilt_rotation_and_noise(write_file):
    _, scene, lidar = lidar_world(write_file, 'horizontalResolution 900 numberOfLayers 8 '
                                  'verticalFieldOfView 0.4 tiltAngle 0.1 maxRange 50 noise 0.01 '
                                  'type "rotating" defaultFrequency 12 fieldOfView 1')
    assert (lidar.width, lidar.height, lidar.fov_y) == (900, 8, 0.4)
    assert lidar.fov_x == pytest.approx(2 * math.pi)  # a rotating head sweeps the full turn
    assert (lidar.tilt, lidar.rotating, lidar.frequency) == (0.1, True, 12.0)
    assert lidar.noise == pytest.approx(0.5)  # 0.01 of maxRange 50 (docs/reference/lidar.md)
    assert scene.warnings == ()


def test_a_fixed_lidar_keeps_its_field_of_view_and_does_not_rotate(write_file):
    _, _, lidar = lidar_world(write_file, 'fieldOfView 1.5 numberOfLayers 1')
    assert (lidar.fov_x, lidar.rotating, lidar.height) == (1.5, False, 1)


RESETS = [  # fields, the field warned about, the value Webots sets, the attribute that shows it
    ('numberOfLayers 0', 'numberOfLayers', 1, 'height'),
    ('numberOfLayers -3', 'numberOfLayers', 1, 'height'),
    ('horizontalResolution 0 numberOfLayers 1', 'horizontalResolution', 1, 'width'),
    # 20 layers over 0.2 rad need 20 * 1.5708 / 0.2 = 158 columns (updateHorizontalResolution)
    ('horizontalResolution 10 numberOfLayers 20 verticalFieldOfView 0.2', 'horizontalResolution',
     158, 'width'),
    ('verticalFieldOfView 0', 'verticalFieldOfView', 0.1, 'fov_y'),
    ('verticalFieldOfView -1', 'verticalFieldOfView', 0.1, 'fov_y'),
    ('verticalFieldOfView 4 horizontalResolution 512', 'verticalFieldOfView', math.pi, 'fov_y'),
    ('minRange 2 maxRange 1', 'maxRange', 3.0, 'max_range'),
    ('minRange 1 maxRange 1', 'maxRange', 2.0, 'max_range'),
    ('minRange -1', 'minRange', 0.01, 'min_range'),
    ('noise -0.5', 'noise', 0.0, 'noise'),
    ('type "rotating" defaultFrequency -5', 'defaultFrequency', 1.0, 'frequency'),
    ('type "rotating" defaultFrequency 40', 'defaultFrequency', 25.0, 'frequency'),
]


@pytest.mark.parametrize(('fields', 'field', 'value', 'attribute'), RESETS)
def test_an_out_of_range_field_is_reset_as_webots_does_with_a_warning(write_file, fields, field,
                                                                     value, attribute):
    path, scene, lidar = lidar_world(write_file, fields)
    assert getattr(lidar, attribute) == pytest.approx(value)
    assert any(w.startswith(f'{path}:3: Lidar.{field} is ') and 'as Webots does' in w
               for w in scene.warnings), scene.warnings


def test_an_unknown_type_is_reset_to_fixed(write_file):
    path, scene, lidar = lidar_world(write_file, 'type "spinning"')
    assert not lidar.rotating
    assert any(w.startswith(f"{path}:3: Lidar.type is 'spinning'") for w in scene.warnings)


@pytest.mark.parametrize(('fields', 'message'), [
    ('maxRange 1e999', 'number 1e999 is not finite'),  # the parser refuses what overflows
    ('verticalFieldOfView -1e999', 'number -1e999 is not finite'),
    ('defaultFrequency 1e400', 'number 1e400 is not finite'),
    ('noise nan', "expected a value, found 'nan'"),  # and knows no nan or inf
    ('maxRange inf', "expected a value, found 'inf'"),
])
def test_a_value_that_is_not_finite_is_an_error_at_its_line(write_file, fields, message):
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  Lidar {{ {fields} }} ] }}\n')
    with pytest.raises(SceneLoadError, match=rf'^{path}:3: {message}'):
        load(path)


@pytest.mark.parametrize(('fields', 'field', 'value', 'attribute'), RESETS)
def test_a_reset_lidar_reads_no_nan(write_file, fields, field, value, attribute):
    from scene_sim_ros import Simulation
    path = write_file('w.wbt', f'{HEADER}Robot {{ children [\n  Lidar {{ name "l" {fields} }} ]'
                      ' }\nSolid { translation 0.5 0 0 boundingObject Box { size 0.1 4 4 } }\n')
    sim = Simulation(load(path))
    try:
        sim.step()
        assert np.isfinite(np.asarray(sim.read('robot', 'l'))).all()
    finally:
        sim.close()
