"""The 13 example worlds of webots_ros2 (../shared/corpus/webots/webots_ros2) with a Webots
installation: every robot appears with its devices. Needs ``SCENE_SIM_ROS_WEBOTS_HOME`` or
``WEBOTS_HOME`` (a Webots tree with ``projects/``); skipped, saying so, without one. Downloads
stay off: what the installation lacks is an error naming it."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS

WORLDS = CORPUS / 'webots' / 'webots_ros2'
HOME = os.environ.get('SCENE_SIM_ROS_WEBOTS_HOME') or os.environ.get('WEBOTS_HOME')

pytestmark = [
    pytest.mark.skipif(not WORLDS.is_dir(), reason=f'corpus {WORLDS} not present'),
    pytest.mark.skipif(not HOME or not (Path(HOME) / 'projects').is_dir(),
                       reason='no Webots installation: set SCENE_SIM_ROS_WEBOTS_HOME or '
                              'WEBOTS_HOME to a Webots tree with projects/'),
]

# world -> (robot PROTO, sensor kinds it must have at least, movable joints at least).
# Propellers are not simulated (kept as shapes, a warning): the drones' joints are the Mavic's
# camera gimbal only. Checked against the real PROTOs: TurtleBot3Burger (wheels, LDS-01 as a
# Lidar, i.e. a depth camera, and its two turret motors) and Mavic2Pro (camera, IMU, GPS).
ROBOTS = {
    'turtlebot3_burger_example.wbt': ('TurtleBot3Burger', {'depth_camera': 1, 'gyroscope': 1,
                                                           'accelerometer': 1}, 4),
    'epuck_world.wbt': ('E-puck', {'camera': 1, 'single_distance': 8}, 2),
    'rats_life_benchmark.wbt': ('E-puck', {'camera': 1, 'single_distance': 8}, 2),
    'mavic_world.wbt': ('Mavic2Pro', {'camera': 1, 'inertial_unit': 1, 'gps': 1}, 3),
    'default.wbt': ('TiagoLite', {'depth_camera': 1}, 2),
    'default_bringup.wbt': ('Tiago', {'depth_camera': 1, 'camera': 1}, 7),
    'robotic_arms.wbt': ('Irb4600-40', {}, 6),
    'crazyflie_apartment.wbt': ('Crazyflie', {'gps': 1}, 0),
    'rosbot.wbt': ('Rosbot', {'depth_camera': 1}, 4),
    'rosbot_xl.wbt': ('RosbotXl', {'depth_camera': 1}, 4),
    'tesla_world.wbt': ('TeslaModel3', {'camera': 1}, 2),
    'driver_test.wbt': ('Pioneer3at', {'depth_camera': 1}, 4),
}


def _world(name: str) -> Path:
    (path,) = WORLDS.glob(f'*/worlds/{name}')
    return path


@pytest.mark.parametrize('name', sorted(ROBOTS))
def test_webots_ros2_world_loads_with_its_robot_and_devices(name, tmp_path):
    proto, kinds, joints = ROBOTS[name]
    scene = load_scene(_world(name), parameters={'webots.download': 'false',
                                                 'webots.cache_dir': str(tmp_path)})
    assert scene.metadata['webots_protos'][proto][0] in ('installation', 'local')
    robots = [e for e in scene.entities if e.kind == 'robot']
    assert robots, f'{name}: no robot'
    have = Counter(s.kind for r in robots for s in r.sensors)
    assert all(have[k] >= n for k, n in kinds.items()), (name, have)
    assert max(len(r.movable_joints) for r in robots) >= joints


def test_universal_robot_world_has_no_robot_of_its_own():
    """The UR arms of this world come from URDF files that webots_ros2 spawns at run time."""
    scene = load_scene(_world('universal_robot.wbt'), parameters={'webots.download': 'false'})
    assert [e for e in scene.entities if e.kind == 'robot'] == []
