"""One parent per frame in every TF mode of the node, from another process: with and without
odometry, with link frames left to robot_state_publisher, with odom -> base left to an EKF, and
isolated in a namespace (its own tf topics and frame prefix). A frame with two parents makes
tf2 flip between them; a frame nobody parents leaves a tree tf2 cannot connect."""

from __future__ import annotations

import time

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until  # noqa: E402
from support.tf_history import TfHistory  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

MODES = {  # name -> (run arguments, tf topic, static topic, root frame, a frame below the rover)
    'default': ((), '/tf', '/tf_static', 'world', 'rover/camera_optical_frame'),
    'no_odometry': (('--ros-args', '-p', 'odometry.publish:=false'), '/tf', '/tf_static',
                    'world', 'rover/camera_optical_frame'),
    'links_to_robot_state_publisher': (('--ros-args', '-p', 'publish_link_tf:=false'), '/tf',
                                       '/tf_static', 'world', 'rover/rover'),
    'odom_tf_to_an_ekf': (('--ros-args', '-p', 'odometry.publish_tf:=false'), '/tf',
                          '/tf_static', 'world', 'rover/odom'),
    'isolated': (('--namespace', 'sim_a', '--isolate'), '/sim_a/tf', '/sim_a/tf_static',
                 'sim_a/world', 'sim_a/rover/camera_optical_frame'),
}


@pytest.fixture
def client():
    yield from client_node('tf_modes_client')


@pytest.mark.parametrize('mode', list(MODES))
def test_every_frame_has_one_parent(tmp_path, client, mode):
    args, tf_topic, static_topic, root, leaf = MODES[mode]
    history = TfHistory(client, tf_topic, static_topic)
    with scene_sim_run(tmp_path, *args):
        assert spin_until(client, lambda: history.can_transform(root, leaf), 30.0), \
            f'{leaf} does not chain up to {root}'
        since = time.monotonic()
        spin_until(client, lambda: False, 2.0)
    parents = history.parents_since(since)
    several = {child: found for child, found in parents.items() if len(found) > 1}
    assert not several
    assert len(parents) > 5
    if mode == 'links_to_robot_state_publisher':  # joints' frames are robot_state_publisher's
        assert 'rover/mast' not in parents
    else:
        prefix = 'sim_a/' if mode == 'isolated' else ''
        assert parents[f'{prefix}rover/mast'] == {f'{prefix}rover/rover'}
