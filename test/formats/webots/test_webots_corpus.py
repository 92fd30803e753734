"""Real Webots files (../shared/corpus/webots): what loads and what it contains. Skipped whole
without the corpus; what any world or PROTO file must satisfy is in ``test_webots_examples.py``
and runs on the files that ship too."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS, skip_module_without

SAMPLES = 'webots/webots/projects/samples/devices/worlds'
DRIVER_TEST = 'webots/webots_ros2/webots_ros2_tests/worlds/driver_test.wbt'
URDF2WEBOTS = 'webots/urdf2webots/tests/expected'
skip_module_without(CORPUS / 'webots')

# world -> (time step, sensor kinds of its robot, joints)
EXPECTED = {
    'camera.wbt': (0.032, {'camera': 1, 'single_distance': 2, 'joint_position': 2},
                   ['left wheel motor', 'right wheel motor']),
    'range_finder.wbt': (0.032, {'depth_camera': 1, 'joint_position': 2},
                         ['left wheel motor', 'right wheel motor']),
    'accelerometer.wbt': (0.008, {'accelerometer': 1, 'single_distance': 2, 'joint_position': 2,
                                  'led': 4}, ['left wheel motor', 'right wheel motor']),
    'inertial_unit.wbt': (0.016, {'inertial_unit': 1}, ['roll motor', 'pitch motor',
                                                        'yaw motor']),
}


@pytest.mark.parametrize('world', sorted(EXPECTED))
def test_device_sample_world_loads_with_its_devices(corpus_dir, world):
    scene = load_scene(corpus_dir / SAMPLES / world)
    step, sensor_kinds, joints = EXPECTED[world]
    robots = [e for e in scene.entities if e.kind == 'robot']
    assert len(robots) == 1
    robot = robots[0]
    assert scene.format == 'webots' and scene.step_length == step
    assert Counter(s.kind for s in robot.sensors) == sensor_kinds
    assert sorted(j.name for j in robot.movable_joints) == sorted(joints)
    assert all(j.motor is not None and j.motor.kind == 'servo' for j in robot.movable_joints)
    # the remote floor is replaced by a plane, the remote background is left out with a warning
    assert scene.entity('rectangle arena').root.collisions[0].shape.kind == 'plane'
    assert any('TexturedBackground' in w for w in scene.warnings)


def test_camera_sample_camera_matches_the_file(corpus_dir):
    robot = load_scene(corpus_dir / SAMPLES / 'camera.wbt').entity('MyBot')
    camera = robot.sensor('camera')
    assert (camera.width, camera.height, camera.fov_x, camera.noise) == (80, 60, 1.047, 0.04)
    assert camera.pose.position == (0.04, 0.0, 0.0915)
    assert robot.mass == pytest.approx(0.6)  # body 0.5 kg + two 0.05 kg wheels
    assert robot.sensor('ds0').max_range == 0.15


def test_inertial_unit_sample_robot_without_physics_is_fixed(corpus_dir):
    robot = load_scene(corpus_dir / SAMPLES / 'inertial_unit.wbt').entity('robot')
    assert robot.fixed_base
    assert robot.joint('pitch motor').limits == (-2.3, 1.5)


def test_device_sample_worlds_fail_in_strict_mode_naming_missing_protos(corpus_dir):
    with pytest.raises(SceneLoadError) as err:
        load_scene(corpus_dir / SAMPLES / 'camera.wbt', strict=True)
    assert 'RectangleArena' in str(err.value) and 'TexturedBackground' in str(err.value)


DRIVER_TEST_REMOTE = ['TexturedBackground', 'TexturedBackgroundLight', 'Floor', 'CardboardBox',
                      'Pioneer3at', 'RobotisLds01', 'Kinect', 'Plaster', 'RedBricks']


def test_driver_test_world_names_each_missing_remote_proto(corpus_dir, tmp_path):
    # webots.home names a folder without projects/: no installation, even where one is set up
    with pytest.raises(SceneLoadError) as err:
        load_scene(corpus_dir / DRIVER_TEST, parameters={'webots.home': str(tmp_path)})
    message = str(err.value)
    assert 'PROTO Pioneer3at is not available locally' in message
    assert 'Pioneer3at was looked for in: ' in message and 'to fix: set WEBOTS_HOME' in message
    also = message.split('also missing: ')[1].split('\n')[0].split(', ')
    assert sorted([*also, 'Pioneer3at']) == sorted(DRIVER_TEST_REMOTE)


def test_driver_test_world_loads_where_its_protos_are_local(corpus_dir, tmp_path):
    world = tmp_path / 'worlds' / 'driver_test.wbt'
    world.parent.mkdir()
    shutil.copy(corpus_dir / DRIVER_TEST, world)
    protos = tmp_path / 'protos'
    protos.mkdir()
    for name in DRIVER_TEST_REMOTE:  # minimal local stand-ins with the interfaces used
        body = ('Robot { name IS name controller IS controller supervisor IS supervisor '
                'children IS extensionSlot physics Physics { mass 10 } '
                'boundingObject Box { size 0.5 0.4 0.2 } }' if name == 'Pioneer3at'
                else 'Solid { translation IS translation rotation IS rotation }')
        (protos / f'{name}.proto').write_text(f"""#VRML_SIM R2023b utf8
PROTO {name} [
  field SFVec3f translation 0 0 0  field SFRotation rotation 0 0 1 0
  field SFString name "{name}"  field SFString controller ""  field SFBool supervisor FALSE
  field MFNode extensionSlot [ ]  field SFColor colorOverride 1 1 1
] {{ {body} }}
""")
    scene = load_scene(world)
    robot = scene.entity('Pioneer_3_AT')
    assert robot.kind == 'robot' and robot.mass == pytest.approx(10 + 1000 * 3.14159 * 0.012 ** 2
                                                                * 0.2, rel=1e-3)
    kinds = Counter(s.kind for s in robot.sensors)
    assert kinds == {'gyroscope': 1, 'inertial_unit': 1, 'accelerometer': 1, 'gps': 1,
                     'camera': 1, 'led': 1, 'light_sensor': 1}
    assert scene.metadata['controllers'] == {'Pioneer_3_AT': '<extern>'}


def test_urdf2webots_dummy_links_are_fixed_links_with_density_mass(corpus_dir):
    robot = load_scene(corpus_dir / URDF2WEBOTS / 'RobotWithDummyLink.proto').entities[0]
    assert [link.name for link in robot.links] == ['RobotWithDummyLink', 'link_1', 'link_2']
    assert [j.type for j in robot.joints] == ['fixed', 'fixed']
    # Physics {} : density 1000 x cylinder r 0.1 h 0.4 for each of the three solids
    assert robot.mass == pytest.approx(3 * 1000 * 3.141592653589793 * 0.01 * 0.4)
