"""The TF tree with localisation, from separate processes as Nav2 brings it up: the default
scene with default parameters, and beside it an AMCL-like ``map -> rover/odom`` broadcaster
(sim-time stamps, 20 Hz), an EKF-like ``rover/odom -> rover/rover`` one (robot_localization with
``odometry.publish_tf:=false``), and the laser scan consumed as a tf2 MessageFilter into
``rover/odom`` does (Nav2's costmaps). The views are ``support.tf_history`` (tf2's semantics on
plain rclpy); ``test_tf2_ros_buffer_*`` use the real tf2_ros where it is importable."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.processes import ManagedProcess, scene_sim_run  # noqa: E402
from support.ros import client_node, qos, spin_until, stamp  # noqa: E402
from support.tf_history import TfHistory  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

NODES = Path(__file__).resolve().parent / 'nodes'
HANDOVER = r'map -> rover/odom is published by another node'
WINDOW = 10.0  # s of wall time the tree is watched
LOOKUP_PERIOD = 0.02  # s between two lookups (50 Hz)


def broadcaster(folder: Path, name: str, *args: str) -> ManagedProcess:
    argv = [sys.executable, '-u', str(NODES / 'localization_broadcaster.py'), *args]
    return ManagedProcess(argv, log_dir=folder, name=name, ready='READY', ready_timeout=60.0)


@pytest.fixture
def client():
    yield from client_node('localization_test_client')


def watch(client, history: TfHistory, seconds: float, target: str, source: str) -> tuple[int, int]:
    """Look ``target -> source`` up every LOOKUP_PERIOD for ``seconds``: (lookups, failures)."""
    lookups = failures = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        spin_until(client, lambda: False, LOOKUP_PERIOD)
        lookups += 1
        failures += not history.can_transform(target, source)
    return lookups, failures


def heard(client, history: TfHistory, *edges: tuple[str, str]) -> None:
    """Wait until this process has received each (parent, child) transform: the broadcasters'
    READY says they publish, not that this process has discovered them yet."""
    def all_heard() -> bool:
        return all(any(p == parent for _, _, p in history.dynamic.get(child, ()))
                   for parent, child in edges)
    assert spin_until(client, all_heard, 30.0), f'never received {edges}'


def assert_one_parent_each(parents: dict[str, set[str]]) -> None:
    several = {child: found for child, found in parents.items() if len(found) > 1}
    assert not several, f'frames with more than one parent: {several}'


def test_amcl_map_to_odom_takes_over_and_every_lookup_resolves(tmp_path, client):
    history = TfHistory(client)
    with scene_sim_run(tmp_path) as node, \
            broadcaster(tmp_path, 'amcl', '--parent', 'map', '--child', 'rover/odom',
                        '--future', '0.5'):
        node.wait_for_output(HANDOVER, timeout=30.0)
        heard(client, history, ('map', 'rover/odom'))
        spin_until(client, lambda: False, 1.0)  # what was in flight before the hand-over
        since = time.monotonic()
        lookups, failures = watch(client, history, WINDOW, 'map', 'rover/rover')
        parents = history.parents_since(since)
        print(f'{lookups} map -> rover/rover lookups in {WINDOW:g} s, {failures} failed; '
              f'{len(parents)} frames')
        assert failures == 0 and lookups > WINDOW / LOOKUP_PERIOD / 3
        assert_one_parent_each(parents)
        assert parents['rover/odom'] == {'map'}
        assert parents['rover/rover'] == {'rover/odom'}
        assert parents['ball/ball'] == {'world'}  # the rest of the world stays under world
        assert node.output().count('published by another node') == 1


def test_ekf_route_leaves_odom_to_base_to_the_ekf(tmp_path, client):
    history = TfHistory(client)
    with scene_sim_run(tmp_path, '--ros-args', '-p', 'odometry.publish_tf:=false') as node, \
            broadcaster(tmp_path, 'ekf', '--parent', 'rover/odom', '--child', 'rover/rover',
                        '--x', '0.3'), \
            broadcaster(tmp_path, 'amcl', '--parent', 'map', '--child', 'rover/odom'):
        node.wait_for_output(HANDOVER, timeout=30.0)
        heard(client, history, ('map', 'rover/odom'), ('rover/odom', 'rover/rover'))
        spin_until(client, lambda: False, 1.0)
        since = time.monotonic()
        lookups, failures = watch(client, history, 5.0, 'map', 'rover/rover')
        parents = history.parents_since(since)
        assert failures == 0 and lookups > 0
        assert_one_parent_each(parents)
        assert parents['rover/rover'] == {'rover/odom'}
        assert parents['rover/odom'] == {'map'}
        # the links below the base still come from the node
        assert history.can_transform('map', 'rover/laser')


def test_without_localisation_the_node_keeps_world_to_odom(tmp_path, client):
    """Bad input changes nothing: a parent of a frame that is no odom frame, a parent equal to
    the node's own (world) and NaN map -> odom leave world -> rover/odom in place, silently."""
    history = TfHistory(client)
    with scene_sim_run(tmp_path) as node, \
            broadcaster(tmp_path, 'other', '--parent', 'map', '--child', 'rover/mast'), \
            broadcaster(tmp_path, 'same', '--parent', 'world', '--child', 'rover/odom'), \
            broadcaster(tmp_path, 'nan', '--parent', 'map', '--child', 'rover/odom', '--nan'):
        heard(client, history, ('map', 'rover/mast'), ('world', 'rover/odom'))
        spin_until(client, lambda: False, 3.0)
        since = time.monotonic()
        spin_until(client, lambda: False, 2.0)
        parents = history.parents_since(since)
        assert parents['rover/odom'] == {'world'}  # the NaN ones are not stored, as in tf2
        assert history.can_transform('world', 'rover/rover')
        log = node.output()
        assert 'published by another node' not in log
        assert 'rover/mast' not in log and 'nan' not in log.lower()


def test_laser_scans_transform_into_odom_as_a_message_filter_sees_them(tmp_path, client):
    """tf2's MessageFilter holds a scan until TF reaches its stamp; Nav2's costmaps drop it
    after their tolerance. Here: >= 99 % of scans transformable into rover/odom at their
    stamp within 0.1 s of wall time after they arrive, at real-time factor 1."""
    from sensor_msgs.msg import LaserScan
    history = TfHistory(client)
    pending: list[tuple[float, float, str]] = []  # (arrival, stamp, frame)
    outcome: list[bool] = []

    def on_scan(msg):
        pending.append((time.monotonic(), stamp(msg.header), msg.header.frame_id))

    subscription = client.create_subscription(LaserScan, '/rover/laser/scan', on_scan, qos(50))
    try:
        with scene_sim_run(tmp_path), \
                broadcaster(tmp_path, 'amcl', '--parent', 'map', '--child', 'rover/odom'):
            assert spin_until(client, lambda: len(pending) > 5, 30.0)
            heard(client, history, ('map', 'rover/odom'))
            pending.clear()
            end = time.monotonic() + WINDOW
            while time.monotonic() < end or pending:
                spin_until(client, lambda: False, 0.005)
                now = time.monotonic()
                for item in list(pending):
                    arrived, at, frame = item
                    if history.can_transform('rover/odom', frame, at):
                        outcome.append(True)
                        pending.remove(item)
                    elif now - arrived > 0.1:
                        outcome.append(False)
                        pending.remove(item)
    finally:
        client.destroy_subscription(subscription)
    share = sum(outcome) / len(outcome)
    print(f'{sum(outcome)} of {len(outcome)} scans transformable into rover/odom within 0.1 s')
    assert len(outcome) > 50 and share >= 0.99


def test_perfect_localization_publishes_map_to_world(tmp_path, client):
    history = TfHistory(client)
    with scene_sim_run(tmp_path, '--ros-args', '-p', 'perfect_localization:=true'):
        assert spin_until(client, lambda: history.can_transform('map', 'rover/rover'), 30.0)
        assert history.static['world'] == 'map'


@pytest.mark.parametrize('route', ['amcl', 'amcl_and_ekf'])
def test_tf2_ros_buffer_resolves_map_to_base_with_amcl(tmp_path, route):
    """The same checks with the consumer's own code: tf2_ros' Buffer in another process, with
    AMCL alone, and with AMCL and an EKF owning odom -> base (``odometry.publish_tf:=false``)."""
    pytest.importorskip('tf2_ros', reason='tf2_ros is not on PyPI: runs on a ROS 2 '
                                          'distribution or a tools environment')
    argv = [sys.executable, '-u', str(NODES / 'tf2_lookups.py'), '--seconds', str(WINDOW)]
    ekf = route == 'amcl_and_ekf'
    run_args = ('--ros-args', '-p', 'odometry.publish_tf:=false') if ekf else ()
    with contextlib.ExitStack() as stack:
        node = stack.enter_context(scene_sim_run(tmp_path, *run_args))
        if ekf:
            stack.enter_context(broadcaster(tmp_path, 'ekf', '--parent', 'rover/odom',
                                            '--child', 'rover/rover', '--x', '0.3'))
        stack.enter_context(broadcaster(tmp_path, 'amcl', '--parent', 'map', '--child',
                                        'rover/odom', '--future', '0.5'))
        node.wait_for_output(HANDOVER, timeout=30.0)
        with ManagedProcess(argv, log_dir=tmp_path, name='tf2_lookups') as lookups:
            match = lookups.wait_for_output(r'LOOKUPS (\d+) FAILED (\d+)(.*)',
                                            timeout=WINDOW + 90.0)
    print(match.group(0))
    assert int(match.group(1)) > 100 and int(match.group(2)) == 0, match.group(0)


def test_tf2_ros_buffer_transforms_scans_into_odom_within_the_message_filter_tolerance(tmp_path):
    """tf2_ros' Buffer.can_transform at each scan's stamp with 0.1 s of patience, as a tf2
    MessageFilter holds a scan for Nav2's costmap: >= 99 % pass at real-time factor 1."""
    pytest.importorskip('tf2_ros', reason='tf2_ros is not on PyPI: runs on a ROS 2 '
                                          'distribution or a tools environment')
    argv = [sys.executable, '-u', str(NODES / 'tf2_lookups.py'), '--seconds', str(WINDOW),
            '--target', 'rover/odom', '--source', 'rover/laser', '--scan', '/rover/laser/scan']
    with scene_sim_run(tmp_path), \
            broadcaster(tmp_path, 'amcl', '--parent', 'map', '--child', 'rover/odom'):
        with ManagedProcess(argv, log_dir=tmp_path, name='tf2_scans') as scans:
            match = scans.wait_for_output(r'SCANS (\d+) FAILED (\d+)', timeout=WINDOW + 90.0)
    print(match.group(0))
    checked, failed = int(match.group(1)), int(match.group(2))
    assert checked > 50 and failed <= 0.01 * checked, match.group(0)
