"""The Simox robots and scenes of the corpus (``../shared/corpus/simox``): facts checked by hand
against the files. Skipped whole without the corpus; that every Simox file loads is checked in
``test_simox_examples.py``, on the shipped files always and on the corpus's where present.

Kinematics expected here are written out from the files' numbers (Simox: node frame =
parent * Transform * joint(q + offset); DH = Rz(theta) Tz(d) Tx(a) Rx(alpha)).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from formats.simox.helpers import link_matrix, rot_x, rot_y, rot_z, simox_files, trans

from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS, missing, skip_module_without

SIMOX = CORPUS / 'simox' / 'Simox'
DATA = SIMOX / 'VirtualRobot' / 'data'
skip_module_without(SIMOX)
ROBOTS = simox_files(SIMOX, 'robot')
SCENES = simox_files(SIMOX, 'scene')


@pytest.fixture
def simox(corpus_dir: Path) -> Path:
    if not SIMOX.is_dir():
        pytest.skip(missing(SIMOX))
    return SIMOX


def test_corpus_has_the_expected_files(simox):
    assert len(ROBOTS) == 32 and len(SCENES) == 9


ARMAR_JOINTS = (
    # ArmarIII.xml
    ['Yaw_Platform', 'Hip Pitch', 'Hip Roll', 'Hip Yaw']
    # ArmarIII-Head.xml
    + ['Neck_1_Pitch', 'Neck_2_Roll', 'Neck_3_Yaw', 'Head_Tilt', 'Jaw', 'Cameras',
       'VirtualCentralGaze', 'Eye_Left', 'Eye_Right', 'Lid Left Bottom', 'Lid Left Top',
       'Lid Right Bottom', 'Lid Right Top']
    # ArmarIII-LeftArm.xml, ArmarIII-RightArm.xml
    + [f'{j} {side}' for side in 'LR' for j in ('Shoulder 1', 'Shoulder 2', 'Upperarm', 'Elbow',
                                                  'Underarm', 'Wrist 1', 'Wrist 2')]
    # ArmarIII-LeftHand.xml, ArmarIII-RightHand.xml
    + [f'Hand Palm 2 {side}' for side in 'LR']
    + [f'{finger} {side} J{k}' for side in 'LR'
       for finger in ('Thumb', 'Pinky', 'Ring', 'Middle', 'Index') for k in (0, 1)]
)


def test_corpus_armar3_joints(simox):
    scene = load_scene(DATA / 'robots' / 'ArmarIII' / 'ArmarIII.xml')
    armar = scene.entity('Armar3')
    assert len(ARMAR_JOINTS) == 53
    assert sorted(j.name for j in armar.movable_joints) == sorted(ARMAR_JOINTS)
    assert armar.joint('VirtualCentralGaze').type == 'prismatic'
    assert armar.joint('VirtualCentralGaze').limits == pytest.approx((0.0, 10.0))
    assert armar.joint('Hip Pitch').limits == pytest.approx((-math.pi / 4, math.pi / 4))
    assert armar.joint('Head Base').parent == 'TrafoToHead'  # ChildFromRobot include
    platform = armar.link('Platform')
    assert platform.inertial.mass == pytest.approx(100.0)
    assert platform.inertial.com == pytest.approx((0.0, 0.0, 0.2))
    node_sets = scene.metadata['simox']['robots']['Armar3']['robot_node_sets']
    assert node_sets['TorsoLeftArm']['tcp'] == 'TCP L' and 'Head' in node_sets


def test_corpus_armar3_head_kinematics(simox):
    armar = load_scene(DATA / 'robots' / 'ArmarIII' / 'ArmarIII.xml').entity('Armar3')
    d = math.radians

    def dh(theta, dd, a, alpha):
        return rot_z(d(theta)) @ trans(0, 0, dd) @ trans(a, 0, 0) @ rot_x(d(alpha))

    q = {'Yaw_Platform': 0.3, 'Hip Pitch': 0.1, 'Neck_1_Pitch': -0.2}
    base = (dh(0, 0, 0, -90) @ dh(90, 0, 0, -90) @ dh(-90, 0, 0, 90)  # Dummy, X, Y platform
            @ dh(-90, 0, 0, 0) @ rot_z(0.3)  # Yaw_Platform
            @ trans(0, 0.158, 0.890) @ rot_x(0.1)  # Hip Pitch
            @ trans(0, -0.035, 0.485) @ trans(0, 0, 0.118)  # Center of Arms, TrafoToHead
            @ dh(90, 0, 0, 0)  # Head Base
            @ dh(0, 0, 0, 90) @ dh(90, 0, 0, 0) @ rot_z(-0.2))  # Neck_1_Pitch
    np.testing.assert_allclose(link_matrix(armar, 'Neck_1_Pitch', q), base, atol=1e-9)


def test_corpus_joint_translation_prismatic(simox):
    path = DATA / 'robots' / 'examples' / 'SimpleRobot' / 'JointTranslation.xml'
    robot = load_scene(path).entities[0]
    joint3 = robot.joint('Joint3')
    assert joint3.type == 'prismatic' and joint3.axis == (0.0, 0.0, 1.0)
    assert joint3.limits == pytest.approx((-1.0, 4.0))
    assert [j.name for j in robot.movable_joints] == ['Joint2', 'Joint3']
    q = {'Joint2': 0.4, 'Joint3': -0.5}
    # Joint2: translation z 3000 mm, rpy pitch 90 deg, revolute x; Joint3: offset 3000 mm along z
    expected = trans(0, 0, 3.0) @ rot_y(math.pi / 2) @ rot_x(0.4) @ trans(0, 0, 3.0 - 0.5)
    np.testing.assert_allclose(link_matrix(robot, 'Joint4', q), expected, atol=1e-12)
    for name in ('Joint1', 'Joint3', 'Joint4'):
        assert robot.link(name).inertial.mass == pytest.approx(1.0)


def test_corpus_robot_example_dh_and_rpy_poses(simox):
    path = DATA / 'robots' / 'examples' / 'loadRobot' / 'RobotExample.xml'
    robot = load_scene(path).entities[0]
    d = math.radians
    q2, q3 = 0.3, -0.4
    joint2 = rot_z(d(-30)) @ rot_z(q2)  # DH theta=-30 deg, axis z
    joint3 = joint2 @ rot_z(0) @ trans(0, 0, 0.1) @ rot_x(d(15)) @ trans(0.1, 0, 0) @ rot_x(q3)
    tcp = joint3 @ trans(0.1, 0, 0) @ rot_z(-0.9) @ rot_y(0.0) @ rot_x(1.57)
    q = {'Joint2': q2, 'Joint3': q3}
    np.testing.assert_allclose(link_matrix(robot, 'Joint2', q), joint2, atol=1e-12)
    np.testing.assert_allclose(link_matrix(robot, 'Joint3', q), joint3, atol=1e-12)
    np.testing.assert_allclose(link_matrix(robot, 'TCP', q), tcp, atol=1e-12)
    # at zero: TCP at (100 cos30 + 100 cos30, -100 sin30 - 100 sin30, 100) mm
    np.testing.assert_allclose(link_matrix(robot, 'TCP')[:3, 3],
                               [0.2 * math.cos(d(30)), -0.1, 0.1], atol=1e-12)
    assert robot.joint('Joint2').limits == pytest.approx((d(-90), d(45)))
    # OtherRobot.xml hangs below Joint3 (ChildFromRobot)
    assert robot.joint('otherRob1').parent == 'Joint3'
    np.testing.assert_allclose(link_matrix(robot, 'otherRob2', q), joint3 @ rot_z(d(-30)),
                               atol=1e-12)


def test_corpus_scene_viewer_scene(simox):
    scene = load_scene(DATA / 'scenes' / 'examples' / 'SceneViewer' / 'scene1.xml')
    assert scene.entity_names() == ['Armar3', 'LegoGate', 'Table']  # iCub.xml is not in the corpus
    assert any('iCub.xml' in w for w in scene.warnings)
    armar = scene.entity('Armar3')
    assert armar.pose.position == pytest.approx((1.0, 0.0, 0.0))
    assert armar.joint('Shoulder 2 R').initial_position == pytest.approx(0.8)
    table = scene.entity('Table')
    assert table.pose.position == pytest.approx((-0.337813, -0.0299237, 0.420873))
    assert table.pose.rotate((1.0, 0.0, 0.0)) == pytest.approx((-0.150358, 0.988632, 0.0),
                                                               abs=1e-5)


def test_corpus_platform_demo_loads_despite_bad_comments(simox):
    path = DATA / 'scenes' / 'examples' / 'PlatformDemo' / 'PlatformDemo.xml'
    scene = load_scene(path)
    assert any(w.startswith(f'{path}:34:') and '--' in w for w in scene.warnings)
    armar = scene.entity('Armar-III')
    assert armar.joint('X_Platform').type == 'prismatic'
    assert armar.joint('X_Platform').initial_position == pytest.approx(4.5)
    assert armar.joint('Yaw_Platform').initial_position == pytest.approx(-1.57)
    assert sum(1 for e in scene.entities if e.kind == 'static') >= 10
