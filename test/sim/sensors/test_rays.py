"""Spherical depth (laser scan) and distance sensors through the real Simulation.

Out of range the Python API gives SimRobot's values: ``max_range`` for no hit, ``min_range`` for a
hit too close (the ROS messages turn them into +inf/-inf, test/ros/test_laser_scan.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.sensors import ApproxDistanceSensor, DepthCamera, SingleDistanceSensor
from scene_sim_ros.sim.sensors import create_reader

DOWN = Pose.from_xyz_rpy(rpy=(0.0, math.pi / 2, 0.0))  # +x of the sensor points to world -z
UP = Pose.from_xyz_rpy(rpy=(0.0, -math.pi / 2, 0.0))  # +x of the sensor points to world +z


def test_spherical_one_row_scan_of_a_box_gives_the_range_per_angle(parts, simulate):
    fov, columns = math.radians(120), 61
    scan = DepthCamera('scan', 'base', columns, 1, fov, 0.0, 0.05, 5.0, projection='spherical')
    # a box whose front face is the plane x = 2 (host frame), from y = -0.5 to y = 1.0
    scene = parts.make_scene(parts.sensor_host([scan]),
                             parts.static_box('box', (0.4, 1.5, 1.0), (2.2, 0.25, 1.0)))
    sim = simulate(scene)
    ranges = sim.read('host', 'scan')
    assert ranges.shape == (1, columns) and ranges.dtype == np.float32
    angles = fov / 2 - np.arange(columns) * fov / (columns - 1)  # column 0 on the left
    lateral = 2.0 * np.tan(angles)
    on_face = (lateral > -0.5 + 0.02) & (lateral < 1.0 - 0.02)
    off_face = (lateral < -0.5 - 0.3) | (lateral > 1.0 + 0.5)
    assert on_face.sum() > 10 and off_face.sum() > 10
    np.testing.assert_allclose(ranges[0, on_face], 2.0 / np.cos(angles[on_face]), atol=1e-3)
    assert (ranges[0, off_face] == np.float32(5.0)).all()  # no hit: max_range, as SimRobot


def test_spherical_reader_exposes_the_angle_of_column_zero_and_the_increment(parts, simulate):
    scan = DepthCamera('scan', 'base', 5, 1, math.radians(90), 0.0, 0.05, 5.0,
                       projection='spherical')
    scene = parts.make_scene(parts.sensor_host([scan]),
                             parts.static_box('left_wall', (6.0, 0.2, 2.0), (0.0, 1.1, 1.0)))
    sim = simulate(scene)
    ranges = sim.read('host', 'scan')[0]
    # the wall at y = 1 on the left is seen by column 0 (+45 deg) at 1/sin(45 deg)
    assert ranges[0] == pytest.approx(math.sqrt(2.0), abs=1e-3)
    assert (ranges[2:] == np.float32(5.0)).all()
    reader = create_reader(sim, 'host', scan)
    assert reader.angle_min == pytest.approx(math.radians(45))
    assert reader.angle_increment == pytest.approx(-math.radians(22.5))
    assert reader.angle_max == pytest.approx(-math.radians(45))


def test_single_distance_sensor_over_a_floor_reads_its_height(parts, simulate):
    sensors = [SingleDistanceSensor('down', 'base', 0.01, 2.0, pose=DOWN),
               SingleDistanceSensor('short', 'base', 0.01, 0.3, pose=DOWN),
               SingleDistanceSensor('up', 'base', 0.01, 2.0)]
    scene = parts.make_scene(parts.sensor_host(sensors, pose=Pose((0.0, 0.0, 0.5))),
                             parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)
    assert sim.read('host', 'down') == pytest.approx(0.5, abs=1e-3)
    assert sim.read('host', 'short') == 0.3  # the floor is beyond max_range: max_range
    assert sim.read('host', 'up') == 2.0


def test_single_distance_sensor_reports_too_close_as_min_range(parts, simulate):
    sensor = SingleDistanceSensor('down', 'base', 0.6, 2.0, pose=DOWN)
    scene = parts.make_scene(parts.sensor_host([sensor], pose=Pose((0.0, 0.0, 0.5))),
                             parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    assert simulate(scene).read('host', 'down') == 0.6


def test_every_ray_sensor_pointing_at_the_sky_reads_its_max_range(parts, simulate):
    # closed form: nothing above the floor, so no ray hits anything within max_range
    sensors = [SingleDistanceSensor('single', 'base', 0.02, 2.0, pose=UP, noise=0.05),
               ApproxDistanceSensor('approx', 'base', 0.05, 3.0, math.radians(30),
                                    math.radians(30), pose=UP, noise=0.05),
               DepthCamera('laser', 'base', 31, 1, math.pi, 0.0, 0.05, 6.0,
                           projection='spherical', pose=UP, noise=0.05),
               DepthCamera('lidar', 'base', 16, 4, math.radians(90), math.radians(20), 0.1, 4.0,
                           projection='spherical', pose=UP)]
    scene = parts.make_scene(parts.sensor_host(sensors, pose=Pose((0.0, 0.0, 0.5))),
                             parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)
    assert sim.read('host', 'single') == 2.0  # exactly: no noise on "no hit"
    assert sim.read('host', 'approx') == 3.0
    assert (sim.read('host', 'laser') == np.float32(6.0)).all()
    assert (sim.read('host', 'lidar') == np.float32(4.0)).all()


def test_noisy_readings_stay_within_the_sensor_range(parts, simulate):
    near = SingleDistanceSensor('near', 'base', 0.45, 2.0, pose=DOWN, noise=0.2)
    far = SingleDistanceSensor('far', 'base', 0.01, 0.55, pose=DOWN, noise=0.2)
    scene = parts.make_scene(parts.sensor_host([near, far], pose=Pose((0.0, 0.0, 0.5))),
                             parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)
    near_values = [sim.read('host', 'near') for _ in range(50)]
    far_values = [sim.read('host', 'far') for _ in range(50)]
    assert all(0.45 <= v <= 2.0 for v in near_values) and 0.45 in near_values
    assert all(0.01 <= v <= 0.55 for v in far_values) and 0.55 in far_values


def test_approx_distance_sensor_finds_the_nearest_object_in_its_pyramid(parts, simulate):
    sensor = ApproxDistanceSensor('approx', 'base', 0.01, 3.0, math.radians(60), math.radians(30))
    single = SingleDistanceSensor('single', 'base', 0.01, 3.0)
    # a post off the optical axis (20 deg to the left) at 1.5 m, nothing straight ahead
    post = (1.5 * math.cos(math.radians(20)), 1.5 * math.sin(math.radians(20)), 1.0)
    scene = parts.make_scene(parts.sensor_host([sensor, single]),
                             parts.static_box('post', (0.1, 0.1, 2.0), post))
    sim = simulate(scene)
    assert sim.read('host', 'single') == 3.0  # nothing straight ahead: max_range
    assert sim.read('host', 'approx') == pytest.approx(1.5 - 0.05, abs=0.06)
