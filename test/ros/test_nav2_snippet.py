"""config/nav2_params_snippet.yaml names the frames and topics the node serves for the default
rover (frames from FrameNames, topics from the topic listing, scan per the documented remap)."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip('yaml')
pytest.importorskip('rclpy')

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.ros.interface_list import interface_rows  # noqa: E402
from scene_sim_ros.ros.tf import FrameNames  # noqa: E402
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
