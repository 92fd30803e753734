"""What a caller asks of any engine, checked and turned into model values before the engine
acts: a teleport's pose, a root velocity, a push (:meth:`Simulator.apply_force`), and where a
kinematic entity is after a step. Both engines share these, so a bad request reads the same
whichever engine runs (SimulationError naming the entity)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import (
    Vec3,
    quat_from_axis_angle,
    quat_multiply,
    quat_normalized,
    vec3,
)


def requested_pose(name: str, xyz: Sequence[float], quat_xyzw: Sequence[float]) -> Pose:
    """``xyz``/``quat_xyzw`` as a pose (the quaternion normalised); SimulationError unless
    3 + 4 finite numbers and a quaternion that is not zero."""
    values = [float(v) for v in (*xyz, *quat_xyzw)]
    if len(values) != 7 or not all(math.isfinite(v) for v in values):
        raise SimulationError(f'{name!r}: pose needs 3 + 4 finite numbers, got {values}')
    try:
        return Pose(vec3(values[:3]), quat_normalized(values[3:]))
    except ValueError:
        raise SimulationError(f'{name!r}: zero quaternion') from None


def requested_velocity(name: str, linear: Sequence[float],
                       angular: Sequence[float]) -> tuple[Vec3, Vec3]:
    """(linear, angular); SimulationError unless 3 + 3 finite numbers."""
    values = [float(v) for v in (*linear, *angular)]
    if len(values) != 6 or not all(math.isfinite(v) for v in values):
        raise SimulationError(f'{name!r}: velocity needs 3 + 3 finite numbers')
    return vec3(values[:3]), vec3(values[3:])


def requested_push(force: Sequence[float], torque: Sequence[float], duration: float,
                   step_length: float) -> tuple[Vec3, Vec3, int]:
    """(force, torque, steps): a push lasts ``max(1, round(duration / step_length))`` steps;
    SimulationError unless finite force and torque and a duration >= 0."""
    values = [float(v) for v in (*force, *torque)]
    if len(values) != 6 or not all(math.isfinite(v) for v in values) or \
            not math.isfinite(duration) or duration < 0.0:
        raise SimulationError('apply_force needs finite force, torque and duration >= 0')
    return vec3(values[:3]), vec3(values[3:]), max(1, round(duration / step_length))


def advanced(pose: Pose, velocity: tuple[Vec3, Vec3], dt: float) -> Pose:
    """Where a kinematic entity at ``pose`` is after ``dt`` at ``velocity`` (linear, angular;
    world frame): moved along, turned about its own origin."""
    linear, angular = velocity
    speed = math.sqrt(sum(w * w for w in angular))
    orientation = pose.orientation
    if speed > 0.0:
        turn = quat_from_axis_angle(angular, speed * dt)
        orientation = quat_normalized(quat_multiply(turn, orientation))
    return Pose(vec3([p + v * dt for p, v in zip(pose.position, linear)]), orientation)
