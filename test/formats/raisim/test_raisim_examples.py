"""The RaiSim example that ships (``raisim_world.xml``: a URDF rover with a sensor set on a text
height map, ``@@`` parameters with defaults): what it holds, parameters, a PyBullet run. What
holds for any world also runs on the corpus's worlds where they are present."""

from __future__ import annotations

import pytest
from formats.raisim.corpus_files import TEMPLATE_PARAMETERS, raisim_worlds
from lxml import etree

from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.raisim import load, load_sensor_set
from scene_sim_ros.resources import EXAMPLES_DIR, example_path
from scene_sim_ros.scene import Accelerometer, Camera, DepthCamera, Gyroscope, Heightfield
from support.corpus import CORPUS
from support.examples import shipped

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


def test_rover_drives_on_the_height_map(make_sim) -> None:
    with make_sim(load(example_path('raisim_world'))) as sim:
        for joint in WHEELS:
            sim.command('rover', joint, velocity=5.0)
        sim.step(round(1.5 / 0.005))
        (x, y, z), _ = sim.get_pose('rover')
        imu = sim.read('rover', 'sensor_head_imu_accelerometer')
    assert x > 0.3 and abs(y) < 0.1 and 0.05 < z < 0.3, (x, y, z)
    assert imu is not None


def test_every_world_loads() -> None:
    """Every world that ships, and every world of the corpus where it is present (13 or more)."""
    corpus = raisim_worlds(CORPUS)
    assert not CORPUS.is_dir() or len(corpus) >= 13
    worlds = shipped('raisim') + corpus
    assert worlds[0].name == 'raisim_world.xml'
    for path in worlds:
        scene = load_scene(path, parameters=TEMPLATE_PARAMETERS)
        assert scene.format == 'raisim'
        names = scene.entity_names()
        assert len(names) == len(set(names)), path


def test_height_map_text_file_of_the_example_matches_the_file() -> None:
    """The text-file height map feature on the example that ships: rows x columns, sizes and
    the heights (row-major) as raisim_terrain.txt writes them."""
    numbers = [float(v) for v in (EXAMPLES_DIR / 'raisim_terrain.txt').read_text().split()]
    columns, rows, size_x, size_y = numbers[:4]
    field = load_scene(EXAMPLES_DIR / 'raisim_world.xml').entity('terrain').root.collisions[0].shape
    assert isinstance(field, Heightfield)
    assert field.heights.shape == (rows, columns) and len(numbers) == 4 + rows * columns
    assert (field.size_x, field.size_y) == (size_x, size_y)
    assert field.heights.ravel().tolist() == numbers[4:]


def test_sensor_set_of_the_example_matches_the_file() -> None:
    """The sensor-set feature on the set that ships: each <sensor> of raisim_rover_sensors.xml
    becomes sensors named <link>_<name> on that link, with the file's sizes, field of view, clip
    and origin; the IMU becomes an accelerometer, a gyroscope and an orientation."""
    path = EXAMPLES_DIR / 'raisim_rover_sensors.xml'
    declared = etree.parse(str(path)).getroot().findall('.//sensor')
    loaded = load_sensor_set(path, link='head')
    assert loaded.warnings == ()
    by_name = {s.name: s for s in loaded.sensors}
    for sensor in declared:
        name, kind = f"head_{sensor.get('name')}", sensor.get('type')
        xyz = tuple(float(v) for v in sensor.find('origin').get('xyz').split())
        if kind == 'imu':
            parts = [by_name[f'{name}_{part}'] for part in ('accelerometer', 'gyroscope',
                                                            'orientation')]
            assert [type(s) for s in parts[:2]] == [Accelerometer, Gyroscope]
            assert all(s.link == 'head' and s.pose.position == xyz for s in parts)
            continue
        camera, image, clip = sensor.find('camera'), sensor.find('camera/image'), \
            sensor.find('camera/clip')
        loaded_sensor = by_name[name]
        assert type(loaded_sensor) is {'rgb': Camera, 'depth': DepthCamera}[kind]
        assert (loaded_sensor.width, loaded_sensor.height) == (int(image.get('width')),
                                                              int(image.get('height')))
        assert loaded_sensor.fov_x == float(camera.get('horizontal_fov'))
        assert loaded_sensor.pose.position == xyz and loaded_sensor.link == 'head'
        if kind == 'depth':
            assert (loaded_sensor.min_range, loaded_sensor.max_range) == (
                float(clip.get('near')), float(clip.get('far')))
    assert len(loaded.sensors) == len(declared) + 2   # the IMU is three sensors
