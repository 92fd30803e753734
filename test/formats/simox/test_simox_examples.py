"""The Simox examples that ship (``simox_arm.xml`` robot, ``simox_scene.xml`` using it): units,
joints, the camera, the scene's initial configuration, and a short PyBullet run. No corpus; that
every Simox file loads also runs on the corpus's robots and scenes where they are present."""

from __future__ import annotations

import math

import pytest
from formats.simox.helpers import root_tag, simox_files

from scene_sim_ros.formats import format_of, load_scene
from scene_sim_ros.formats.simox import load
from scene_sim_ros.resources import example_path
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

SIMOX = CORPUS / 'simox' / 'Simox'
DATA = SIMOX / 'VirtualRobot' / 'data'
# the shipped files always, the corpus's robots and scenes where present
FILES = shipped('simox') + simox_files(SIMOX, 'robot') + simox_files(SIMOX, 'scene')



def test_arm_robot_file() -> None:
    scene = load(example_path('simox_arm'))
    assert scene.warnings == ()
    (arm,) = scene.entities
    assert arm.kind == 'robot' and arm.fixed_base
    assert [(j.name, j.axis) for j in arm.joints if j.type != 'fixed'] == [
        ('Yaw', (0.0, 0.0, 1.0)), ('Shoulder', (0.0, 1.0, 0.0)), ('Elbow', (0.0, 1.0, 0.0))]
    assert arm.joint('Elbow').limits == pytest.approx((math.radians(-135), math.radians(135)))
    assert arm.joint('Elbow').origin.position == pytest.approx((0.0, 0.0, 0.3))   # 300 mm
    assert {s.name: s.kind for s in arm.sensors} == {'hand_camera': 'camera'}
    assert sum(link.inertial.mass for link in arm.links if link.inertial) == pytest.approx(7.0)


def test_scene_places_the_robot_at_its_init_config_beside_a_table() -> None:
    scene = load(example_path('simox_scene.xml'))
    assert scene.warnings == ()
    assert {e.name: e.kind for e in scene.entities} == {
        'arm': 'robot', 'floor': 'static', 'table': 'static', 'box': 'object'}
    arm = scene.entity('arm')
    assert arm.joint('Shoulder').initial_position == pytest.approx(math.radians(30))
    assert arm.joint('Elbow').initial_position == pytest.approx(math.radians(60))
    assert scene.entity('box').pose.position == pytest.approx((0.5, 0.1, 0.326))


def test_scene_runs_the_box_rests_on_the_table_and_the_arm_holds(make_sim) -> None:
    with make_sim(load(example_path('simox_scene'))) as sim:
        sim.step(200)
        (x, y, z), _ = sim.get_pose('box')
        states = sim.joint_states('arm')
        image = sim.read('arm', 'hand_camera')
    assert (x, y, z) == pytest.approx((0.5, 0.1, 0.325), abs=0.01)
    assert states['Elbow'][0] == pytest.approx(math.radians(60), abs=0.05)
    assert image.shape == (120, 160, 3)


@pytest.mark.parametrize('path', FILES, ids=shipped_ids(FILES, SIMOX))
def test_every_simox_file_loads(path):
    assert format_of(path) == 'simox'
    scene = load_scene(path, parameters={'SIMOX_DATA_PATH': str(DATA)})
    assert scene.format == 'simox'
    if root_tag(path).lower() == 'robot':
        (entity,) = scene.entities
        assert entity.kind == 'robot' and len(entity.links) == len(entity.joints) + 1
    for entity in scene.entities:
        for joint in entity.movable_joints:
            assert joint.motor is not None
            assert math.isclose(sum(v * v for v in joint.axis), 1.0)
