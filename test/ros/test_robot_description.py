"""Which robot gets robot_description / joint_states in the node namespace (no ROS graph)."""

import pytest

pytest.importorskip('rclpy')

from scene_sim_ros.ros.bridge.robot_description import choose_robot  # noqa: E402


def test_the_only_robot_is_chosen_by_default():
    assert choose_robot(['arm'], '')[0] == 'arm'


def test_several_robots_need_the_parameter():
    assert choose_robot(['a', 'b'], '')[0] is None
    assert choose_robot(['a', 'b'], 'b') == ('b', 'parameter robot_description_entity')


def test_no_robot_or_an_unknown_name_gives_none_and_says_why():
    assert choose_robot([], '') == (None, 'the scene has no robot')
    chosen, why = choose_robot(['a'], 'zz')
    assert chosen is None and "'zz' is no robot" in why
