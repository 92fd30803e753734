"""Recording (issue 28): ``run --record``, ``scene-sim-ros record`` and ``bag info`` write and
read rosbag2 MCAP files that rosbags (and so ros2 bag / Foxglove) open."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml

from support.processes import console_script

pytest.importorskip('rosbags')
pytest.importorskip('mcap')

CLI = console_script('scene-sim-ros')

# default scene: the nominal rates in Hz of sim time (step 10 ms)
RATES = {'/clock': 100.0, '/tf': 100.0, '/rover/joint_states': 100.0,
         '/rover/imu/data_raw': 100.0, '/rover/camera/image_raw': 30.0,
         '/rover/laser/scan': 30.0, '/rover/odom': 50.0}


def _read(path: Path):
    from rosbags.highlevel import AnyReader
    return AnyReader([path])


def _summary(path: Path) -> dict:
    done = subprocess.run([CLI, 'bag', 'info', str(path), '--json'], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- units --------------------------------------------------------------------------------------

def test_topic_globs_leave_out_rosout_unless_named():
    from scene_sim_ros.ros.outputs.tap import topic_selector
    every = topic_selector([])
    assert every('/rover/camera/image_raw') and not every('/rosout')
    some = topic_selector(['/rover/*', 'clock', '/rosout'])
    assert some('/rover/camera/image_raw') and some('/clock') and some('/rosout')
    assert not some('/tf')
    feedback = '/arm/joint_trajectory_controller/follow_joint_trajectory/_action/feedback'
    assert not every(feedback) and not some(feedback) and not topic_selector(['/arm/*'])(feedback)
    assert topic_selector(['*/_action/*'])(feedback) and topic_selector([feedback])(feedback)


def test_message_definitions_come_with_their_dependencies():
    from scene_sim_ros.ros.outputs.tap import message_definition
    text, digest = message_definition('tf2_msgs/msg/TFMessage')
    assert text.startswith('geometry_msgs/TransformStamped[] transforms')
    assert 'MSG: geometry_msgs/TransformStamped' in text and 'MSG: builtin_interfaces/Time' in text
    assert digest.startswith('RIHS01_')
    assert message_definition('no_such_pkg/msg/Nothing') == ('', '')


def test_an_action_feedback_schema_decodes_what_rclpy_serialises():
    """``_action/feedback`` carries ``pkg/action/Name_FeedbackMessage``: its schema comes from
    the installed .action file and decodes the bytes field for field (issue 41: it was empty)."""
    from control_msgs.action import FollowJointTrajectory
    from rclpy.serialization import serialize_message
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    from scene_sim_ros.ros.outputs.tap import message_definition
    type_name = 'control_msgs/action/FollowJointTrajectory_FeedbackMessage'
    text, digest = message_definition(type_name)
    assert text and digest == ''
    message = FollowJointTrajectory.Impl.FeedbackMessage()
    message.goal_id.uuid = list(range(16))
    message.feedback.joint_names = ['a', 'b']
    message.feedback.desired.positions = [0.5, -0.25]
    message.feedback.error.positions = [0.125, 0.0]
    store = get_typestore(Stores.EMPTY)
    decoded_name = 'control_msgs/msg/FollowJointTrajectory_FeedbackMessage'
    store.register(get_types_from_msg(text, decoded_name))
    # decoded without rosbags' end-of-buffer check: rclpy's serialize_message reports this
    # type's buffer 44 bytes longer than its CDR (uninitialised tail; DDS sends the exact size)
    data = serialize_message(message)
    definition = store.get_msgdef(decoded_name)
    decoded, end = definition.deserialize_cdr_le(data[4:], 0, definition.cls, store)
    assert end + 4 <= len(data)
    assert list(decoded.goal_id.uuid) == list(range(16))
    assert decoded.feedback.joint_names == ['a', 'b']
    assert list(decoded.feedback.desired.positions) == [0.5, -0.25]
    assert list(decoded.feedback.error.positions) == [0.125, 0.0]
    assert message_definition('control_msgs/action/NoSuchAction_FeedbackMessage') == ('', '')


def test_recorder_writes_a_rosbag2_mcap_that_rosbags_reads(tmp_path):
    from rclpy.serialization import serialize_message
    from rosgraph_msgs.msg import Clock

    from scene_sim_ros.ros.outputs.recorder import Recorder
    from scene_sim_ros.ros.outputs.tap import TopicInfo, message_definition

    text, digest = message_definition('rosgraph_msgs/msg/Clock')
    recorder = Recorder(tmp_path / 'unit.mcap', topics=['/clock'])
    assert recorder.wants('/clock') and not recorder.wants('/tf')
    recorder.topic_added(TopicInfo('/clock', 'rosgraph_msgs/msg/Clock', text, digest, True, False))
    for i in range(50):
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = divmod(i * 10_000_000, 1_000_000_000)
        recorder.message('/clock', serialize_message(msg), i * 10_000_000)
    recorder.close()
    assert recorder.written == 50 and recorder.dropped == 0

    from mcap.reader import make_reader
    with open(tmp_path / 'unit.mcap', 'rb') as stream:
        reader = make_reader(stream)
        assert reader.get_header().profile == 'ros2'
        summary = reader.get_summary()
        assert {s.encoding for s in summary.schemas.values()} == {'ros2msg'}
        assert {c.message_encoding for c in summary.channels.values()} == {'cdr'}
        metadata = {m.name: m.metadata for m in reader.iter_metadata()}
        channel = next(iter(summary.channels.values()))
    # what rosbag2's MCAP storage plugin reads (mcap_storage.cpp read_metadata): the rosbag2
    # record's serialized_metadata (BagMetadata YAML, version 9: QoS policies by name) and the
    # channel's offered_qos_profiles (YAML) and topic_type_hash
    info = yaml.safe_load(metadata['rosbag2']['serialized_metadata'])
    assert info['version'] == 9 and info['storage_identifier'] == 'mcap'
    assert info['message_count'] == 50 and info['ros_distro'] == 'kilted'
    topic = info['topics_with_message_count'][0]
    assert topic['topic_metadata']['type'] == 'rosgraph_msgs/msg/Clock'
    assert topic['topic_metadata']['serialization_format'] == 'cdr'
    assert topic['topic_metadata']['type_description_hash'] == digest
    assert topic['message_count'] == 50
    qos = yaml.safe_load(channel.metadata['offered_qos_profiles'])
    assert qos == topic['topic_metadata']['offered_qos_profiles']
    assert (qos[0]['history'], qos[0]['reliability'], qos[0]['durability']) == (
        'keep_last', 'reliable', 'volatile')
    assert qos[0]['deadline'] == {'sec': 9223372036, 'nsec': 854775807}
    assert channel.metadata['topic_type_hash'] == digest
    with _read(tmp_path / 'unit.mcap') as bag:
        stamps = [bag.deserialize(raw, c.msgtype).clock.nanosec for c, _, raw in bag.messages()]
    assert stamps == [i * 10_000_000 for i in range(50)]


def test_recorder_drops_and_counts_when_its_queue_is_full(tmp_path):
    from scene_sim_ros.ros.outputs.recorder import Recorder
    from scene_sim_ros.ros.outputs.tap import TopicInfo, message_definition

    text, digest = message_definition('std_msgs/msg/UInt64')
    recorder = Recorder(tmp_path / 'full.mcap', queue_messages=5)
    recorder.topic_added(TopicInfo('/n', 'std_msgs/msg/UInt64', text, digest, True, False))
    data = b'\x00\x01\x00\x00' + bytes(8)
    # the writer stuck in its first write: message() must still return every time
    stuck, release = threading.Event(), threading.Event()
    handle = recorder._handle  # noqa: SLF001

    def slow_handle(item):
        if item[0] == 'msg':
            stuck.set()
            release.wait(60.0)
        handle(item)
    recorder._handle = slow_handle  # noqa: SLF001
    recorder.message('/n', data, 0)
    assert stuck.wait(30.0)
    for i in range(1, 20000):
        recorder.message('/n', data, i)  # never blocks: 20000 calls with the writer stuck
    assert recorder.dropped >= 20000 - 1 - 5 - 1  # all but the queue's 5 (and the stuck one)
    release.set()
    recorder.close()
    assert recorder.written + recorder.dropped == 20000


def test_max_size_ends_the_recording_and_leaves_a_complete_file(tmp_path):
    from scene_sim_ros.ros.outputs.recorder import Recorder
    from scene_sim_ros.ros.outputs.tap import TopicInfo, message_definition

    text, digest = message_definition('std_msgs/msg/String')
    recorder = Recorder(tmp_path / 'small', max_size_mb=0.5)  # .mcap is added
    recorder.topic_added(TopicInfo('/s', 'std_msgs/msg/String', text, digest, True, False))
    payload = b'\x00\x01\x00\x00' + (1001).to_bytes(4, 'little') + b'x' * 1000 + b'\x00'
    for i in range(3000):  # 3 MB offered, in chunks of 1 MiB
        recorder.message('/s', payload, i * 1_000_000)
        if i % 500 == 0:
            time.sleep(0.05)
    recorder.close()
    assert recorder.path == tmp_path / 'small.mcap'
    assert recorder.failed and 'max_size_mb' in recorder.failed
    assert 0.5 * 2**20 < recorder.path.stat().st_size < 2.5 * 2**20
    with _read(recorder.path) as bag:
        assert 400 < bag.message_count < 2500


def _string_recording(path: Path, count: int) -> None:
    from scene_sim_ros.ros.outputs.recorder import Recorder
    from scene_sim_ros.ros.outputs.tap import TopicInfo, message_definition

    text, digest = message_definition('std_msgs/msg/String')
    recorder = Recorder(path, queue_messages=count + 1)  # + the topic
    recorder.topic_added(TopicInfo('/s', 'std_msgs/msg/String', text, digest, True, False))
    for i in range(count):
        body = f'{i:06d}'.encode() + b'x' * 994
        recorder.message('/s', b'\x00\x01\x00\x00' + (1001).to_bytes(4, 'little') + body
                         + b'\x00', i * 1_000_000)
    recorder.close()
    assert recorder.written == count


def _aged(path: Path) -> Path:
    """As a recording that ended a minute ago (bag recover leaves a fresh file alone)."""
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp))
    return path


def _string_numbers(path: Path) -> list[int]:
    with _read(path) as bag:
        return [int(raw[8:14]) for _, _, raw in bag.messages()]


@pytest.mark.parametrize('cut', [0.3, 0.5, 0.75, 0.999])
def test_recover_makes_a_cut_file_complete_with_every_message_before_the_cut(tmp_path, cut):
    """Chunks of 1 MiB: a cut inside the first, the second, the third chunk and inside the
    summary; the messages of a cut uncompressed chunk are kept up to the cut."""
    from rosbags.highlevel import AnyReaderError

    from scene_sim_ros.cli.client.bag_recover import has_footer, recover
    whole = tmp_path / 'whole.mcap'
    _string_recording(whole, 3000)  # 3 MB of 1 kB messages
    data = whole.read_bytes()
    cut_path = tmp_path / 'cut.mcap'
    cut_path.write_bytes(data[:int(len(data) * cut)])
    assert not has_footer(cut_path)
    with pytest.raises(AnyReaderError, match='magic'), _read(cut_path):
        pass  # what a killed recording is to rosbags
    before = _summary(cut_path)
    assert not before['complete']

    done = recover(_aged(cut_path))
    assert has_footer(cut_path)
    numbers = _string_numbers(cut_path)
    assert numbers, 'nothing recovered'
    assert numbers == list(range(len(numbers)))  # in order, none lost before the cut
    assert done['messages'] == len(numbers) == before['message_count']
    # every message whose record ends before the cut is there, the first it reached is not
    size = len(data) * cut // 1

    def ends_at(number: int) -> int:
        return data.index(f'{number:06d}'.encode() + b'x') + 995

    assert ends_at(len(numbers) - 1) <= size
    assert len(numbers) == 3000 or ends_at(len(numbers)) > size
    after = _summary(cut_path)
    assert after['complete'] and after['rosbag2_metadata'] and after['profile'] == 'ros2'
    assert after['message_count'] == len(numbers)


def test_recover_refuses_a_complete_file_and_bag_info_names_it_for_a_cut_one(tmp_path):
    path = tmp_path / 'r.mcap'
    _string_recording(path, 500)
    done = subprocess.run([CLI, 'bag', 'recover', str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and 'nothing to recover' in done.stderr
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    fresh = subprocess.run([CLI, 'bag', 'recover', str(path)], capture_output=True, text=True,
                           timeout=120)
    assert fresh.returncode == 2 and 'a recording may still be going' in fresh.stderr
    shown = subprocess.run([CLI, 'bag', 'info', str(path)], capture_output=True, text=True,
                           timeout=120)
    assert shown.returncode == 0 and f'scene-sim-ros bag recover {path}' in shown.stdout
    out = tmp_path / 'fixed.mcap'
    done = subprocess.run([CLI, 'bag', 'recover', str(path), '-o', str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert _string_numbers(out) == list(range(len(_string_numbers(out))))
    assert path.read_bytes() == data[:len(data) // 2]  # -o leaves the cut file alone


# --- end to end ---------------------------------------------------------------------------------

def _sim_time(node) -> float:
    from rosgraph_msgs.msg import Clock

    from support.ros import wait_for_messages
    clock = wait_for_messages(node, Clock, '/clock', count=1, timeout=30.0)[0].clock
    return clock.sec + clock.nanosec * 1e-9


def _wait_for_sim_time(node, seconds: float, timeout: float) -> None:
    from rosgraph_msgs.msg import Clock

    from support.ros import wait_for_messages
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        clock = wait_for_messages(node, Clock, '/clock', count=1, timeout=30.0)[0].clock
        if clock.sec + clock.nanosec * 1e-9 >= seconds:
            return
        time.sleep(0.5)
    raise TimeoutError(f'sim time did not reach {seconds} s in {timeout} s')


def _frames_dropped(output: str, camera: str) -> int:
    """What the node's totals at its end say ``camera`` dropped (0 without such a line)."""
    totals = re.search(r'camera frames dropped since the start: .*', output)
    if totals is None:
        return 0
    counted = re.search(rf'(?:^|[ (/]){re.escape(camera)} (\d+) of \d+', totals.group(0))
    return int(counted.group(1)) if counted else 0


def test_run_record_ten_seconds_of_the_default_scene(managed_process, ros_node, tmp_path):
    bag_path = tmp_path / 'run.mcap'
    sim = managed_process([CLI, 'run', '--record', str(bag_path)], name='record-run',
                          ready=r'recording to', ready_timeout=120)
    sim.wait_for_output(r'services: get_simulator_features', timeout=60)
    _wait_for_sim_time(ros_node, 10.5, timeout=90.0)  # 10 s at RTF 1 (longer on a busy machine)
    assert sim.stop() == 0
    assert 'messages dropped' not in sim.output(), sim.output()[-2000:]

    with _read(bag_path) as bag:
        topics = {c.topic: c for c in bag.connections}
        for topic in RATES:
            assert topic in topics, sorted(topics)
        assert '/rover/robot_description' in topics and '/tf_static' in topics
        stamps: dict[str, list[int]] = {t: [] for t in RATES}
        clock = []
        image = None
        for connection, stamp, raw in bag.messages(
                connections=[topics[t] for t in RATES]):
            stamps[connection.topic].append(stamp)
            if connection.topic == '/clock':
                msg = bag.deserialize(raw, connection.msgtype)
                clock.append(msg.clock.sec * 1_000_000_000 + msg.clock.nanosec)
            elif connection.topic == '/rover/camera/image_raw' and image is None:
                image = bag.deserialize(raw, connection.msgtype)
    assert clock == sorted(clock) and len(set(clock)) == len(clock)
    duration = (clock[-1] - clock[0]) / 1e9
    assert duration >= 10.0
    # frames the node's frame budget dropped (a busy machine held the loop up too long) were
    # never published: the bag has every other one
    dropped = _frames_dropped(sim.output(), 'rover/camera')
    assert dropped <= 0.1 * RATES['/rover/camera/image_raw'] * duration, sim.output()[-2000:]
    for topic, rate in RATES.items():
        seen = stamps[topic]
        span = (seen[-1] - seen[0]) / 1e9
        recorded = len(seen) - 1 + (dropped if topic == '/rover/camera/image_raw' else 0)
        assert recorded == pytest.approx(span * rate, rel=0.02), topic
        assert span == pytest.approx(duration, abs=0.2), topic
    assert image is not None and image.encoding == 'rgb8'
    assert len(image.data) == image.step * image.height == image.width * 3 * image.height

    info = _summary(bag_path)
    assert info['complete'] and info['profile'] == 'ros2' and info['rosbag2_metadata']
    counts = {t['topic']: t['count'] for t in info['topics']}
    assert counts['/clock'] == len(clock)


def test_a_killed_recording_is_readable_up_to_its_last_chunk(managed_process, tmp_path,
                                                             ros_node):
    bag_path = tmp_path / 'killed.mcap'
    sim = managed_process([CLI, 'run', '--record', str(bag_path)], name='record-kill',
                          ready=r'recording to', ready_timeout=120)
    sim.wait_for_output(r'services: get_simulator_features', timeout=60)
    # killed after 3 s of sim time (not of wall time: a loaded machine records less per second)
    from rosgraph_msgs.msg import Clock

    from support.ros import spin_until
    clock: list[float] = []
    ros_node.create_subscription(
        Clock, '/clock', lambda m: clock.append(m.clock.sec + m.clock.nanosec * 1e-9), 10)
    assert spin_until(ros_node, lambda: bool(clock) and clock[-1] >= 3.0, 120.0)
    os.killpg(sim.pid, signal.SIGKILL)
    sim.stop()

    info = _summary(bag_path)
    assert not info['complete'] and info['profile'] == 'ros2'
    counts = {t['topic']: t['count'] for t in info['topics']}
    assert counts['/clock'] > 100 and counts['/rover/camera/image_raw'] > 10
    assert info['duration_s'] > 1.0
    from scene_sim_ros.cli.client.bag_recover import salvage
    last_cut = [r for r in salvage(bag_path) if type(r).__name__ == 'Message'][-1]

    done = subprocess.run([CLI, 'bag', 'recover', str(_aged(bag_path))], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with _read(bag_path) as bag:  # rosbags, as ros2 bag would: the summary is there now
        topics = {c.topic: c for c in bag.connections}
        assert '/rover/robot_description' in topics and '/tf_static' in topics
        assert {c.topic: c.msgcount for c in bag.connections} == counts
        clock, images, last = [], 0, None
        for connection, stamp, raw in bag.messages():
            if connection.topic == '/clock':
                msg = bag.deserialize(raw, connection.msgtype)
                clock.append(msg.clock.sec * 1_000_000_000 + msg.clock.nanosec)
            elif connection.topic == '/rover/camera/image_raw':
                image = bag.deserialize(raw, connection.msgtype)
                assert image.width * image.height * 3 == len(image.data)
                images += 1
            last = (stamp, raw)
    assert clock == sorted(clock) and len(clock) == counts['/clock']
    assert images == counts['/rover/camera/image_raw']
    # the last message the killed file held is in the recovered one (in time order: last)
    assert last == (last_cut.log_time, last_cut.data) or last_cut.log_time <= last[0]
    assert _summary(bag_path)['complete']


def _mount_tiny_disk(path: Path, size: str) -> None:
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip('a full disk is a 1 MiB tmpfs, which needs root to mount')
    done = subprocess.run(['mount', '-t', 'tmpfs', '-o', f'size={size}', 'tmpfs', str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f'cannot mount a tmpfs here: {done.stderr.strip()}')


def test_a_full_disk_ends_the_recording_not_the_simulation(managed_process, ros_node, tmp_path):
    disk = tmp_path / 'disk'
    _mount_tiny_disk(disk, '2m')
    try:
        bag_path = disk / 'full.mcap'
        sim = managed_process([CLI, 'run', '--record', str(bag_path)], name='record-full',
                              ready=r'recording to', ready_timeout=120)
        sim.wait_for_output(r'recording to .* stopped: OSError: \[Errno 28\] No space left',
                            timeout=120)
        assert f'scene-sim-ros bag recover {bag_path}' in sim.output()
        started = _sim_time(ros_node)
        _wait_for_sim_time(ros_node, started + 2.0, timeout=60.0)  # the simulation goes on
        assert sim.stop() == 0
        info = _summary(bag_path)
        assert not info['complete'] and info['message_count'] > 50
        fixed = tmp_path / 'fixed.mcap'
        done = subprocess.run([CLI, 'bag', 'recover', str(bag_path), '-o', str(fixed)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with _read(fixed) as bag:
            assert bag.message_count == info['message_count']
            assert {c.topic for c in bag.connections} >= {'/clock', '/tf'}
    finally:
        subprocess.run(['umount', '-l', str(disk)], capture_output=True)


def test_record_command_records_chosen_topics_of_a_running_node(managed_process, tmp_path):
    managed_process([CLI, 'run'], name='record-target',
                    ready=r'services: get_simulator_features', ready_timeout=120)
    bag_path = tmp_path / 'cmd.mcap'
    done = subprocess.run([CLI, 'record', str(bag_path), '/clock', '/rover/joint_st*',
                           '--duration', '4'], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    info = _summary(bag_path)
    assert info['complete']
    topics = {t['topic']: t for t in info['topics']}
    assert set(topics) == {'/clock', '/rover/joint_states'}
    assert topics['/rover/joint_states']['count'] > 50
    assert topics['/rover/joint_states']['rate_hz'] == pytest.approx(100, rel=0.1)
