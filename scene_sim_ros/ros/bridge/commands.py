"""Joint commands from ROS messages: validation, trajectories, and counting what was rejected.

Three ways in, as in the peers (webots_ros2, gz_ros2_control, mujoco_ros2_control):

- ``sensor_msgs/JointState`` by name: ``position``, ``velocity`` and ``effort`` each either empty
  or as long as ``name``, or (topic_based_ros2_control's layout, see
  :mod:`..sim.ros2_control`) one value for each named joint whose native interface it is, in
  name order;
- ros2_control forward-controller style ``std_msgs/Float64MultiArray``: one value per joint of
  the controller's ordered joint list, for its one interface (position, velocity or effort);
- ``trajectory_msgs/JointTrajectory``: positions (velocities optional) at ``time_from_start``,
  interpolated (cubic Hermite where velocities are given, else linear) and executed in sim time.
  It starts at ``header.stamp`` (sim time), or at once when the stamp is zero, from the joints'
  positions at that moment; a new trajectory replaces the running one.

Everything is checked before it is queued (the message's thread); a bad message is rejected as a
whole with a :class:`CommandRejected` naming the reason. This module does not import rclpy.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

INTERFACES = ('position', 'velocity', 'effort')

JointCommand = tuple[str, dict[str, float]]
"""(joint name, {interface: value})"""


class CommandRejected(ValueError):
    """A command message that cannot be applied; the message says why."""


def _check_finite(values: Sequence[float], what: str) -> None:
    for index, value in enumerate(values):
        if not math.isfinite(value):
            raise CommandRejected(f'{what}[{index}] is {value} (not finite)')


def _check_joints(names: Sequence[str], known: Mapping[str, object]) -> None:
    if len(set(names)) != len(names):
        raise CommandRejected(f'duplicate joint names in {list(names)}')
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CommandRejected(f'unknown joint(s) {unknown}; movable joints: {sorted(known)}')


def joint_state_commands(names: Sequence[str], fields: Mapping[str, Sequence[float]],
                         known: Mapping[str, object],
                         native: Mapping[str, str] | None = None) -> list[JointCommand]:
    """Commands of a JointState message (``fields``: interface -> values). ``native`` (joint ->
    interface) allows an array shorter than ``name``: one value per named joint of that native
    interface, in name order (what topic_based_ros2_control sends)."""
    if not names:
        raise CommandRejected('no joint names')
    _check_joints(names, known)
    given = {k: v for k, v in fields.items() if len(v)}
    if not given:
        raise CommandRejected('position, velocity and effort are all empty')
    commands: dict[str, dict[str, float]] = {name: {} for name in names}
    for interface, values in given.items():
        _check_finite(values, interface)
        if len(values) == len(names):
            joints = list(names)
        else:
            joints = [n for n in names if native is not None and native.get(n) == interface]
            if len(values) != len(joints):
                expected = f'{len(names)}' + (f' (or {len(joints)}: the named joints whose '
                                              f'native interface is {interface})'
                                              if native is not None else '')
                raise CommandRejected(f'{len(values)} {interface} values for {len(names)} '
                                      f'joints; expected {expected}')
        for name, value in zip(joints, values):
            commands[name][interface] = float(value)
    return [(name, values) for name, values in commands.items() if values]


def forward_commands(joints: Sequence[str], interface: str,
                     data: Sequence[float]) -> list[JointCommand]:
    """Commands of a forward controller's Float64MultiArray."""
    if len(data) != len(joints):
        raise CommandRejected(f'{len(data)} values for the {len(joints)} joints {list(joints)}')
    _check_finite(data, 'data')
    return [(name, {interface: float(value)}) for name, value in zip(joints, data)]


@dataclass
class TrajectoryPoint:
    time: float  # seconds from the trajectory's start
    positions: list[float]
    velocities: list[float] | None


class Trajectory:
    """A joint trajectory in sim time: :meth:`sample` gives positions and velocities at ``t``."""

    def __init__(self, joints: Sequence[str], points: Sequence[TrajectoryPoint],
                 start: float | None):
        self.joints = list(joints)
        self.points = list(points)
        self.start = start  # None: starts at the first step that sees it
        self._times = [p.time for p in self.points]
        self._initial: list[float] | None = None

    @property
    def duration(self) -> float:
        return self._times[-1]

    def begin(self, now: float, current: Sequence[float]) -> None:
        """Fix the start (if the message left it open) and the positions it starts from."""
        if self.start is None:
            self.start = now
        self._initial = list(current)

    @property
    def started(self) -> bool:
        return self._initial is not None

    def finished(self, t: float) -> bool:
        return self.start is not None and t - self.start >= self.duration

    def sample(self, t: float) -> tuple[list[float], list[float]]:
        """Positions and velocities at sim time ``t`` (held at the ends)."""
        if self.start is None or self._initial is None:
            raise RuntimeError('Trajectory.sample() before begin()')
        s = t - self.start
        if s <= 0.0:
            return list(self._initial), [0.0] * len(self.joints)
        index = bisect.bisect_right(self._times, s)
        if index >= len(self.points):
            last = self.points[-1]
            return list(last.positions), [0.0] * len(self.joints)
        after = self.points[index]
        if index == 0:
            before = TrajectoryPoint(0.0, self._initial, [0.0] * len(self.joints)
                                     if after.velocities is not None else None)
        else:
            before = self.points[index - 1]
        return _interpolate(before, after, s)


def _interpolate(a: TrajectoryPoint, b: TrajectoryPoint,
                 s: float) -> tuple[list[float], list[float]]:
    span = b.time - a.time
    if span <= 0.0:
        return list(b.positions), [0.0] * len(b.positions)
    u = (s - a.time) / span
    if a.velocities is None or b.velocities is None:
        positions = [p0 + (p1 - p0) * u for p0, p1 in zip(a.positions, b.positions)]
        velocities = [(p1 - p0) / span for p0, p1 in zip(a.positions, b.positions)]
        return positions, velocities
    # cubic Hermite with end velocities (what joint_trajectory_controller does with velocities)
    h00 = 2 * u**3 - 3 * u**2 + 1
    h10 = u**3 - 2 * u**2 + u
    h01 = -2 * u**3 + 3 * u**2
    h11 = u**3 - u**2
    d00 = (6 * u**2 - 6 * u) / span
    d10 = 3 * u**2 - 4 * u + 1
    d01 = (-6 * u**2 + 6 * u) / span
    d11 = 3 * u**2 - 2 * u
    positions, velocities = [], []
    for p0, p1, v0, v1 in zip(a.positions, b.positions, a.velocities, b.velocities):
        positions.append(h00 * p0 + h10 * span * v0 + h01 * p1 + h11 * span * v1)
        velocities.append(d00 * p0 + d10 * v0 + d01 * p1 + d11 * v1)
    return positions, velocities


def trajectory(names: Sequence[str], points: Sequence[tuple[float, Sequence[float],
                                                             Sequence[float]]],
               start: float | None, known: Mapping[str, object]) -> Trajectory:
    """A checked :class:`Trajectory` from (time_from_start, positions, velocities) tuples."""
    if not names:
        raise CommandRejected('no joint names')
    _check_joints(names, known)
    if not points:
        raise CommandRejected('no points')
    checked: list[TrajectoryPoint] = []
    previous = -math.inf
    for index, (when, positions, velocities) in enumerate(points):
        if not math.isfinite(when) or when < 0.0:
            raise CommandRejected(f'points[{index}].time_from_start is {when}')
        if when < previous:
            raise CommandRejected(f'points[{index}].time_from_start goes back in time')
        previous = when
        if len(positions) != len(names):
            raise CommandRejected(f'points[{index}] has {len(positions)} positions for '
                                  f'{len(names)} joints')
        _check_finite(positions, f'points[{index}].positions')
        if len(velocities) not in (0, len(names)):
            raise CommandRejected(f'points[{index}] has {len(velocities)} velocities for '
                                  f'{len(names)} joints')
        _check_finite(velocities, f'points[{index}].velocities')
        checked.append(TrajectoryPoint(float(when), [float(p) for p in positions],
                                       [float(v) for v in velocities] if len(velocities) else None))
    if start is not None and not math.isfinite(start):
        raise CommandRejected(f'start time {start} is not finite')
    return Trajectory(names, checked, start)


def default_interface(controller: str) -> str:
    """The interface a forward controller commands, from its name (``velocity_controller``)."""
    for interface in INTERFACES:
        if controller.startswith(interface):
            return interface
    return 'position'
