"""The 13 example worlds of webots_ros2 (../shared/corpus/webots/webots_ros2) with a Webots
installation: every robot appears with its devices. Needs ``SCENE_SIM_ROS_WEBOTS_HOME`` or
``WEBOTS_HOME`` (a Webots tree with ``projects/``); the module is skipped whole, saying so,
without one. Downloads stay off: what the installation lacks is an error naming it."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS, skip_module_without

WORLDS = CORPUS / 'webots' / 'webots_ros2'
HOME = os.environ.get('SCENE_SIM_ROS_WEBOTS_HOME') or os.environ.get('WEBOTS_HOME')

skip_module_without(WORLDS)
if not HOME or not (Path(HOME) / 'projects').is_dir():
    pytest.skip('no Webots installation: set SCENE_SIM_ROS_WEBOTS_HOME or WEBOTS_HOME to a '
                'Webots tree with projects/', allow_module_level=True)

# world -> (robot PROTO, sensor kinds of the robot, movable joints). Counted in the PROTO files
# (R2023b-R2025a) and the world's slots: a Lidar is a depth camera, a RangeFinder too, a
# TouchSensor is 'collision'; LightSensor, LED, Emitter/Receiver, Speaker and Display are not
# simulated (warnings), nor are Propellers (the drones keep only the Mavic's gimbal joints).
EXACT = {
    # wheels (2 PositionSensor), LDS-01 Lidar and its 2 turret motors, gps, IMU devices
    'turtlebot3_burger_example.wbt': ('TurtleBot3Burger', {
        'joint_position': 2, 'depth_camera': 1, 'gps': 1, 'inertial_unit': 1,
        'accelerometer': 1, 'gyroscope': 1, 'compass': 1}, 4),
    # version "2": 8 E-puckDistanceSensor + the ToF DistanceSensor, camera, accelerometer, gyro
    'epuck_world.wbt': ('E-puck', {
        'joint_position': 2, 'single_distance': 9, 'camera': 1, 'accelerometer': 1,
        'gyroscope': 1}, 2),
    'rats_life_benchmark.wbt': ('E-puck', {
        'joint_position': 2, 'single_distance': 9, 'camera': 1, 'accelerometer': 1,
        'gyroscope': 1}, 2),
    # camera on a 3-joint gimbal, compass, gps, gyro, inertial unit
    'mavic_world.wbt': ('Mavic2Pro', {
        'joint_position': 3, 'camera': 1, 'compass': 1, 'gps': 1, 'gyroscope': 1,
        'inertial_unit': 1}, 3),
    # TiagoBase (IMU, 3 sonars, bumper, 2 wheels, 8 passive caster joints), TiagoBody
    # (torso + 2 head joints) and the world's 'hokuyo' Lidar in lidarSlot
    'default.wbt': ('TiagoLite', {
        'joint_position': 5, 'depth_camera': 1, 'accelerometer': 1, 'inertial_unit': 1,
        'gyroscope': 1, 'collision': 1, 'single_distance': 3}, 13),
    # as TiagoLite, plus TiagoFrontArm (7 joints), TiagoGripper (2 fingers), Astra (rgb + depth)
    'default_bringup.wbt': ('Tiago', {
        'joint_position': 14, 'camera': 1, 'depth_camera': 2, 'accelerometer': 1,
        'inertial_unit': 1, 'gyroscope': 1, 'collision': 1, 'single_distance': 3}, 22),
    # multiranger (4 DistanceSensor), camera, gps, gyro, inertial unit; 4 propellers
    'crazyflie_apartment.wbt': ('Crazyflie', {
        'single_distance': 4, 'camera': 1, 'gps': 1, 'gyroscope': 1, 'inertial_unit': 1}, 0),
    # 4 wheels, 4 range sensors, gps, Mpu-9250 with its inertial unit, Astra, RpLidarA2
    'rosbot.wbt': ('Rosbot', {
        'joint_position': 4, 'single_distance': 4, 'gps': 1, 'accelerometer': 1,
        'gyroscope': 1, 'compass': 1, 'inertial_unit': 1, 'camera': 1, 'depth_camera': 2}, 4),
    # 4 mecanum wheels, RpLidarA2 'laser', Mpu-9250 with its inertial unit
    'rosbot_xl.wbt': ('RosbotXl', {
        'joint_position': 4, 'depth_camera': 1, 'accelerometer': 1, 'gyroscope': 1,
        'compass': 1, 'inertial_unit': 1}, 4),
    # 16 sonars, 4 wheels; the world's extensionSlot: RobotisLds01 (+2 motors), Kinect
    # (camera + range, tilt motor), camera, gps, gyro, inertial unit, accelerometer
    'driver_test.wbt': ('Pioneer3at', {
        'joint_position': 4, 'single_distance': 16, 'depth_camera': 2, 'camera': 2, 'gps': 1,
        'gyroscope': 1, 'inertial_unit': 1, 'accelerometer': 1}, 7),
}

# Not yet checked against their full PROTOs (Robotiq3fGripper, the Tesla's parts): at least.
AT_LEAST = {
    'robotic_arms.wbt': ('Irb4600-40', {'joint_position': 6, 'single_distance': 1}, 6),
    'tesla_world.wbt': ('TeslaModel3', {'camera': 1}, 2),
}

# PROTO files of the installation each world needs beyond the ones every installation has;
# a partial tree without them skips that world, naming the file.
NEEDS = {
    'robotic_arms.wbt': ['devices/robotiq/protos/Robotiq3fGripper.proto'],
    'tesla_world.wbt': [f'vehicles/protos/{name}.proto' for name in (
        'tesla/TeslaModel3', 'tesla/TeslaModel3Wheel', 'tesla/TeslaModel3FrontLights',
        'tesla/TeslaModel3Coachwork', 'tesla/TeslaModel3Windows', 'tesla/TeslaModel3Details',
        'abstract/Car', 'abstract/VehicleLights')],
}


def _world(name: str) -> Path:
    (path,) = WORLDS.glob(f'*/worlds/{name}')
    return path


def _robots(name: str, proto: str, tmp_path: Path) -> list:
    absent = [p for p in NEEDS.get(name, []) if not (Path(HOME) / 'projects' / p).is_file()]
    if absent:
        pytest.skip(f'{name}: the installation {HOME} lacks {", ".join(absent)}')
    scene = load_scene(_world(name), parameters={'webots.download': 'false',
                                                 'webots.cache_dir': str(tmp_path)})
    assert scene.metadata['webots_protos'][proto][0] in ('installation', 'local')
    robots = [e for e in scene.entities if e.kind == 'robot']
    assert robots, f'{name}: no robot'
    return robots


@pytest.mark.parametrize('name', sorted(EXACT))
def test_webots_ros2_world_loads_with_its_robot_and_devices(name, tmp_path):
    proto, kinds, joints = EXACT[name]
    (robot,) = _robots(name, proto, tmp_path)
    assert Counter(s.kind for s in robot.sensors) == Counter(kinds), name
    assert len(robot.movable_joints) == joints


@pytest.mark.parametrize('name', sorted(AT_LEAST))
def test_webots_ros2_world_loads_with_at_least_these_devices(name, tmp_path):
    proto, kinds, joints = AT_LEAST[name]
    robots = _robots(name, proto, tmp_path)
    have = Counter(s.kind for r in robots for s in r.sensors)
    assert all(have[k] >= n for k, n in kinds.items()), (name, have)
    assert max(len(r.movable_joints) for r in robots) >= joints


def test_robot_keeps_the_name_the_world_gives_it(tmp_path):
    """TiagoBase's Robot writes both `name IS name` and `name "TIAGo base"`; Webots keeps IS."""
    (robot,) = _robots('default.wbt', 'TiagoLite', tmp_path)
    assert robot.name == 'Tiago_Lite' and robot.source == 'TiagoLite'


def test_universal_robot_world_has_no_robot_of_its_own():
    """The UR arms of this world come from URDF files that webots_ros2 spawns at run time."""
    scene = load_scene(_world('universal_robot.wbt'), parameters={'webots.download': 'false'})
    assert [e for e in scene.entities if e.kind == 'robot'] == []
