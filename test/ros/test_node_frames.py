"""TF math against the simulation itself: the transforms the node publishes, chained from the
world, land on the simulator's link frames; the optical frame has the ROS camera axes."""

import dataclasses
import math
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros import Simulation, load_scene  # noqa: E402
from scene_sim_ros.ros.bridge.tf import OPTICAL_ROTATION, FrameNames, JointKinematics, entity_frames  # noqa: E402
from scene_sim_ros.scene import Pose  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SCENE = REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'
from support.corpus import CORPUS, missing  # noqa: E402
from support.examples import shipped, shipped_ids  # noqa: E402

GAME = (CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes'
        / 'Game.ros2')


def chained_link_poses(sim, entity):
    """World poses of every link from the root pose and the node's joint transforms."""
    movable = list(entity.movable_joints)
    states = sim.joint_states(entity.name)
    kinematics = JointKinematics(movable)
    import numpy as np
    translation, rotation = kinematics.transforms(np.array([states[j.name][0] for j in movable]))
    local = {j.child: (j.parent, Pose(tuple(t), tuple(r)))
             for j, t, r in zip(movable, translation.tolist(), rotation.tolist())}
    local.update({j.child: (j.parent, j.origin) for j in entity.joints if j.type == 'fixed'})
    root = Pose(*sim.get_pose(entity.name))
    poses = {entity.root.name: root}

    def pose_of(link):
        if link not in poses:
            parent, transform = local[link]
            poses[link] = pose_of(parent) * transform
        return poses[link]
    return {link.name: pose_of(link.name) for link in entity.links}


def assert_chain_matches_simulation(sim, entity):
    chained = chained_link_poses(sim, entity)
    for link in entity.links:
        expected = sim.link_world_pose(entity.name, link.name)
        got = chained[link.name]
        assert math.dist(got.position, expected.position) < 1e-5, link.name
        difference = min(math.dist(got.orientation, expected.orientation),
                         math.dist(got.orientation, [-q for q in expected.orientation]))
        assert difference < 1e-5, link.name  # (acos-based angles lose precision near 0)


def test_joint_transforms_match_the_simulated_links_with_slider_and_hinges():
    scene = load_scene(DEFAULT_SCENE)
    rover = scene.entity('rover')
    assert {j.type for j in rover.movable_joints} == {'revolute', 'prismatic'}
    with Simulation(scene) as sim:
        sim.command('rover', 'mast_joint', position=0.12)
        sim.command('rover', 'pan_joint', position=1.0)
        sim.command('rover', 'tilt_joint', position=-0.4)
        sim.command('rover', 'left_wheel_joint', velocity=3.0)
        sim.step(150)
        states = sim.joint_states('rover')
        assert abs(states['pan_joint'][0]) > 0.5 and states['mast_joint'][0] > 0.08
        assert_chain_matches_simulation(sim, rover)


def test_joint_transforms_match_a_nao():
    if not GAME.exists():
        pytest.skip(missing(GAME))
    scene = load_scene(GAME)
    nao = scene.entity('robot1')
    with Simulation(dataclasses.replace(scene, entities=(nao, scene.entity('field')))) as sim:
        for joint, angle in (('HeadYaw', 0.6), ('HeadPitch', -0.3), ('LShoulderRoll', 0.5),
                             ('RElbowYaw', -0.8)):
            sim.command('robot1', joint, position=angle)
        sim.step(60)
        assert_chain_matches_simulation(sim, nao)


SHIPPED = shipped()


@pytest.mark.parametrize('path', SHIPPED, ids=shipped_ids(SHIPPED))
def test_joint_transforms_match_every_shipped_robot(path):
    """The NAO test's check on each robot of the scenes that ship: every position-driven joint
    commanded to a pose away from its start (within its limits), then the chain of the node's
    joint transforms from the root gives the simulated pose of every link."""
    scene = load_scene(path)
    robots = [e for e in scene.entities if e.kind == 'robot']
    with Simulation(scene) as sim:
        for robot in robots:
            for joint in robot.movable_joints:
                if joint.motor is None:   # passive (the car's front wheels): moved by the rest
                    continue
                if joint.motor.kind == 'velocity':
                    sim.command(robot.name, joint.name, velocity=2.0)
                    continue
                low, high = joint.limits if joint.limits is not None else (-1.0, 1.0)
                sim.command(robot.name, joint.name, position=low + 0.7 * (high - low))
        sim.step(100)
        for robot in robots:
            moved = [abs(state[0] - joint.initial_position) > 1e-3 for joint, state in
                     zip(robot.movable_joints, sim.joint_states(robot.name).values())]
            assert any(moved), f'{robot.name}: no joint moved'
            assert_chain_matches_simulation(sim, robot)


def test_optical_frame_looks_along_the_sensor_x_axis():
    optical = Pose((0.0, 0.0, 0.0), OPTICAL_ROTATION)
    assert optical.rotate((0.0, 0.0, 1.0)) == pytest.approx((1.0, 0.0, 0.0))  # z: forward
    assert optical.rotate((1.0, 0.0, 0.0)) == pytest.approx((0.0, -1.0, 0.0))  # x: right
    assert optical.rotate((0.0, 1.0, 0.0)) == pytest.approx((0.0, 0.0, -1.0))  # y: down


def test_entity_frames_tree_of_the_default_rover():
    scene = load_scene(DEFAULT_SCENE)
    rover = scene.entity('rover')
    frames = entity_frames(rover, FrameNames())
    assert (frames.root.header.frame_id, frames.root.child_frame_id) == ('world', 'rover/rover')
    moving = {(t.header.frame_id, t.child_frame_id) for t in frames.moving}
    assert ('rover/pan_link', 'rover/head') in moving and len(moving) == 5
    static = {t.child_frame_id: t.header.frame_id for t in frames.static}
    assert static['rover/camera'] == 'rover/head'
    assert static['rover/camera_optical_frame'] == 'rover/camera'
    assert static['rover/accelerometer'] == 'rover/rover'
    assert 'rover/accelerometer_optical_frame' not in static  # only image sensors have one
    unprefixed = entity_frames(rover, FrameNames(world='map', prefix_entities=False))
    assert (unprefixed.root.header.frame_id, unprefixed.root.child_frame_id) == ('map', 'rover')


def test_serialized_tf_equals_what_rclpy_serializes():
    """The patched CDR bytes of /tf hold exactly the message rclpy would serialize (alignment
    padding may differ: Fast CDR leaves it uninitialised)."""
    import numpy as np
    from rclpy.serialization import deserialize_message, serialize_message
    from tf2_msgs.msg import TFMessage

    from scene_sim_ros.ros.bridge.conversions import set_stamp
    from scene_sim_ros.ros.bridge.tf import SerializedTransforms, set_transform, transform

    names = [('world', 'a'), ('a', 'bb'), ('bb', 'child_with_a_longer_name'), ('a', 'ccc')]
    template = TFMessage(transforms=[transform(p, c) for p, c in names])
    serialized = SerializedTransforms(template)
    rng = np.random.default_rng(1)
    for time in (0.0, 12.345678912, 4000.5):
        values = rng.normal(size=(len(names), 7))
        expected = TFMessage(transforms=[transform(p, c) for p, c in names])
        for msg, row in zip(expected.transforms, values.tolist()):
            set_stamp(msg.header.stamp, time)
            set_transform(msg, row[:3], row[3:])
        data = serialized.serialize(time, values)
        assert len(data) == len(serialize_message(expected))
        back = deserialize_message(data, TFMessage)
        assert back == expected
        assert back.transforms[2].child_frame_id == 'child_with_a_longer_name'
        assert back.transforms[3].transform.rotation.w == values[3, 6]
