"""config/nav2_params_snippet.yaml names the frames and topics the node serves for the default
rover (frames from FrameNames, topics from the topic listing, scan per the documented remap)."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip('yaml')
pytest.importorskip('rclpy')

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.ros.bridge.tf import FrameNames  # noqa: E402
from scene_sim_ros.ros.runtime.interface_list import interface_rows  # noqa: E402
from scene_sim_ros.sim.mobile_base import base_link_name  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def test_snippet_matches_the_default_rover():
    scene = load_scene(REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2')
    rover = scene.entity('rover')
    names = FrameNames()
    odom, base = names.odom('rover'), names.link('rover', base_link_name(rover))
    rows = {(direction, topic): kind for direction, topic, kind in interface_rows(scene)}
    assert rows[('pub', '/rover/odom')] == 'nav_msgs/msg/Odometry'
    assert rows[('sub', '/rover/cmd_vel')] == 'geometry_msgs/msg/TwistStamped'
    assert ('pub', '/rover/laser/scan') in rows  # remapped to /scan as the snippet says
    snippet = yaml.safe_load((REPO / 'config' / 'nav2_params_snippet.yaml').read_text())

    def params(*path):
        node = snippet
        for key in path:
            node = node[key]
        return node['ros__parameters']
    amcl = params('amcl')
    assert (amcl['odom_frame_id'], amcl['base_frame_id']) == (odom, base)
    assert params('controller_server')['odom_topic'] == '/rover/odom'
    assert params('controller_server')['enable_stamped_cmd_vel'] is True
    local = params('local_costmap', 'local_costmap')
    assert (local['global_frame'], local['robot_base_frame']) == (odom, base)
    assert params('collision_monitor')['cmd_vel_out_topic'] == '/rover/cmd_vel'
    assert params('bt_navigator')['robot_base_frame'] == base


@pytest.fixture
def client():
    from support.ros import client_node
    yield from client_node('nav2_snippet_client')


def test_snippet_names_what_the_running_node_serves(tmp_path, client):
    """The same names against the live node from another process: its topics (the scan
    remapped as the snippet says) with their types, and the frames on /tf; the EKF's inputs
    carry non-zero covariances."""
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Imu

    from support.processes import scene_sim_run
    from support.ros import spin_until, wait_for_messages
    from support.tf_history import TfHistory

    snippet = yaml.safe_load((REPO / 'config' / 'nav2_params_snippet.yaml').read_text())
    amcl = snippet['amcl']['ros__parameters']
    ekf = snippet['ekf_filter_node']['ros__parameters']
    controller = snippet['controller_server']['ros__parameters']
    local = snippet['local_costmap']['local_costmap']['ros__parameters']
    wanted = {controller['odom_topic']: 'nav_msgs/msg/Odometry',
              ekf['odom0']: 'nav_msgs/msg/Odometry',
              ekf['imu0']: 'sensor_msgs/msg/Imu',
              amcl['scan_topic']: 'sensor_msgs/msg/LaserScan',
              snippet['collision_monitor']['ros__parameters']['cmd_vel_out_topic']:
                  'geometry_msgs/msg/TwistStamped'}
    with scene_sim_run(tmp_path, '--ros-args', '-r', '/rover/laser/scan:=/scan'):
        history = TfHistory(client)

        def served() -> bool:
            types = dict(client.get_topic_names_and_types())
            return all(kind in types.get(topic, []) for topic, kind in wanted.items())
        assert spin_until(client, served, 30.0), dict(client.get_topic_names_and_types())
        frames = {amcl['odom_frame_id'], amcl['base_frame_id'], local['global_frame'],
                  ekf['odom_frame'], ekf['base_link_frame']}
        assert spin_until(client, lambda: frames <= set(history.dynamic), 30.0)
        assert history.parent(ekf['base_link_frame'])[0] == ekf['odom_frame']
        (odom,) = wait_for_messages(client, Odometry, ekf['odom0'], count=1, timeout=20.0)
        (imu,) = wait_for_messages(client, Imu, ekf['imu0'], count=1, timeout=20.0)
        history.close()
    assert all(odom.twist.covariance[7 * i] > 0.0 for i in range(6))
    assert all(odom.pose.covariance[7 * i] > 0.0 for i in range(6))
    assert imu.angular_velocity_covariance[8] > 0.0
    assert imu.linear_acceleration_covariance[0] > 0.0
