"""Webots' spherical and cylindrical Camera projections (scene_sim_ros.sim.sensors.projection),
on both engines, against the closed forms of ``merge_spherical.frag``: a fisheye of 2 pi sees a
box behind it where ``|d| fov_x`` puts it; a cylindrical panorama keeps vertical edges vertical
and its columns linear in azimuth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.sensors.projection import FACES, directions, face_coordinates, face_geometry
from scene_sim_ros.sim.sensors.rendering import View

HEADER = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 10 }
Background { skyColor [ 1 1 1 ] }
DirectionalLight { direction -1 -0.3 -0.5 intensity 1 }
"""


def box(name: str, azimuth: float, distance: float, size: tuple[float, float, float],
        color: str) -> str:
    """A box at ``azimuth`` (rad, left of +x) ``distance`` m from the camera, at its height."""
    x, y = distance * math.cos(azimuth), distance * math.sin(azimuth)
    return (f'Solid {{ translation {x} {y} 1 rotation 0 0 1 {azimuth} name "{name}" children '
            f'[ Shape {{ appearance Appearance {{ material Material {{ diffuseColor {color} }} '
            f'}} geometry Box {{ size {size[0]} {size[1]} {size[2]} }} }} ] }}\n')


def camera_sim(make_sim, tmp_path, camera: str, *boxes: str):
    path = tmp_path / 'panorama.wbt'
    path.write_text(HEADER + ''.join(boxes) + f'Robot {{ translation 0 0 1 name "eye" children '
                    f'[ Camera {{ name "cam" {camera} }} ] }}\n')
    scene = load_scene(path)
    assert not scene.warnings, scene.warnings
    return make_sim(scene)


def camera_image(make_sim, tmp_path, camera: str, *boxes: str) -> np.ndarray:
    return np.asarray(camera_sim(make_sim, tmp_path, camera, *boxes).read('eye', 'cam'))


def centroid(mask: np.ndarray) -> tuple[float, float]:
    rows, columns = np.nonzero(mask)
    assert rows.size > 4, 'the box is not in the image'
    return float(columns.mean()), float(rows.mean())


def dark(image: np.ndarray) -> np.ndarray:
    """The black boxes on the white sky (light or shade alike)."""
    return image.astype(int).mean(axis=-1) < 128


CENTROID_PX = 1.0
"""A box's centroid from the column the law predicts: the box covers a few pixels, drawn from
a cube face and resampled bilinearly (edge pixels half-coloured), so a pixel's worth."""


def test_spherical_camera_of_2_pi_sees_a_box_behind_it_where_webots_puts_it(make_sim,
                                                                           tmp_path):
    size = 160
    image = camera_image(
        make_sim, tmp_path, f'width {size} height {size} fieldOfView {2 * math.pi} '
        'projection "spherical"',
        box('behind_left', 5 * math.pi / 6, 2.0, (0.1, 0.3, 0.3), '0 0 0'),
        box('right', -math.pi / 2, 2.0, (0.1, 0.3, 0.3), '0 0 0'))
    mask = dark(image)
    halves = np.arange(size) < size / 2
    # merge_spherical.frag: angle off the axis = |d| fov_x, d = uv - 0.5, left for d.x < 0;
    # pixel column = u * width - 0.5 (pixel centres at integers)
    for side_mask, angle, side in ((mask & halves, 5 * math.pi / 6, -1),
                                   (mask & ~halves, math.pi / 2, 1)):
        column, row = centroid(side_mask)
        expected = (0.5 + side * angle / (2 * math.pi)) * size - 0.5
        assert abs(column - expected) < CENTROID_PX, (column, expected)
        assert abs(row - (size - 1) / 2) < CENTROID_PX, row


def test_cylindrical_camera_keeps_verticals_and_is_linear_in_azimuth(make_sim, tmp_path):
    width, height, fov = 180, 60, math.pi  # one degree per pixel, 60 degrees high
    azimuths = (-1.2, -0.35, 0.5, 1.25)
    poles = [box(f'pole{i}', a, 3.0, (0.05, 0.2, 1.6), '0 0 0') for i, a in enumerate(azimuths)]
    image = camera_image(make_sim, tmp_path, f'width {width} height {height} fieldOfView {fov} '
                         'projection "cylindrical"', *poles)
    mask = dark(image)
    for azimuth in azimuths:
        # merge_spherical.frag: azimuth = (0.5 - u) fov_x, linear in the column
        expected = (0.5 - azimuth / fov) * width - 0.5
        near = mask & (np.abs(np.arange(width) - expected) < 6)[None, :]  # poles ~4 px wide
        column, _ = centroid(near)
        assert abs(column - expected) < CENTROID_PX, (azimuth, column, expected)
        # each row's centre of the pole: the same column from top to bottom of the pole
        rows = [r for r in range(height) if near[r].sum() >= 2]
        assert len(rows) > 20, rows  # the pole spans +-15 degrees: about 30 rows
        centres = [np.nonzero(near[r])[0].mean() for r in rows[2:-2]]
        assert max(centres) - min(centres) <= 1.0, (azimuth, centres)


def test_cylindrical_rows_are_as_far_apart_in_angle_as_columns():
    """c, Webots' vertical correction coefficient, cancels: elevation (0.5 - v) fov_x h / w."""
    rays = directions('cylindrical', 90, 30, math.pi / 2)
    elevation = np.arcsin(rays[:, 0, 2])
    assert np.allclose(np.diff(elevation), -math.pi / 2 / 90, atol=1e-12)


def test_directions_refuse_an_unknown_projection():
    with pytest.raises(ValueError, match='unknown camera projection'):
        directions('fisheye', 4, 4, 1.0)


def test_a_planar_camera_is_the_render_itself_byte_for_byte(make_sim, tmp_path):
    """'planar' (given or not) bypasses the remap: the image is the sensor view's render."""
    boxes = [box('a', 0.2, 2.0, (0.1, 0.3, 0.3), '0 0 0'), box('b', -0.3, 3.0, (0.2, 0.2, 0.5),
                                                            '1 0 0')]
    for field in ('', 'projection "planar"'):
        sim = camera_sim(make_sim, tmp_path, f'width 64 height 48 {field}', *boxes)
        reader = sim.reader('eye', 'cam')
        s = reader.sensor
        assert reader.projection is None
        render = reader.cache.frame(View.of(reader.sensor_pose(), s.width, s.height, s.fov_x,
                                            s.fov_y), s.near, s.far, need_depth=False).rgb
        assert np.array_equal(sim.read('eye', 'cam'), render)


@pytest.mark.parametrize('name', list(FACES))
def test_a_face_pixels_ray_falls_back_on_that_pixel(name):
    """face_coordinates inverts the renderers' corner-sampled pinhole (scene/pinhole.py's law,
    written out here: column j along x/z = (2 j / n - 1) tan(fov / 2), row r along
    y/z = (2 (r + 1) / n - 1) tan(fov / 2), x right, y down) to 1e-9 px."""
    size, fov = face_geometry(math.pi, 90)
    t = math.tan(fov / 2)
    j, r = np.meshgrid(np.arange(size, dtype=float), np.arange(size, dtype=float))
    right, down = (2 * j / size - 1) * t, (2 * (r + 1) / size - 1) * t
    inside = (np.abs(right) < 1) & (np.abs(down) < 1)  # the margin beyond belongs to neighbours
    forward, left, up = (np.array(axis, dtype=float) for axis in FACES[name])
    rays = forward + (-right)[..., None] * left + (-down)[..., None] * up
    face, column, row = face_coordinates(rays[inside], size, fov)
    assert np.all(face == list(FACES).index(name))
    assert np.allclose(column, j[inside], atol=1e-9) and np.allclose(row, r[inside], atol=1e-9)
