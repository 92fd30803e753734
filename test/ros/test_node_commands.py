"""Command checking and trajectory interpolation (scene_sim_ros.ros.bridge.commands; no ROS needed)."""

import math

import pytest

from scene_sim_ros.ros.bridge.commands import (
    CommandRejected,
    default_interface,
    forward_commands,
    joint_state_commands,
    trajectory,
)

KNOWN = {'a': None, 'b': None, 'c': None}


def test_joint_state_commands_accepts_names_with_any_interfaces():
    commands = joint_state_commands(['b', 'a'], {'position': [1.0, 2.0], 'velocity': [],
                                                 'effort': [0.5, 0.25]}, KNOWN)
    assert commands == [('b', {'position': 1.0, 'effort': 0.5}),
                        ('a', {'position': 2.0, 'effort': 0.25})]


@pytest.mark.parametrize('names, fields, reason', [
    (['a'], {'position': [math.nan]}, 'not finite'),
    (['a'], {'velocity': [math.inf]}, 'not finite'),
    (['nope'], {'position': [1.0]}, 'unknown joint'),
    (['a', 'b'], {'position': [1.0]}, '1 position values for 2 joints'),
    (['a', 'a'], {'position': [1.0, 2.0]}, 'duplicate'),
    (['a'], {'position': [], 'velocity': [], 'effort': []}, 'all empty'),
    ([], {'position': []}, 'no joint names'),
])
def test_joint_state_commands_rejects_bad_messages(names, fields, reason):
    with pytest.raises(CommandRejected, match=reason):
        joint_state_commands(names, fields, KNOWN)


NATIVE = {'a': 'velocity', 'b': 'position', 'c': 'position'}


def test_topic_based_system_layout_fills_each_interface_in_name_order():
    """topic_based_ros2_control sends every joint's name and, per interface, one value for
    each joint that has it: here a velocity wheel 'a' and position joints 'c', 'b'."""
    commands = joint_state_commands(['a', 'c', 'b'], {'position': [0.5, 0.25],
                                                      'velocity': [3.0], 'effort': []},
                                    KNOWN, NATIVE)
    assert commands == [('a', {'velocity': 3.0}), ('c', {'position': 0.5}),
                        ('b', {'position': 0.25})]


@pytest.mark.parametrize('names, fields', [
    (['a', 'b'], {'position': [1.0, 2.0, 3.0]}),  # longer than the names
    (['a', 'b', 'c'], {'velocity': [1.0, 2.0]}),  # only 'a' is a velocity joint
])
def test_topic_based_system_layout_must_match_the_native_interfaces(names, fields):
    with pytest.raises(CommandRejected, match='native interface'):
        joint_state_commands(names, fields, KNOWN, NATIVE)


def test_forward_commands_need_one_finite_value_per_joint():
    assert forward_commands(['a', 'c'], 'velocity', [1.0, -2.0]) == [
        ('a', {'velocity': 1.0}), ('c', {'velocity': -2.0})]
    with pytest.raises(CommandRejected, match='3 values for the 2 joints'):
        forward_commands(['a', 'c'], 'velocity', [1.0, 2.0, 3.0])
    with pytest.raises(CommandRejected, match='not finite'):
        forward_commands(['a'], 'position', [math.nan])


def test_default_interface_follows_the_controller_name():
    assert default_interface('velocity_controller') == 'velocity'
    assert default_interface('effort_controller') == 'effort'
    assert default_interface('position_controller') == 'position'
    assert default_interface('arm_controller') == 'position'


def test_linear_trajectory_starts_from_the_current_position_and_holds_the_end():
    plan = trajectory(['a', 'b'], [(1.0, [1.0, -1.0], []), (3.0, [2.0, -1.0], [])], None, KNOWN)
    plan.begin(10.0, [0.0, 0.0])
    assert plan.start == 10.0
    assert plan.sample(10.0)[0] == [0.0, 0.0]
    positions, velocities = plan.sample(10.5)
    assert positions == pytest.approx([0.5, -0.5])
    assert velocities == pytest.approx([1.0, -1.0])
    assert plan.sample(12.0)[0] == pytest.approx([1.5, -1.0])
    assert plan.sample(20.0) == ([2.0, -1.0], [0.0, 0.0])
    assert not plan.finished(12.9) and plan.finished(13.0)


def test_hermite_trajectory_meets_points_and_velocities():
    plan = trajectory(['a'], [(1.0, [1.0], [0.5]), (2.0, [2.0], [0.0])], 5.0, KNOWN)
    plan.begin(4.0, [0.0])
    assert plan.start == 5.0  # the stamp wins over the time it was first seen
    positions, velocities = plan.sample(6.0)
    assert positions == pytest.approx([1.0])
    assert velocities == pytest.approx([0.5])
    mid, _ = plan.sample(6.5)
    assert 1.0 < mid[0] < 2.0
    assert plan.sample(7.0)[0] == pytest.approx([2.0])


@pytest.mark.parametrize('points, reason', [
    ([(1.0, [1.0, 2.0], [])], '2 positions for 1 joints'),
    ([(1.0, [math.nan], [])], 'not finite'),
    ([(2.0, [1.0], []), (1.0, [1.0], [])], 'back in time'),
    ([(-1.0, [1.0], [])], 'time_from_start'),
    ([(1.0, [1.0], [1.0, 2.0])], 'velocities'),
    ([], 'no points'),
])
def test_trajectory_rejects_bad_points(points, reason):
    with pytest.raises(CommandRejected, match=reason):
        trajectory(['a'], points, None, KNOWN)
