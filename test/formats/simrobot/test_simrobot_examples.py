"""The SimRobot examples that ship (``scene_sim_ros/data/examples``: car.ros2, arm.ros2) load
without warnings, hold what their comments promise, and behave in the simulation (every engine). No corpus needed;
what every SimRobot scene must satisfy also runs on the corpus scenes where they are present."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.simrobot import load
from scene_sim_ros.resources import example_path
from support.corpus import CORPUS as CORPUS_ROOT
from support.examples import shipped, shipped_ids

CORPUS = CORPUS_ROOT / 'simrobot'
SCENES = shipped('simrobot') + (sorted(CORPUS.rglob('*.ros2')) if CORPUS.is_dir() else [])


def sensor_kinds(entity) -> dict[str, str]:
    return {s.name: s.kind for s in entity.sensors}


def test_car_example_has_steering_drive_camera_depth_and_laser() -> None:
    scene = load(example_path('car'))
    assert scene.warnings == ()
    car = scene.entity('car')
    assert car.kind == 'robot' and not car.fixed_base
    motors = {j.name: type(j.motor).__name__ if j.motor else None for j in car.joints}
    assert motors == {'rear_left_joint': 'VelocityMotor', 'rear_right_joint': 'VelocityMotor',
                      'steer_left_joint': 'ServoMotor', 'steer_right_joint': 'ServoMotor',
                      'front_left_joint': None, 'front_right_joint': None}
    assert sensor_kinds(car) == {'camera': 'camera', 'depth_camera': 'depth_camera',
                                 'laser': 'depth_camera', 'accelerometer': 'accelerometer',
                                 'gyroscope': 'gyroscope'}
    laser = car.sensor('laser')
    assert laser.height == 1 and laser.projection == 'spherical'
    assert math.degrees(laser.fov_x) == pytest.approx(240.0)


def test_car_example_drives_and_steers_left(make_sim) -> None:
    with make_sim(load(example_path('car'))) as sim:
        for joint in ('rear_left_joint', 'rear_right_joint'):
            sim.command('car', joint, velocity=10.0)
        for joint in ('steer_left_joint', 'steer_right_joint'):
            sim.command('car', joint, position=0.3)
        sim.step(300)
        (x, y, z), _ = sim.get_pose('car')
        states = sim.joint_states('car')
        laser = sim.read('car', 'laser')
        max_range = sim.scene.entity('car').sensor('laser').max_range
    assert x > 1.0 and y > 0.5, (x, y)            # forward and to the left (+y)
    assert z == pytest.approx(0.2, abs=0.05)
    assert states['steer_left_joint'][0] == pytest.approx(0.3, abs=0.02)
    assert laser.shape == (1, 241) and (laser < max_range).any()  # max_range: nothing in range


def test_arm_example_is_a_fixed_base_arm_with_four_servo_joints() -> None:
    scene = load(example_path('arm.ros2'))
    assert scene.warnings == ()
    arm = scene.entity('arm')
    assert arm.kind == 'robot' and arm.fixed_base
    assert [j.name for j in arm.joints] == ['waist_joint', 'shoulder_joint', 'elbow_joint',
                                            'wrist_joint']
    assert all(j.type == 'revolute' and type(j.motor).__name__ == 'ServoMotor' and j.limits
               for j in arm.joints)
    assert sensor_kinds(arm) == {'wrist_camera': 'camera', 'fingertip': 'collision'}
    assert arm.joint('elbow_joint').initial_position == pytest.approx(math.radians(45))


def test_arm_example_servos_move_towards_their_targets_and_the_base_stays(make_sim) -> None:
    with make_sim(load(example_path('arm'))) as sim:
        start = sim.joint_states('arm')
        sim.command('arm', 'waist_joint', position=0.5)
        sim.command('arm', 'shoulder_joint', position=0.4)
        sim.step(round(3.0 / 0.005))
        end = sim.joint_states('arm')
        base, _ = sim.get_pose('arm')
        image = sim.read('arm', 'wrist_camera')
    assert base == pytest.approx((0.0, 0.0, 0.05), abs=1e-6)
    for joint, target in (('waist_joint', 0.5), ('shoulder_joint', 0.4)):
        assert abs(end[joint][0] - target) < abs(start[joint][0] - target) / 2, joint
    assert image.shape == (120, 160, 3)


@pytest.mark.parametrize('path', SCENES, ids=shipped_ids(SCENES, CORPUS))
def test_every_scene_loads_without_warnings(path: Path) -> None:
    scene = load_scene(path)
    assert scene.format == 'simrobot'
    assert scene.warnings == ()
    for entity in scene.entities:
        assert entity.links and len({link.name for link in entity.links}) == len(entity.links)
