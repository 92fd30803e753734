"""The RaiSim example that ships (``raisim_world.xml``: a URDF rover with a sensor set on a text
height map, ``@@`` parameters with defaults): what it holds, parameters, a PyBullet run."""

from __future__ import annotations

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.raisim import load
from scene_sim_ros.resources import example_path
from scene_sim_ros.scene import Heightfield

Simulation = pytest.importorskip('scene_sim_ros.sim.simulation').Simulation
WHEELS = ('front_left_wheel_joint', 'front_right_wheel_joint', 'rear_left_wheel_joint',
          'rear_right_wheel_joint')


def test_world_holds_a_height_map_the_rover_and_its_sensors() -> None:
    scene = load(example_path('raisim_world'))
    assert scene.warnings == ()
    assert [e.name for e in scene.entities] == ['terrain', 'rover', 'box_0', 'box_1', 'box_2',
                                                'ball']
    (terrain,) = scene.entity('terrain').links[0].collisions
    assert isinstance(terrain.shape, Heightfield)
    assert terrain.shape.heights.shape == (21, 21)
    rover = scene.entity('rover')
    assert rover.kind == 'robot' and not rover.fixed_base
    assert tuple(j.name for j in rover.joints if j.type != 'fixed') == WHEELS
    assert {s.name: s.kind for s in rover.sensors} == {
        'sensor_head_camera': 'camera', 'sensor_head_depth': 'depth_camera',
        'sensor_head_imu_accelerometer': 'accelerometer',
        'sensor_head_imu_gyroscope': 'gyroscope', 'sensor_head_imu_orientation': 'inertial_unit'}
    assert rover.pose.position == pytest.approx((0.0, 0.0, 0.14))


def test_parameters_override_the_defaults() -> None:
    scene = load(example_path('raisim_world'), parameters={'box_count': '5', 'rover_x': '-1'})
    assert [e.name for e in scene.entities if e.name.startswith('box_')] == [
        'box_0', 'box_1', 'box_2', 'box_3', 'box_4']
    assert scene.entity('rover').pose.position[0] == pytest.approx(-1.0)


def test_the_robot_urdf_alone_loads() -> None:
    scene = load_scene(example_path('raisim_rover'))
    assert [e.name for e in scene.entities] == ['rover']


def test_rover_drives_on_the_height_map() -> None:
    with Simulation(load(example_path('raisim_world'))) as sim:
        for joint in WHEELS:
            sim.command('rover', joint, velocity=5.0)
        sim.step(round(1.5 / 0.005))
        (x, y, z), _ = sim.get_pose('rover')
        imu = sim.read('rover', 'sensor_head_imu_accelerometer')
    assert x > 0.3 and abs(y) < 0.1 and 0.05 < z < 0.3, (x, y, z)
    assert imu is not None
