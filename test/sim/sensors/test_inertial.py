"""Accelerometer, gyroscope, inertial unit, GPS and compass through the real Simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import Entity, Joint, Pose, VelocityMotor
from scene_sim_ros.scene.sensors import Accelerometer, Compass, Gps, Gyroscope, InertialUnit
from scene_sim_ros.scene.transforms import matrix_from_quat, quat_from_rpy

G = 9.81


@pytest.mark.parametrize('rpy', [(0.0, 0.0, 0.0), (0.4, 0.0, 0.0), (0.3, -0.5, 1.0)])
def test_accelerometer_at_rest_reads_gravity_in_the_sensor_frame(parts, simulate, rpy):
    orientation = quat_from_rpy(*rpy)
    scene = parts.make_scene(parts.sensor_host([Accelerometer('acc', 'base')],
                                               pose=Pose((0.0, 0.0, 1.0), orientation)))
    sim = simulate(scene)
    sim.step(20)
    expected = np.array(matrix_from_quat(orientation)).T @ [0.0, 0.0, G]
    np.testing.assert_allclose(sim.read('host', 'acc'), expected, atol=0.05)


def test_accelerometer_on_a_box_resting_on_the_floor(parts, simulate):
    tilted_mount = Pose.from_xyz_rpy((0.05, 0.0, 0.0), (0.0, 0.0, math.pi / 2))
    box = parts.free_box('box', (0.3, 0.3, 0.3), (0.0, 0.0, 0.16),
                         sensors=[Accelerometer('acc', 'base', pose=tilted_mount)])
    scene = parts.make_scene(box, parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)
    sim.step(100)
    np.testing.assert_allclose(sim.read('box', 'acc'), [0.0, 0.0, G], atol=0.05)


def test_accelerometer_in_free_fall_reads_zero(parts, simulate):
    box = parts.free_box('box', (0.1, 0.1, 0.1), (0.0, 0.0, 10.0),
                         sensors=[Accelerometer('acc', 'base')])
    sim = simulate(parts.make_scene(box))
    sim.step(10)
    np.testing.assert_allclose(sim.read('box', 'acc'), [0.0, 0.0, 0.0], atol=0.05)


@pytest.mark.parametrize('mount_rpy, axis_in_sensor', [
    ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    ((math.pi / 2, 0.0, 0.0), (0.0, 1.0, 0.0)),  # sensor z turned onto the link's -y
])
def test_gyroscope_on_a_hinge_spun_at_one_radian_per_second(parts, simulate, mount_rpy,
                                                            axis_in_sensor):
    gyro = Gyroscope('gyro', 'wheel', pose=Pose.from_xyz_rpy(rpy=mount_rpy))
    hinge = Joint('hinge', 'revolute', 'base', 'wheel', origin=Pose((0.0, 0.0, 0.2)),
                  axis=(0.0, 0.0, 1.0), motor=VelocityMotor(max_velocity=5.0, max_force=100.0))
    robot = Entity(name='spinner', kind='robot',
                   links=(parts.box_link('base', (0.2, 0.2, 0.2), mass=1.0),
                          parts.box_link('wheel', (0.4, 0.1, 0.05), mass=0.5)),
                   joints=(hinge,), sensors=(gyro,), pose=Pose((0.0, 0.0, 0.5)),
                   fixed_base=True)
    sim = simulate(parts.make_scene(robot))
    sim.command('spinner', 'hinge', velocity=1.0)
    sim.step(50)
    np.testing.assert_allclose(sim.read('spinner', 'gyro'), axis_in_sensor, atol=0.02)


def test_inertial_unit_gps_and_compass_on_a_turned_body(parts, simulate):
    yaw = math.radians(30)
    mount = Pose((0.1, 0.0, 0.0))
    sensors = [InertialUnit('imu', 'base', pose=mount), Gps('gps', 'base', pose=mount),
               Compass('compass', 'base', pose=mount)]
    host = parts.sensor_host(sensors, pose=Pose((1.0, 2.0, 1.0), quat_from_rpy(0.0, 0.0, yaw)))
    sim = simulate(parts.make_scene(host))
    quaternion = sim.read('host', 'imu')
    assert abs(np.dot(quaternion, quat_from_rpy(0.0, 0.0, yaw))) == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(sim.read('host', 'gps'),
                               [1.0 + 0.1 * math.cos(yaw), 2.0 + 0.1 * math.sin(yaw), 1.0],
                               atol=1e-6)
    # north (world +y) seen from a body turned 30 deg to the left lies 60 deg to its left
    np.testing.assert_allclose(sim.read('host', 'compass'),
                               [math.sin(yaw), math.cos(yaw), 0.0], atol=1e-6)


def test_gyroscope_noise_is_seeded_gaussian(parts, simulate):
    host = parts.sensor_host([Gyroscope('gyro', 'base', noise=0.1), Gyroscope('clean', 'base')])
    sim = simulate(parts.make_scene(host))
    assert np.array_equal(sim.read('host', 'clean'), np.zeros(3))
    samples = np.array([sim.read('host', 'gyro') for _ in range(2000)])
    assert samples.std() == pytest.approx(0.1, rel=0.1)
    assert abs(samples.mean()) < 0.01
    # seeded: the same seed repeats the sequence, another seed does not
    again = simulate(parts.make_scene(host))
    other = simulate(parts.make_scene(host), seed=7)
    repeated = np.array([again.read('host', 'gyro') for _ in range(2000)])
    assert np.array_equal(samples, repeated)
    assert not np.array_equal(samples[:10], np.array([other.read('host', 'gyro')
                                                      for _ in range(10)]))
