"""Mobile-base maths without ROS: wheel detection from the scene, diff-drive kinematics in
closed form, the twist controller (limits, timeout), odometry with and without noise."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros import load_scene
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import quat_from_axis_angle
from scene_sim_ros.sim.mobile_base import (
    OdometryEstimator,
    OdometryNoise,
    TwistController,
    TwistLimits,
    base_link_name,
    diff_drive_twist,
    diff_drive_wheel_speeds,
    find_diff_drive,
    wheel_geometry,
)

DEFAULT_SCENE = (Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'scenes'
                 / 'default.ros2')


@pytest.fixture(scope='module')
def scene():
    return load_scene(DEFAULT_SCENE)


def test_default_rover_wheels_come_from_the_scene(scene):
    rover = scene.entity('rover')
    geometry = find_diff_drive(rover)
    assert geometry is not None
    assert (geometry.left_joint, geometry.right_joint) == ('left_wheel_joint', 'right_wheel_joint')
    # the scene: wheels at y = +-0.18 (Translation y="0.18"), CylinderGeometry radius="80mm"
    left = rover.joint('left_wheel_joint').origin.position
    right = rover.joint('right_wheel_joint').origin.position
    assert geometry.separation == pytest.approx(left[1] - right[1]) == pytest.approx(0.36)
    wheel = rover.link('left_wheel').collisions[0].shape
    assert geometry.radius == pytest.approx(wheel.radius) == pytest.approx(0.08)
    assert (geometry.left_sign, geometry.right_sign) == (1.0, 1.0)  # positive = forward
    assert geometry.max_wheel_velocity == pytest.approx(10.0)  # VelocityMotor maxVelocity
    assert wheel_geometry(rover, 'left_wheel_joint', 'right_wheel_joint') == geometry
    assert base_link_name(rover) == 'rover'


def test_no_drive_on_bodies_without_wheels(scene):
    assert find_diff_drive(scene.entity('ball')) is None
    rover = scene.entity('rover')
    one_wheel = dataclasses.replace(rover, joints=tuple(
        j for j in rover.joints if j.name != 'right_wheel_joint'))
    assert find_diff_drive(one_wheel) is None
    with pytest.raises(ValueError, match='no revolute joint'):
        wheel_geometry(rover, 'left_wheel_joint', 'mast_joint')


def test_a_flipped_wheel_axis_flips_its_sign(scene):
    rover = scene.entity('rover')
    joints = tuple(dataclasses.replace(j, axis=tuple(-a for a in j.axis))
                   if j.name == 'right_wheel_joint' else j for j in rover.joints)
    geometry = find_diff_drive(dataclasses.replace(rover, joints=joints))
    assert (geometry.left_sign, geometry.right_sign) == (1.0, -1.0)
    assert geometry.joint_velocities(0.8, 0.0) == pytest.approx((10.0, -10.0))


@pytest.mark.parametrize('v, w', [(0.5, 0.0), (0.0, 1.0), (0.3, -0.7), (-0.2, 0.4)])
def test_diff_drive_kinematics_closed_form(v, w):
    s, r = 0.36, 0.08
    left, right = diff_drive_wheel_speeds(v, w, s, r)
    assert left == pytest.approx((v - w * s / 2) / r)
    assert right == pytest.approx((v + w * s / 2) / r)
    assert diff_drive_twist(left, right, s, r) == pytest.approx((v, w))
    # a turn on the spot: the wheels roll along the circle of radius s/2
    if v == 0.0:
        assert right * r == pytest.approx(w * s / 2) and left == pytest.approx(-right)


def test_wheel_speed_limit_keeps_the_curvature(scene):
    geometry = find_diff_drive(scene.entity('rover'))
    left, right = geometry.joint_velocities(2.0, 2.0)  # far beyond 10 rad/s * 0.08 m
    assert max(abs(left), abs(right)) == pytest.approx(10.0)
    v, w = diff_drive_twist(left, right, geometry.separation, geometry.radius)
    assert w / v == pytest.approx(1.0)


def test_the_rover_drives_as_commanded_in_the_simulation(make_sim, scene):
    geometry = find_diff_drive(scene.entity('rover'))
    with make_sim(scene) as sim:
        sim.step(20)
        start = sim.get_pose('rover')[0]
        left, right = geometry.joint_velocities(0.5, 0.0)
        sim.command('rover', geometry.left_joint, velocity=left)
        sim.command('rover', geometry.right_joint, velocity=right)
        sim.step(200)
        end = sim.get_pose('rover')[0]
        assert end[0] - start[0] == pytest.approx(1.0, abs=0.05)
        assert abs(end[1] - start[1]) < 0.01


def test_controller_limits_ramp_and_timeout():
    controller = TwistController(TwistLimits(linear_velocity=1.0, angular_velocity=0.5,
                                             linear_acceleration=2.0), timeout=0.5)
    assert controller.update(0.0, 0.01) is None  # idle until commanded
    controller.command(3.0, 0.0, -2.0, t=0.0)
    assert controller.target == (1.0, 0.0, -0.5)
    assert controller.update(0.0, 0.01) == pytest.approx((0.02, 0.0, -0.5))  # 2 m/s^2 ramp
    t = 0.0
    while t < 0.49:
        t += 0.01
        twist = controller.update(t, 0.01)
    assert twist[0] == pytest.approx(1.0)  # 2 m/s^2 for 0.5 s, capped at 1 m/s
    twist = controller.update(0.5, 0.01)  # timed out: decelerates to zero
    assert twist[0] == pytest.approx(0.98)
    for k in range(100):
        twist = controller.update(0.5 + 0.01 * k, 0.01)
        if twist is None:
            break
    assert twist is None and controller.current == (0.0, 0.0, 0.0)


def test_controller_without_limits_follows_at_once_and_stops_after_the_timeout():
    controller = TwistController(timeout=0.5)
    controller.command(0.5, 0.0, 0.1, t=1.0)
    assert controller.update(1.0, 0.01) == (0.5, 0.0, 0.1)
    assert controller.update(1.49, 0.01) == (0.5, 0.0, 0.1)
    assert controller.update(1.5, 0.01) == (0.0, 0.0, 0.0)
    assert controller.update(1.51, 0.01) is None  # idle: other commands are not overridden


def test_noise_free_odometry_is_the_ground_truth():
    estimator = OdometryEstimator()
    pose = Pose((1.0, 2.0, 0.1), quat_from_axis_angle((0.0, 0.0, 1.0), 0.3))
    assert estimator.update(pose) == pose
    assert estimator.variances() == (1e-6, 1e-6)


def test_noisy_odometry_drifts_reproducibly_and_ignores_teleports():
    noise = OdometryNoise(linear=0.05, angular=0.02, drift_linear=0.1)

    def run(seed):
        estimator = OdometryEstimator(noise, np.random.default_rng(seed))
        for k in range(201):  # 2 m straight along x in 1 cm steps
            estimator.update(Pose((0.01 * k, 0.0, 0.0)))
        return estimator
    a, b, c = run(1), run(1), run(2)
    assert a.estimate == b.estimate and a.estimate != c.estimate
    # 10 % long on average, noise of 0.05 * sqrt(2 m) = 7 cm
    assert a.estimate.position[0] == pytest.approx(2.2, abs=0.25)
    assert a.distance == pytest.approx(2.0)
    position_variance, heading_variance = a.variances()
    assert position_variance == pytest.approx(0.05 ** 2 * 2.0)
    before = a.estimate
    a.update(Pose((5.0, 3.0, 0.0)))  # a teleport is not motion
    assert a.estimate == before
    # world -> odom absorbs the difference: truth = (world -> odom) * estimate
    truth = Pose((5.0, 3.0, 0.0))
    world_odom = truth * a.estimate.inverse()
    assert (world_odom * a.estimate).is_close(truth, 1e-9, 1e-9)
    assert not math.isclose(world_odom.position[0], 0.0)
