"""URDF export: PyBullet reads back the links, joints, limits and masses of the model."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pybullet as pb
import pytest

from scene_sim_ros.scene import Capsule, Collision, Entity, Inertial, Link, Mesh, Pose, Torus
from scene_sim_ros.sim.urdf import entity_to_urdf
from support.corpus import missing
from support.examples import shipped, shipped_ids

from .conftest import GAME, arm, servo


def _load_back(urdf_text: str, tmp_path) -> tuple[int, int]:
    path = tmp_path / 'robot.urdf'
    path.write_text(urdf_text)
    client = pb.connect(pb.DIRECT)
    body = pb.loadURDF(str(path), physicsClientId=client)
    return client, body


def _assert_same_robot(entity: Entity, client: int, body: int) -> None:
    root_mass = pb.getDynamicsInfo(body, -1, physicsClientId=client)[0]
    assert root_mass == pytest.approx(entity.root.inertial.mass)
    joints = {}
    for j in range(pb.getNumJoints(body, physicsClientId=client)):
        info = pb.getJointInfo(body, j, physicsClientId=client)
        joints[info[1].decode()] = (j, info)
    assert set(joints) == {joint.name for joint in entity.joints}
    for joint in entity.joints:
        j, info = joints[joint.name]
        assert info[12].decode() == joint.child  # link name
        assert pb.getDynamicsInfo(body, j, physicsClientId=client)[0] == pytest.approx(
            entity.link(joint.child).inertial.mass)
        if joint.movable:
            expected = {'revolute': pb.JOINT_REVOLUTE, 'prismatic': pb.JOINT_PRISMATIC}
            assert info[2] == expected[joint.type]
            assert info[13] == pytest.approx(joint.axis)
            if joint.limits is not None:
                assert (info[8], info[9]) == pytest.approx(joint.limits)


def test_urdf_of_arm_loads_back_with_same_joints_and_masses(tmp_path):
    entity = arm(servo(max_velocity=2.0, max_force=7.0))
    client, body = _load_back(entity_to_urdf(entity, mesh_dir=tmp_path), tmp_path)
    _assert_same_robot(entity, client, body)
    info = pb.getJointInfo(body, 0, physicsClientId=client)
    assert (info[10], info[11]) == (7.0, 2.0)  # effort and velocity limits from the motor
    pb.disconnect(client)


def test_urdf_writes_meshes_as_file_uris_and_capsules_as_three_shapes(tmp_path):
    mesh = Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 2, 1], [0, 1, 3], [0, 3, 2],
                                                               [1, 2, 3]])
    link = Link('base', Inertial(1.0, (0, 0, 0), (0.1, 0, 0, 0.1, 0, 0.1)),
                collisions=(Collision(Capsule(0.1, 0.4)), Collision(mesh),
                            Collision(Torus(0.3, 0.05), Pose((0, 0, 1)))))
    text = entity_to_urdf(Entity('thing', 'object', (link,)), mesh_dir=tmp_path)
    root = ET.fromstring(text)
    filenames = [m.get('filename') for m in root.iter('mesh')]
    assert len(filenames) == 2 and all(f.startswith('file:///') for f in filenames)
    assert all((tmp_path / f.rsplit('/', 1)[1]).is_file() for f in filenames)
    assert len(root.findall('link/collision')) == 3 + 2
    client, body = _load_back(text, tmp_path)
    assert pb.getDynamicsInfo(body, -1, physicsClientId=client)[0] == 1.0
    pb.disconnect(client)


def test_urdf_of_nao_loads_back_with_same_links_joints_limits_and_masses(tmp_path):
    if not GAME.is_file():
        pytest.skip(missing(GAME))
    from scene_sim_ros import load_scene
    nao = load_scene(GAME).entity('robot1')
    _assert_loads_back(nao, tmp_path)
    assert math.isclose(nao.mass, 5.36, rel_tol=0.05)  # a NAO weighs about 5.4 kg


def _assert_loads_back(entity: Entity, tmp_path) -> None:
    client, body = _load_back(entity_to_urdf(entity, mesh_dir=tmp_path), tmp_path)
    try:
        assert pb.getNumJoints(body, physicsClientId=client) == len(entity.links) - 1
        _assert_same_robot(entity, client, body)
        total = sum(pb.getDynamicsInfo(body, j, physicsClientId=client)[0]
                    for j in range(-1, len(entity.links) - 1))
        assert total == pytest.approx(entity.mass)
    finally:
        pb.disconnect(client)


SHIPPED = shipped()


@pytest.mark.parametrize('path', SHIPPED, ids=shipped_ids(SHIPPED))
def test_urdf_of_every_shipped_robot_loads_back_with_same_links_joints_limits_and_masses(
        tmp_path, path):
    """The NAO test's round trip on each robot of the scenes that ship (every format)."""
    from scene_sim_ros import load_scene
    robots = [e for e in load_scene(path).entities if e.kind == 'robot']
    assert robots
    for robot in robots:
        assert robot.movable_joints and robot.mass > 0
        _assert_loads_back(robot, tmp_path)
