"""Multi-row spherical depth (3-D lidars) on both engines: the rays' elevations and the columns'
timing as Webots defines them (src/webots/nodes/WbLidar.cpp, ``WbLidar::updatePointCloud``:
layer ``i`` at ``verticalFieldOfView / 2 - i * verticalFieldOfView / (numberOfLayers - 1)``
plus ``tiltAngle``; column ``j`` of a fixed lidar at ``fieldOfView / 2 - j * fieldOfView /
(horizontalResolution - 1)``), and ranges against the closed-form distance to a room's walls."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene.sensors import DepthCamera
from scene_sim_ros.sim.sensors import create_reader
from scene_sim_ros.sim.sensors.rays import column_times

# a room around the sensor (at the host's origin, z = 1): inner faces x = -2, 2.5 and y = -3, 1.5
ROOM = {'x': (-2.0, 2.5), 'y': (-3.0, 1.5)}
WALL, HEIGHT = 0.2, 6.0  # walls from z = -2 to 4: every ray below +-30 deg reaches one
RANGE_TOLERANCE = 1e-3  # m: both engines' ray casts against boxes, float32 images


def room(parts):
    (x0, x1), (y0, y1) = ROOM['x'], ROOM['y']
    span_x, span_y = x1 - x0 + 2 * WALL, y1 - y0 + 2 * WALL
    z = 1.0
    return [parts.static_box('west', (WALL, span_y, HEIGHT), (x0 - WALL / 2, (y0 + y1) / 2, z)),
            parts.static_box('east', (WALL, span_y, HEIGHT), (x1 + WALL / 2, (y0 + y1) / 2, z)),
            parts.static_box('south', (span_x, WALL, HEIGHT), ((x0 + x1) / 2, y0 - WALL / 2, z)),
            parts.static_box('north', (span_x, WALL, HEIGHT), ((x0 + x1) / 2, y1 + WALL / 2, z))]


def distance_to_room(directions: np.ndarray) -> np.ndarray:
    """Closed form: along each unit ray from the origin, the nearest wall plane ahead."""
    best = np.full(len(directions), np.inf)
    for axis, (low, high) in enumerate((ROOM['x'], ROOM['y'])):
        d = directions[:, axis]
        with np.errstate(divide='ignore'):
            ahead = np.where(d > 0, high / d, np.where(d < 0, low / d, np.inf))
        best = np.minimum(best, ahead)
    return best


def vlp16(**fields) -> DepthCamera:
    """VelodynePuck.proto's numbers (cyberbotics/webots projects/devices/velodyne/protos): 3600
    columns over 6.28318 rad, 16 layers over 0.5236 rad; fewer columns here to keep it cheap."""
    values = dict(width=720, height=16, fov_x=6.28318, fov_y=0.5236, min_range=0.05,
                  max_range=100.0, projection='spherical')
    values.update(fields)
    return DepthCamera('lidar', 'base', **values)


def webots_layers(vfov: float, layers: int, tilt: float) -> np.ndarray:
    return np.array([vfov / 2 - i * (vfov / (layers - 1)) + tilt for i in range(layers)])


@pytest.mark.parametrize('tilt', [0.0, 0.2])
def test_layers_and_columns_are_where_webots_puts_them(parts, make_sim, tilt):
    lidar = vlp16(tilt=tilt)
    sim = make_sim(parts.make_scene(parts.sensor_host([lidar]), *room(parts)))
    reader = create_reader(sim, 'host', lidar)
    np.testing.assert_allclose(reader.layer_elevations, webots_layers(0.5236, 16, tilt),
                               atol=1e-12)
    rays = reader.directions.reshape(16, 720, 3)
    elevation = np.arcsin(rays[..., 2])
    np.testing.assert_allclose(elevation, np.repeat(webots_layers(0.5236, 16, tilt)[:, None],
                                                    720, axis=1), atol=1e-9)
    azimuth = np.arctan2(rays[0, :, 1], rays[0, :, 0])
    theta = 6.28318 / 2 - np.arange(720) * 6.28318 / 719  # Webots' fixed-lidar theta
    np.testing.assert_allclose(np.unwrap(azimuth), theta, atol=1e-9)


def test_ranges_are_the_closed_form_distances_to_the_walls(parts, make_sim):
    lidar = vlp16()
    sim = make_sim(parts.make_scene(parts.sensor_host([lidar]), *room(parts)))
    ranges = np.asarray(sim.read('host', 'lidar'))
    assert ranges.shape == (16, 720) and ranges.dtype == np.float32
    expected = distance_to_room(create_reader(sim, 'host', lidar).directions).reshape(16, 720)
    np.testing.assert_allclose(ranges, expected, atol=RANGE_TOLERANCE)


def test_a_rotating_head_times_its_columns_over_one_revolution_a_fixed_one_at_once():
    rotating = vlp16(width=10, rotating=True, frequency=5.0)
    np.testing.assert_allclose(column_times(rotating), np.arange(10) * 0.02)  # 1/(10 * 5 Hz)
    assert column_times(rotating)[-1] < 1.0 / 5.0
    np.testing.assert_array_equal(column_times(vlp16(width=10, frequency=5.0)), np.zeros(10))
    np.testing.assert_array_equal(column_times(vlp16(width=10, rotating=True)), np.zeros(10))


def test_a_one_row_lidar_still_scans_its_plane(parts, make_sim):
    lidar = vlp16(height=1, fov_y=0.2)
    sim = make_sim(parts.make_scene(parts.sensor_host([lidar]), *room(parts)))
    reader = create_reader(sim, 'host', lidar)
    np.testing.assert_array_equal(reader.layer_elevations, [0.0])
    assert np.asarray(sim.read('host', 'lidar'))[0, 0] == pytest.approx(2.0, abs=RANGE_TOLERANCE)
    assert math.isclose(reader.angle_min, 6.28318 / 2)


def test_a_16x1800_lidar_returns_every_ray_of_the_batches(parts, make_sim):
    """28800 rays: more than one PyBullet ray batch (whose largest size returned one ray fewer)."""
    lidar = vlp16(width=1800)
    sim = make_sim(parts.make_scene(parts.sensor_host([lidar]), *room(parts)))
    ranges = np.asarray(sim.read('host', 'lidar'))
    expected = distance_to_room(create_reader(sim, 'host', lidar).directions).reshape(16, 1800)
    np.testing.assert_allclose(ranges, expected, atol=RANGE_TOLERANCE)
