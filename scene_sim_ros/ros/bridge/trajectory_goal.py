"""FollowJointTrajectory goals as joint_trajectory_controller (JTC, kilted) judges them: goal
checks, tolerances and the outcome over sim time. Pure Python (no rclpy, no messages), so that
it is unit-tested without ROS; :mod:`.trajectory_action` is the ROS side.

- **Checks** (:func:`check_goal`): the cases where JTC rejects a goal end here with a result
  code instead (the client learns why): no, duplicate or unknown joint names and tolerances
  naming unknown joints -> ``INVALID_JOINTS``; no points, time_from_start not strictly
  increasing, array sizes, non-finite values, a non-zero velocity at the last point,
  multi-DOF trajectories, illegal tolerances -> ``INVALID_GOAL``; a stamped trajectory that
  has already ended -> ``OLD_HEADER_TIMESTAMP``. Goals may name a subset of the joints (JTC's
  ``allow_partial_joints_goal: true``); the others keep their set-points.
- **Tolerances** (``control_msgs/JointTolerance``): per joint, 0 keeps the server default, -1
  erases it, > 0 sets it. Server defaults as JTC's: path and goal position tolerances unchecked,
  goal velocity tolerance ``stopped_velocity_tolerance`` (0.01), ``goal_time`` 0 (wait for the
  goal tolerance forever). Accelerations are not measured, so acceleration tolerances are
  accepted and not checked.
- **Outcome** (:class:`GoalMonitor`): until the trajectory's end time, every joint stays within
  its path tolerance of the interpolated set-point or the goal aborts with
  ``PATH_TOLERANCE_VIOLATED``; from the end time on it succeeds as soon as every joint is within
  its goal tolerance of the last point, and aborts with ``GOAL_TOLERANCE_VIOLATED`` when that has
  not happened ``goal_time_tolerance`` after the end (never, with 0).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scene_sim_ros.ros.bridge.commands import CommandRejected, Trajectory, trajectory

# control_msgs/action/FollowJointTrajectory result codes
SUCCESSFUL = 0
INVALID_GOAL = -1
INVALID_JOINTS = -2
OLD_HEADER_TIMESTAMP = -3
PATH_TOLERANCE_VIOLATED = -4
GOAL_TOLERANCE_VIOLATED = -5

STOPPED_VELOCITY_TOLERANCE = 0.01
"""JTC's ``constraints.stopped_velocity_tolerance``: the default goal velocity tolerance."""

DEFAULT_GOAL_TIME = 0.0
"""JTC's ``constraints.goal_time``: 0 waits for the goal tolerance without a deadline."""

SUCCESS_MESSAGE = 'Goal successfully reached!'
PREEMPTED_MESSAGE = 'Current goal cancelled due to new incoming action.'


class GoalError(ValueError):
    """A goal that cannot run; ``code`` is the FollowJointTrajectory result code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Tolerance:
    """Per-joint tolerance; 0 = unchecked."""
    position: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0


ToleranceEntry = tuple[str, float, float, float]
"""(joint name, position, velocity, acceleration) as in control_msgs/JointTolerance."""

PointEntry = tuple[float, Sequence[float], Sequence[float], Sequence[float], Sequence[float]]
"""(time_from_start, positions, velocities, accelerations, effort) of one trajectory point."""


@dataclass
class Goal:
    """A checked goal: the trajectory to run and how to judge it."""
    joints: list[str]
    plan: Trajectory
    path: dict[str, Tolerance]
    goal: dict[str, Tolerance]
    goal_time: float  # seconds after the end; 0 = no deadline
    end_positions: list[float] = field(default_factory=list)


def _merge_value(default: float, given: float, what: str) -> float:
    if not math.isfinite(given):
        raise GoalError(INVALID_GOAL, f'{what} is {given}')
    if given > 0.0:
        return given
    if given == 0.0:
        return default
    if given == -1.0:
        return 0.0  # erased
    raise GoalError(INVALID_GOAL, f'{what} is {given} (0: default, -1: erase, or > 0)')


def merge_tolerances(joints: Sequence[str], given: Sequence[ToleranceEntry],
                     default: Tolerance, known: Mapping[str, object],
                     kind: str) -> dict[str, Tolerance]:
    """Per-joint tolerances of ``joints``: the goal's entries over ``default``."""
    result = {joint: default for joint in joints}
    for name, position, velocity, acceleration in given:
        if name not in known:
            raise GoalError(INVALID_JOINTS, f'{kind} tolerance for unknown joint {name!r}; '
                                            f'joints: {sorted(known)}')
        base = result.get(name, default)
        merged = Tolerance(
            _merge_value(base.position, position, f'{kind} tolerance {name}.position'),
            _merge_value(base.velocity, velocity, f'{kind} tolerance {name}.velocity'),
            _merge_value(base.acceleration, acceleration, f'{kind} tolerance {name}.acceleration'))
        if name in result:  # tolerances of joints the goal does not move do not apply
            result[name] = merged
    return result


def check_goal(joint_names: Sequence[str], points: Sequence[PointEntry], *,
               known: Mapping[str, object], stamp: float = 0.0, now: float = 0.0,
               multi_dof: bool = False,
               path_tolerance: Sequence[ToleranceEntry] = (),
               goal_tolerance: Sequence[ToleranceEntry] = (),
               goal_time_tolerance: float = 0.0,
               component_tolerances: bool = False,
               stopped_velocity_tolerance: float = STOPPED_VELOCITY_TOLERANCE,
               default_goal_time: float = DEFAULT_GOAL_TIME) -> Goal:
    """A :class:`Goal`, or :class:`GoalError` with the result code JTC's checks amount to.

    ``stamp``: the trajectory header's stamp in sim seconds (0: start now); ``now``: sim time.
    """
    if multi_dof:
        raise GoalError(INVALID_GOAL, 'multi-DOF trajectories are not supported')
    if component_tolerances:
        raise GoalError(INVALID_GOAL, 'component tolerances are for multi-DOF joints, which '
                                      'are not supported')
    names = list(joint_names)
    if not names:
        raise GoalError(INVALID_JOINTS, 'the trajectory names no joints')
    if len(set(names)) != len(names):
        raise GoalError(INVALID_JOINTS, f'duplicate joint names in {names}')
    unknown = [n for n in names if n not in known]
    if unknown:
        raise GoalError(INVALID_JOINTS, f"unknown joint(s) {unknown}; the controller's "
                                        f'joints: {list(known)}')
    if not points:
        raise GoalError(INVALID_GOAL, 'the trajectory has no points')
    n = len(names)
    previous = None
    for index, (when, positions, velocities, accelerations, effort) in enumerate(points):
        where = f'points[{index}]'
        if not math.isfinite(when) or when < 0.0:
            raise GoalError(INVALID_GOAL, f'{where}.time_from_start is {when}')
        if previous is not None and when <= previous:
            raise GoalError(INVALID_GOAL, f'time_from_start of {where} ({when:g} s) is not '
                                          f'after the one before ({previous:g} s)')
        previous = when
        if len(positions) != n:
            raise GoalError(INVALID_GOAL, f'{where} has {len(positions)} positions for {n} '
                                          'joints')
        for label, values in (('velocities', velocities), ('accelerations', accelerations),
                              ('effort', effort)):
            if len(values) not in (0, n):
                raise GoalError(INVALID_GOAL, f'{where} has {len(values)} {label} for {n} '
                                              'joints')
        for label, values in (('positions', positions), ('velocities', velocities),
                              ('accelerations', accelerations), ('effort', effort)):
            bad = [v for v in values if not math.isfinite(v)]
            if bad:
                raise GoalError(INVALID_GOAL, f'{where}.{label} holds {bad[0]}')
    last = points[-1]
    if any(v != 0.0 for v in last[2]):
        raise GoalError(INVALID_GOAL, "the last point has a non-zero velocity (JTC's "
                                      'allow_nonzero_velocity_at_trajectory_end is false)')
    if not math.isfinite(stamp):
        raise GoalError(INVALID_GOAL, f'header stamp {stamp}')
    if stamp > 0.0 and stamp + last[0] < now:
        raise GoalError(OLD_HEADER_TIMESTAMP,
                        f'the trajectory ended at {stamp + last[0]:.3f} s, before now '
                        f'({now:.3f} s sim time)')
    if not math.isfinite(goal_time_tolerance) or goal_time_tolerance < 0.0:
        raise GoalError(INVALID_GOAL, f'goal_time_tolerance is {goal_time_tolerance}')
    path = merge_tolerances(names, path_tolerance, Tolerance(), known, 'path')
    goal = merge_tolerances(names, goal_tolerance,
                            Tolerance(velocity=stopped_velocity_tolerance), known, 'goal')
    try:
        plan = trajectory(names, [(p[0], p[1], p[2]) for p in points],
                          stamp if stamp > 0.0 else None, known)
    except CommandRejected as err:  # everything was checked above; kept as a safety net
        raise GoalError(INVALID_GOAL, str(err)) from None
    return Goal(names, plan, path, goal,
                goal_time_tolerance if goal_time_tolerance > 0.0 else default_goal_time,
                [float(p) for p in last[1]])


def violations(joints: Sequence[str], tolerances: Mapping[str, Tolerance],
               position_error: Sequence[float], velocity_error: Sequence[float]) -> list[str]:
    """Which joints exceed which of their (non-zero) tolerances, as readable strings."""
    out = []
    for joint, dp, dv in zip(joints, position_error, velocity_error):
        tol = tolerances[joint]
        if tol.position > 0.0 and abs(dp) > tol.position:
            out.append(f'{joint}: position error {dp:+.4g} exceeds {tol.position:g}')
        if tol.velocity > 0.0 and abs(dv) > tol.velocity:
            out.append(f'{joint}: velocity error {dv:+.4g} exceeds {tol.velocity:g}')
    return out


@dataclass(frozen=True)
class Outcome:
    code: int
    message: str

    @property
    def succeeded(self) -> bool:
        return self.code == SUCCESSFUL


@dataclass
class Sample:
    """Set-point, measurement and error at one instant (what feedback reports)."""
    desired_positions: list[float]
    desired_velocities: list[float]
    actual_positions: list[float]
    actual_velocities: list[float]
    index: int

    @property
    def position_error(self) -> list[float]:
        return [d - a for d, a in zip(self.desired_positions, self.actual_positions)]

    @property
    def velocity_error(self) -> list[float]:
        return [d - a for d, a in zip(self.desired_velocities, self.actual_velocities)]


class GoalMonitor:
    """Judges a running :class:`Goal` over sim time: :meth:`update` returns the outcome once
    there is one (``None`` while it runs)."""

    def __init__(self, goal: Goal):
        self.goal = goal
        self._times = [p.time for p in goal.plan.points]

    @property
    def end_time(self) -> float | None:
        plan = self.goal.plan
        return None if plan.start is None else plan.start + plan.duration

    def sample(self, t: float, positions: Sequence[float],
               velocities: Sequence[float]) -> Sample | None:
        """The set-point at ``t`` against the measured state; None before the plan started."""
        plan = self.goal.plan
        if not plan.started:
            return None
        desired, desired_velocity = plan.sample(t)
        assert plan.start is not None
        index = min(bisect.bisect_right(self._times, t - plan.start), len(self._times) - 1)
        return Sample(desired, desired_velocity, list(positions), list(velocities), index)

    def update(self, t: float, positions: Sequence[float],
               velocities: Sequence[float]) -> Outcome | None:
        sample = self.sample(t, positions, velocities)
        if sample is None:
            return None
        goal = self.goal
        start, end = goal.plan.start, self.end_time
        assert start is not None and end is not None  # sample() is None until the plan started
        if t < end:
            bad = violations(goal.joints, goal.path, sample.position_error,
                             sample.velocity_error)
            if bad:
                return Outcome(PATH_TOLERANCE_VIOLATED,
                               f'path tolerance violated at {t - start:.3f} s into the '
                               f'trajectory: ' + '; '.join(bad))
            return None
        position_error = [g - a for g, a in zip(goal.end_positions, positions)]
        velocity_error = [-v for v in velocities]
        bad = violations(goal.joints, goal.goal, position_error, velocity_error)
        if not bad:
            return Outcome(SUCCESSFUL, SUCCESS_MESSAGE)
        if goal.goal_time > 0.0 and t > end + goal.goal_time:
            return Outcome(GOAL_TOLERANCE_VIOLATED,
                           f'goal tolerance not reached {goal.goal_time:g} s after the '
                           f'trajectory ended: ' + '; '.join(bad))
        return None
