"""Recordings as their readers see them (issue 41): a recording of the default scene and of the
arm example with a FollowJointTrajectory goal running, made by a node started as a wheel or
plain-venv user starts it (no AMENT_PREFIX_PATH), decodes message for message with rosbags and
with Foxglove's mcap-ros2-support. As with ``ros2 bag record``, an action's hidden topics
(``_action/feedback``, ``_action/status``) are recorded only when asked; asked, they decode too
(rosbags names an action's message types ``pkg/action/msg/Name``: its ``normalize_msgtype``).
mcap-ros2-support 0.6.0 refuses every action message type by name (``Name_FeedbackMessage``:
"invalid message name", its rosidl check allows no underscore), as it would in any rosbag2
recording of an action: those messages are checked with rosbags only."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.processes import console_script
from support.ros import spin_until

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CLI = console_script('scene-sim-ros')
ACTION = '/arm/joint_trajectory_controller/follow_joint_trajectory'
PLAIN_VENV = {'AMENT_PREFIX_PATH': None}


def _decode_with_rosbags(path: Path) -> tuple[dict[str, int], list[str]]:
    from rosbags.highlevel import AnyReader
    counts: dict[str, int] = {}
    failures: list[str] = []
    from rosbags.typesys.msg import normalize_msgtype
    with AnyReader([path]) as reader:
        for connection, _, raw in reader.messages():
            try:
                reader.deserialize(raw, normalize_msgtype(connection.msgtype))
            except Exception as err:  # noqa: BLE001 - counted and named below
                failures.append(f'{connection.topic} ({connection.msgtype}): {err}')
            counts[connection.topic] = counts.get(connection.topic, 0) + 1
    return counts, failures


def _decode_with_mcap_ros2(path: Path) -> tuple[dict[str, int], list[str]]:
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    factory = DecoderFactory()
    counts: dict[str, int] = {}
    failures: list[str] = []
    with open(path, 'rb') as stream:
        reader = make_reader(stream)
        for schema, channel, message in reader.iter_messages():
            try:
                decode = factory.decoder_for(channel.message_encoding, schema)
                if decode is None:
                    raise ValueError('no decoder')
                decode(message.data)
            except Exception as err:  # noqa: BLE001 - counted and named below
                failures.append(f'{channel.topic} ({schema.name if schema else "?"}): {err}')
            counts[channel.topic] = counts.get(channel.topic, 0) + 1
    return counts, failures


def _assert_every_message_decodes(path: Path) -> dict[str, int]:
    counts, failures = _decode_with_rosbags(path)
    assert failures == [], failures[:5]
    again, failures = _decode_with_mcap_ros2(path)
    refused_by_name = [f for f in failures if '/action/' in f and 'invalid message name' in f]
    assert failures == refused_by_name, failures[:5]
    assert again == counts
    return counts


def test_a_default_scene_recording_decodes_with_both_readers(managed_process, ros_node,
                                                             tmp_path):
    from rosgraph_msgs.msg import Clock

    from support.ros import wait_for_messages
    bag = tmp_path / 'default.mcap'
    sim = managed_process([CLI, 'run', '--record', str(bag)], name='record-plain-venv',
                          env=PLAIN_VENV, ready=r'recording to', ready_timeout=120)
    sim.wait_for_output(r'services: get_simulator_features', timeout=60)
    wait_for_messages(ros_node, Clock, '/clock', count=300, timeout=60.0)
    assert sim.stop() == 0
    counts = _assert_every_message_decodes(bag)
    assert counts['/clock'] >= 300 and counts['/rover/camera/image_raw'] > 0
    assert len(counts) >= 20


@pytest.mark.parametrize('hidden', [False, True], ids=['default', 'with-action-topics'])
def test_an_arm_recording_with_a_goal_running_decodes_with_both_readers(managed_process,
                                                                        ros_node, tmp_path,
                                                                        hidden):
    from action_msgs.msg import GoalStatus
    from builtin_interfaces.msg import Duration
    from control_msgs.action import FollowJointTrajectory
    from rclpy.action import ActionClient
    from trajectory_msgs.msg import JointTrajectoryPoint

    bag = tmp_path / 'arm.mcap'
    topics = ['--ros-args', '-p', "record.topics:=['*', '*/_action/*']"] if hidden else []
    sim = managed_process([CLI, 'run', 'arm', '--record', str(bag), *topics], name='record-arm',
                          env=PLAIN_VENV, ready=r'recording to', ready_timeout=120)
    sim.wait_for_output(r'services: get_simulator_features', timeout=60)
    action = ActionClient(ros_node, FollowJointTrajectory, ACTION)
    try:
        assert action.wait_for_server(timeout_sec=30.0)
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = ['waist_joint', 'shoulder_joint', 'elbow_joint',
                                       'wrist_joint']
        goal.trajectory.points = [JointTrajectoryPoint(positions=[0.5, 0.4, -0.6, 0.3],
                                                       time_from_start=Duration(sec=2))]
        sent = action.send_goal_async(goal)
        assert spin_until(ros_node, sent.done, 20.0) and sent.result().accepted
        result = sent.result().get_result_async()
        assert spin_until(ros_node, result.done, 60.0)
        assert result.result().status == GoalStatus.STATUS_SUCCEEDED
    finally:
        action.destroy()
    assert sim.stop() == 0
    counts = _assert_every_message_decodes(bag)
    assert counts['/arm/joint_trajectory_controller/controller_state'] > 0
    if hidden:
        assert counts[ACTION + '/_action/feedback'] >= 20   # 2 s at 20 Hz, less a late start
        assert counts[ACTION + '/_action/status'] >= 1
    else:
        assert not [topic for topic in counts if '/_' in topic]
