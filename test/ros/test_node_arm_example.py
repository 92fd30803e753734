"""The node on the arm example that ships (``arm.ros2``: four servo joints on a fixed base, a
wrist camera, a fingertip collision sensor), checked from this separate process as a user would,
with no corpus: the generic node features that test_node_game.py checks on B-Human's Game.ros2.
Joint states every step, /clock by the step, TF from the world to the camera's optical frame,
the lazy camera and its info, a servo command at the servo's pace, a stamped trajectory in sim
time, bad commands rejected and counted, and the graph matching the CLI listing. What is
expected (step, joints, camera size and angle, servo speed) is read from the scene file.

One node launch serves the whole module, at real time (a 5 ms step as fast as possible would
outrun a Python subscriber's history).
"""

from __future__ import annotations

import math
import re

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.resources import example_path  # noqa: E402
from support.node_probes import JointRecorder, TfBuffer, count_rejections  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import (  # noqa: E402
    client_node,
    paired,
    qos,
    spin_until,
    stamp,
    wait_for_messages,
)

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ARM = example_path('arm')
TEXT = ARM.read_text()
STEP = float(re.search(r'<Scene [^>]*stepLength="([\d.]+)s"', TEXT)[1])
HINGES = re.findall(r'<Hinge name="(\w+)">', TEXT)
CAMERA = dict(re.findall(r'(\w+)="([^"]*)"', re.search(r'<Camera [^>]*>', TEXT)[0]))


def degrees(value: str) -> float:
    return math.radians(float(value.removesuffix('degree')))


def servo(joint: str) -> tuple[float, float]:
    """(maxVelocity in rad/s, p) of ``joint``'s ServoMotor in the file."""
    block = TEXT[TEXT.index(f'<Hinge name="{joint}">'):]
    motor = dict(re.findall(r'(\w+)="([^"]*)"', re.search(r'<ServoMotor [^>]*>', block)[0]))
    return math.radians(float(motor['maxVelocity'].removesuffix('degree/s'))), float(motor['p'])


def servo_speed(joint: str) -> float:
    """The speed at which a SimRobotCore2 servo moves far from its target: each step the set-point
    is at most maxVelocity * step from the position, and the velocity is p * (set-point -
    position), so p * maxVelocity * step (maxVelocity itself where p * step >= 1)."""
    limit, p = servo(joint)
    return limit * min(1.0, p * STEP)


@pytest.fixture(scope='module')
def scene():
    return load_scene(ARM)


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    with scene_sim_run(tmp_path_factory.mktemp('arm'), 'arm', '--real-time-factor', '1') as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('arm_example_test_client')


def test_the_file_declares_what_this_module_expects():
    assert STEP == 0.005 and len(HINGES) == 4 and CAMERA['name'] == 'wrist_camera'


def test_joint_states_arrive_every_step_with_every_hinge(client, scene):
    from sensor_msgs.msg import JointState
    messages = wait_for_messages(client, JointState, '/arm/joint_states', count=20,
                                 timeout=60.0, qos=qos(50))
    assert [j.name for j in scene.entity('arm').movable_joints] == HINGES
    for msg in messages:
        assert list(msg.name) == HINGES
        assert len(msg.position) == len(msg.velocity) == len(msg.effort) == len(HINGES)
        assert all(math.isfinite(v) for v in msg.position)
    stamps = [stamp(m.header) for m in messages]
    assert [b - a for a, b in zip(stamps, stamps[1:])] == pytest.approx([STEP] * 19, abs=1e-6)


def test_clock_advances_monotonically_by_the_step(client):
    from rosgraph_msgs.msg import Clock
    messages = wait_for_messages(client, Clock, '/clock', count=30, timeout=60.0, qos=qos(50))
    times = [m.clock.sec + m.clock.nanosec * 1e-9 for m in messages]
    steps = [b - a for a, b in zip(times, times[1:])]
    assert steps == pytest.approx([STEP] * len(steps), abs=1e-6)


def test_tf_resolves_the_wrist_camera_optical_frame_from_the_world(client, scene):
    from tf2_msgs.msg import TFMessage
    buffer = TfBuffer()
    static = wait_for_messages(client, TFMessage, '/tf_static', count=1, timeout=30.0,
                               qos=qos(1, True))
    buffer.add(static[0])
    for msg in wait_for_messages(client, TFMessage, '/tf', count=3, timeout=30.0, qos=qos(100)):
        buffer.add(msg)
    camera = scene.entity('arm').sensor('wrist_camera')
    hand = buffer.lookup('world', f'arm/{camera.link}')
    optical = buffer.lookup('world', 'arm/wrist_camera_optical_frame')
    # the camera sits at its pose on the hand and (optical z) looks along the camera's x axis
    assert optical.position == pytest.approx((hand * camera.pose).position, abs=1e-6)
    view = (hand * camera.pose).rotate((1.0, 0.0, 0.0))
    assert sum(a * b for a, b in zip(optical.rotate((0.0, 0.0, 1.0)), view)) == \
        pytest.approx(1.0, abs=1e-6)
    # each link hangs off its parent link, up the chain of hinges
    for joint in scene.entity('arm').movable_joints:
        assert buffer.parent[f'arm/{joint.child}'][0] == f'arm/{joint.parent}'


def test_camera_renders_only_while_subscribed_and_matches_its_info(client, sim_node):
    from sensor_msgs.msg import CameraInfo, Image
    topic = 'arm/wrist_camera'
    width, height = int(CAMERA['imageWidth']), int(CAMERA['imageHeight'])
    assert f'{topic}: subscribed' not in sim_node.output()
    images, infos = [], []
    image_sub = client.create_subscription(Image, f'/{topic}/image_raw', images.append, qos(2))
    info_sub = client.create_subscription(CameraInfo, f'/{topic}/camera_info', infos.append,
                                          qos(10))
    try:
        # an image and its camera_info are two messages: wait for a pair with one stamp
        assert spin_until(client, lambda: len(images) >= 2 and paired(images, infos), 60.0)
    finally:
        client.destroy_subscription(image_sub)
        client.destroy_subscription(info_sub)
    sim_node.wait_for_output(f'{topic}: subscribed', timeout=10.0)
    image, info = paired(images, infos)[-1]
    assert (image.width, image.height) == (info.width, info.height) == (width, height)
    assert image.encoding == 'rgb8' and len(image.data) == 3 * width * height
    assert image.header.frame_id == info.header.frame_id == f'{topic}_optical_frame'
    fx = width / (2 * math.tan(degrees(CAMERA['angleX']) / 2))
    assert info.k[0] == pytest.approx(fx) and info.p[0] == pytest.approx(fx)
    sim_node.wait_for_output(f'{topic}: no subscribers, stopped reading', timeout=30.0)


def test_waist_command_turns_at_the_servos_pace(client):
    from sensor_msgs.msg import JointState
    limit, _ = servo('waist_joint')
    pace = servo_speed('waist_joint')
    assert pace < limit   # p * step < 1 here: the pace is below maxVelocity
    publisher = client.create_publisher(JointState, '/arm/joint_commands', 10)
    recorder = JointRecorder(client, '/arm/joint_states', 'waist_joint')
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 20.0)
        recorder.wait_until_time(0.5)
        sent_at = recorder.samples[-1][0]
        publisher.publish(JointState(name=['waist_joint'], position=[1.2]))
        assert spin_until(client, lambda: abs(recorder.samples[-1][1] - 1.2) < 0.02, 60.0)
        recorder.wait_until_time(recorder.samples[-1][0] + 0.5)
    finally:
        recorder.close()
        client.destroy_publisher(publisher)
    moves = recorder.after(sent_at)
    begin = next(k for k, (_, q) in enumerate(moves) if q > 0.2)
    end = next(k for k, (_, q) in enumerate(moves) if q > 1.0)
    way = moves[begin - 1:end + 1]
    speeds = [abs(q1 - q0) / (t1 - t0) for (t0, q0), (t1, q1) in zip(way, way[1:])]
    average = (way[-1][1] - way[0][1]) / (way[-1][0] - way[0][0])
    # SimRobotCore2's servo law (see servo_speed), never faster than maxVelocity
    assert max(speeds) <= limit
    assert average == pytest.approx(pace, rel=0.1)
    assert recorder.samples[-1][1] == pytest.approx(1.2, abs=0.02)   # and holds the target


def test_stamped_trajectory_is_executed_in_sim_time(client):
    from builtin_interfaces.msg import Duration
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    publisher = client.create_publisher(JointTrajectory, '/arm/joint_trajectory', 10)
    recorder = JointRecorder(client, '/arm/joint_states', 'wrist_joint')
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 20.0)
        recorder.wait_until_time(0.5)
        start = recorder.samples[-1][0] + 0.5
        # slow enough for the servo's pace (servo_speed: 0.31 rad/s for the wrist)
        plan = JointTrajectory(joint_names=['wrist_joint'], points=[
            JointTrajectoryPoint(positions=[0.35], time_from_start=Duration(sec=1)),
            JointTrajectoryPoint(positions=[0.2], time_from_start=Duration(sec=2))])
        plan.header.stamp.sec = int(start)
        plan.header.stamp.nanosec = round((start - int(start)) * 1e9)
        publisher.publish(plan)
        recorder.wait_until_time(start + 2.5)
    finally:
        recorder.close()
        client.destroy_publisher(publisher)
    initial = degrees(re.search(r'<Hinge name="wrist_joint">.*?init="([\d.]+degree)"', TEXT,
                                re.DOTALL)[1])
    assert recorder.at(start - 0.2, 0.3) == pytest.approx(initial, abs=0.02)  # before the stamp
    assert servo_speed('wrist_joint') > 1.5 * (initial - 0.35)
    assert recorder.at(start + 1.0, 0.02) == pytest.approx(0.35, abs=0.03)
    assert recorder.at(start + 2.4, 0.1) == pytest.approx(0.2, abs=0.02)


def test_bad_commands_are_rejected_counted_and_survived(client):
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    joint_commands = client.create_publisher(JointState, '/arm/joint_commands', 10)
    forward = client.create_publisher(Float64MultiArray, '/arm/position_controller/commands', 10)
    try:
        rejected = count_rejections(client, [
            (joint_commands, JointState(name=['elbow_joint'], position=[math.nan])),
            (joint_commands, JointState(name=['NoSuchJoint'], position=[0.1])),
            (joint_commands, JointState(name=['elbow_joint', 'wrist_joint'], position=[0.1])),
            (forward, Float64MultiArray(data=[0.0] * (len(HINGES) - 1))),
        ])
    finally:
        client.destroy_publisher(joint_commands)
        client.destroy_publisher(forward)
    assert rejected == 4
    clocks = wait_for_messages(client, Clock, '/clock', count=5, timeout=20.0)
    assert stamp_ns(clocks[-1]) > stamp_ns(clocks[0])  # still stepping


def stamp_ns(clock) -> int:
    return clock.clock.sec * 1_000_000_000 + clock.clock.nanosec


def test_topics_on_the_graph_match_the_cli_listing(client, scene):
    from scene_sim_ros.ros.runtime.interface_list import interface_rows
    expected = {(topic, msg_type) for direction, topic, msg_type in interface_rows(scene)
                if direction == 'pub' and topic.startswith('/arm/')}
    assert ('/arm/fingertip/contact', 'std_msgs/msg/Bool') in expected

    def published():
        graph = {(name, t) for name, types in client.get_topic_names_and_types() for t in types}
        return expected <= graph
    assert spin_until(client, published, 20.0), 'the graph lacks some listed topics'
