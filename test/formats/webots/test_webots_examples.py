"""The Webots example that ships (``webots_scout.wbt`` with its local ``ScoutRobot.proto``,
R2023b): the PROTO resolves through a relative EXTERNPROTO, every common device maps, and the
robot drives in PyBullet. No corpus needed; what any world or PROTO file must satisfy also runs
on the corpus's urdf2webots PROTOs where they are present."""

from __future__ import annotations

import re

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.webots import load
from scene_sim_ros.resources import example_path
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

URDF2WEBOTS = 'webots/urdf2webots/tests/expected'



def test_world_header_and_relative_externproto() -> None:
    world = example_path('webots_scout')
    text = world.read_text(encoding='utf-8')
    assert text.startswith('#VRML_SIM R2023b utf8\n')
    assert 'EXTERNPROTO "ScoutRobot.proto"' in text
    assert (world.parent / 'ScoutRobot.proto').is_file()


def test_scout_world_loads_with_every_device() -> None:
    scene = load(example_path('webots_scout.wbt'))
    assert scene.warnings == ()
    assert scene.step_length == pytest.approx(0.016)
    assert {e.name: e.kind for e in scene.entities} == {
        'floor': 'static', 'wall_north': 'static', 'wall_south': 'static', 'wall_east': 'static',
        'wall_west': 'static', 'crate': 'object', 'ball': 'object', 'scout': 'robot'}
    scout = scene.entity('scout')
    assert [(j.name, j.type) for j in scout.joints] == [('left_wheel_motor', 'revolute'),
                                                        ('right_wheel_motor', 'revolute')]
    assert {s.name: s.kind for s in scout.sensors} == {
        'left_wheel_sensor': 'joint_position', 'right_wheel_sensor': 'joint_position',
        'camera': 'camera', 'lidar': 'depth_camera', 'front_distance': 'single_distance',
        'accelerometer': 'accelerometer', 'gyro': 'gyroscope', 'inertial_unit': 'inertial_unit'}
    assert scout.sensor('camera').width == 320 and scout.sensor('lidar').height == 1


def test_the_viewpoint_is_kept_as_the_world_gives_it() -> None:
    """Webots' Viewpoint: position (0.5, -4, 3), orientation axis (-0.3, 0.3, 0.9) angle 1.7 rad
    (R2023b, z up: no axis conversion)."""
    import math
    viewpoint = load(example_path('webots_scout.wbt')).metadata['viewpoint']
    assert viewpoint.position == pytest.approx((0.5, -4.0, 3.0))
    x, y, z, w = viewpoint.orientation
    assert 2 * math.acos(w) == pytest.approx(1.7)
    norm = math.sqrt(0.3 ** 2 + 0.3 ** 2 + 0.9 ** 2)
    s = math.sin(0.85)
    assert (x, y, z) == pytest.approx((-0.3 / norm * s, 0.3 / norm * s, 0.9 / norm * s))


def test_the_proto_alone_is_a_robot_with_its_default_fields() -> None:
    scene = load(example_path('ScoutRobot'))
    (robot,) = scene.entities
    assert robot.kind == 'robot' and len(robot.joints) == 2 and len(robot.sensors) == 8


def test_scout_drives_forward_on_its_wheels(make_sim) -> None:
    with make_sim(load(example_path('webots_scout'))) as sim:
        sim.command('scout', 'left_wheel_motor', velocity=5.0)
        sim.command('scout', 'right_wheel_motor', velocity=5.0)
        sim.step(round(2.0 / 0.016))
        (x, y, _), _ = sim.get_pose('scout')
        ranges = sim.read('scout', 'lidar')
    assert x > 0.3 and abs(y) < 0.1, (x, y)
    assert ranges.shape[0] == 1 and (ranges[ranges < 10] > 0).all()


def test_world_with_only_local_protos_loads_in_strict_mode():
    """The strict-mode twin of the test above: a world whose PROTOs are all local (the Webots
    world that ships, EXTERNPROTO "ScoutRobot.proto") loads in strict mode with no warning."""
    (world,) = [p for p in shipped('webots') if p.suffix == '.wbt']
    assert re.findall(r'EXTERNPROTO\s+"([^"]+)"', world.read_text()) == ['ScoutRobot.proto']
    scene = load_scene(world, strict=True)
    assert scene.warnings == ()
    assert [e.name for e in scene.entities if e.kind == 'robot'] == ['scout']


def proto_motors(path):
    """How many motors (RotationalMotor, LinearMotor) the text of a PROTO file declares."""
    return len(re.findall(r'\b(?:Rotational|Linear)Motor\s*\{', path.read_text()))


# the PROTO that ships (its motors counted in its text), and urdf2webots' where the corpus is
PROTOS = [(path, proto_motors(path)) for path in shipped('webots') if path.suffix == '.proto'] + [
    (CORPUS / URDF2WEBOTS / proto, joints) for proto, joints in
    [('KukaLbrIiwa14R820.proto', 7), ('MotomanSia20d.proto', 7), ('RobotWithDummyLink.proto', 0),
     ('RobotWithLocalMeshes.proto', 0)] if (CORPUS / URDF2WEBOTS / proto).is_file()]


@pytest.mark.parametrize('path, joints', PROTOS,
                         ids=shipped_ids([p for p, _ in PROTOS], CORPUS / URDF2WEBOTS))
def test_urdf2webots_proto_file_loads_as_its_robot(path, joints):
    scene = load_scene(path)
    robot, = scene.entities
    # the robot is named by the default of the PROTO's name field
    name = re.search(r'field\s+SFString\s+name\s+"([^"]*)"', path.read_text())[1]
    assert robot.name == name and robot.kind == 'robot'
    assert len(robot.movable_joints) == joints
    assert len([s for s in robot.sensors if s.kind == 'joint_position']) == joints
