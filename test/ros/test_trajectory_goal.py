"""FollowJointTrajectory goal checks and judging (scene_sim_ros.ros.bridge.trajectory_goal; no ROS)."""

import math

import pytest

from scene_sim_ros.ros.bridge import trajectory_goal as tg
from scene_sim_ros.ros.bridge.trajectory_goal import GoalError, GoalMonitor, Tolerance, check_goal

KNOWN = {'a': None, 'b': None, 'c': None}


def point(t, positions, velocities=(), accelerations=(), effort=()):
    return (t, list(positions), list(velocities), list(accelerations), list(effort))


def test_result_codes_are_control_msgs_ones():
    assert (tg.SUCCESSFUL, tg.INVALID_GOAL, tg.INVALID_JOINTS, tg.OLD_HEADER_TIMESTAMP,
            tg.PATH_TOLERANCE_VIOLATED, tg.GOAL_TOLERANCE_VIOLATED) == (0, -1, -2, -3, -4, -5)


@pytest.mark.parametrize('names, points, kwargs, code, reason', [
    ([], [point(1, [])], {}, tg.INVALID_JOINTS, 'no joints'),
    (['a', 'nope'], [point(1, [0, 0])], {}, tg.INVALID_JOINTS, 'unknown joint'),
    (['a', 'a'], [point(1, [0, 0])], {}, tg.INVALID_JOINTS, 'duplicate'),
    (['a'], [point(1, [0])], {'path_tolerance': [('zz', 0.1, 0, 0)]}, tg.INVALID_JOINTS,
     'unknown joint'),
    (['a'], [], {}, tg.INVALID_GOAL, 'no points'),
    (['a'], [point(1, [0]), point(1, [1])], {}, tg.INVALID_GOAL, 'not after'),
    (['a'], [point(2, [0]), point(1, [1])], {}, tg.INVALID_GOAL, 'not after'),
    (['a'], [point(-1, [0])], {}, tg.INVALID_GOAL, 'time_from_start'),
    (['a', 'b'], [point(1, [0])], {}, tg.INVALID_GOAL, '1 positions for 2'),
    (['a'], [point(1, [0], [0, 0])], {}, tg.INVALID_GOAL, '2 velocities'),
    (['a'], [point(1, [0], [], [1, 2])], {}, tg.INVALID_GOAL, '2 accelerations'),
    (['a'], [point(1, [math.nan])], {}, tg.INVALID_GOAL, 'nan'),
    (['a'], [point(1, [0], [0.5])], {}, tg.INVALID_GOAL, 'non-zero velocity'),
    (['a'], [point(1, [0])], {'multi_dof': True}, tg.INVALID_GOAL, 'multi-DOF'),
    (['a'], [point(1, [0])], {'goal_tolerance': [('a', -2.0, 0, 0)]}, tg.INVALID_GOAL,
     '-1: erase'),
    (['a'], [point(1, [0])], {'stamp': 5.0, 'now': 7.0}, tg.OLD_HEADER_TIMESTAMP, 'ended'),
])
def test_bad_goals_end_with_jtcs_codes(names, points, kwargs, code, reason):
    with pytest.raises(GoalError, match=reason) as caught:
        check_goal(names, points, known=KNOWN, **kwargs)
    assert caught.value.code == code


def test_tolerances_zero_keeps_the_default_minus_one_erases():
    goal = check_goal(['a', 'b'], [point(0.0, [0, 0]), point(1.0, [1, 2])], known=KNOWN,
                      path_tolerance=[('a', 0.1, 0.0, 0.0), ('c', 0.3, 0, 0)],
                      goal_tolerance=[('a', 0.01, -1.0, 0.0), ('b', 0.0, 0.0, 0.0)],
                      goal_time_tolerance=0.5)
    assert goal.path == {'a': Tolerance(0.1), 'b': Tolerance()}  # c: not in the goal
    assert goal.goal == {'a': Tolerance(0.01, 0.0), 'b': Tolerance(0.0, tg.STOPPED_VELOCITY_TOLERANCE)}
    assert goal.goal_time == 0.5 and goal.end_positions == [1.0, 2.0]
    assert check_goal(['a'], [point(1, [0])], known=KNOWN).goal_time == tg.DEFAULT_GOAL_TIME


def test_partial_goals_and_a_future_stamp_are_accepted():
    goal = check_goal(['c'], [point(1.0, [1.0])], known=KNOWN, stamp=10.0, now=2.0)
    assert goal.plan.start == 10.0 and goal.joints == ['c']


def run(goal, t0, follow):
    """Monitor ``goal`` from ``t0`` every 10 ms; ``follow(t, desired) -> actual``."""
    monitor = GoalMonitor(goal)
    goal.plan.begin(t0, [0.0] * len(goal.joints))
    t = t0
    while t < t0 + 20.0:
        desired, _ = goal.plan.sample(t)
        outcome = monitor.update(t, follow(t, desired), [0.0] * len(goal.joints))
        if outcome is not None:
            return t, outcome
        t += 0.01
    return t, None


def test_a_goal_tracked_exactly_succeeds_at_the_end():
    goal = check_goal(['a'], [point(1.0, [1.0])], known=KNOWN,
                      path_tolerance=[('a', 0.05, 0, 0)], goal_tolerance=[('a', 0.01, 0, 0)])
    t, outcome = run(goal, 3.0, lambda t, desired: desired)
    assert outcome == tg.Outcome(tg.SUCCESSFUL, tg.SUCCESS_MESSAGE)
    assert t == pytest.approx(4.0, abs=0.011)


def test_lagging_beyond_the_path_tolerance_aborts():
    goal = check_goal(['a'], [point(1.0, [1.0])], known=KNOWN,
                      path_tolerance=[('a', 0.05, 0, 0)])
    t, outcome = run(goal, 0.0, lambda t, desired: [0.0])
    assert outcome.code == tg.PATH_TOLERANCE_VIOLATED and 'a: position error' in outcome.message
    assert t == pytest.approx(0.06, abs=0.011)


def test_missing_the_goal_aborts_after_goal_time_and_waits_without_one():
    far = lambda t, desired: [0.5]  # noqa: E731
    goal = check_goal(['a'], [point(1.0, [1.0])], known=KNOWN,
                      goal_tolerance=[('a', 0.01, 0, 0)], goal_time_tolerance=0.5)
    t, outcome = run(goal, 0.0, far)
    assert outcome.code == tg.GOAL_TOLERANCE_VIOLATED and t == pytest.approx(1.5, abs=0.011)
    goal = check_goal(['a'], [point(1.0, [1.0])], known=KNOWN,
                      goal_tolerance=[('a', 0.01, 0, 0)])
    assert run(goal, 0.0, far)[1] is None  # goal_time 0: waits


def test_default_goal_check_is_stopped_velocity_only():
    goal = check_goal(['a'], [point(1.0, [1.0])], known=KNOWN)
    monitor = GoalMonitor(goal)
    goal.plan.begin(0.0, [0.0])
    assert monitor.update(1.0, [0.7], [0.5]) is None  # still moving
    assert monitor.update(1.1, [0.7], [0.005]).succeeded  # position unchecked by default


def test_feedback_sample_reports_the_segment_index_and_errors():
    goal = check_goal(['a', 'b'], [point(1.0, [1.0, 0.0]), point(2.0, [2.0, 1.0])], known=KNOWN)
    goal.plan.begin(0.0, [0.0, 0.0])
    sample = GoalMonitor(goal).sample(1.5, [1.0, 0.0], [0.0, 0.0])
    assert sample.index == 1
    assert sample.desired_positions == pytest.approx([1.5, 0.5])
    assert sample.position_error == pytest.approx([0.5, 0.5])
    assert GoalMonitor(goal).sample(9.0, [2.0, 1.0], [0, 0]).index == 1
