"""Joint motor models, in SI units (rad or m, per second, N or N*m).

The simulator gives each its semantics (SimRobot's models are the reference); a joint without a
motor is passive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

VELOCITY_LAW = 'velocity'
"""SimRobotCore2 on ODE: a PID controller gives a joint velocity, realised with ``max_force``."""
TORQUE_LAW = 'torque'
"""SimRobotCore3 (MuJoCo): a PD controller gives a joint torque clamped to ``max_force``."""
CONTROL_LAWS = (VELOCITY_LAW, TORQUE_LAW)


@dataclass(frozen=True, slots=True)
class ServoMotor:
    """Position control with one of two laws (``control``):

    - ``'velocity'`` (SimRobotCore2/ODE): a PID controller on the position error produces a
      velocity; the set-point moves towards the commanded position by at most ``max_velocity``
      per second and is clamped to the joint limits; the velocity is realised with at most
      ``max_force``.
    - ``'torque'`` (SimRobotCore3/MuJoCo): ``torque = clamp(p * (set-point - position) - d *
      filtered velocity, +-max_force)``; the set-point acts ``delay`` seconds after it was
      commanded, the velocity is low-passed with factor ``velocity_filter`` (1: unfiltered);
      ``i`` and ``max_velocity`` are not used (as in SimRobotCore3).
    """

    max_velocity: float
    max_force: float
    p: float = 10.0
    i: float = 0.0
    d: float = 0.0
    control: str = VELOCITY_LAW
    delay: float = 0.0
    velocity_filter: float = 1.0
    kind: ClassVar[str] = 'servo'


@dataclass(frozen=True, slots=True)
class VelocityMotor:
    """Velocity control with at most ``max_velocity`` and ``max_force``.

    ``control`` 'velocity': the velocity is reached with at most ``max_force`` (ODE motor);
    'torque' (SimRobotCore3): ``torque = clamp(0.2 * (velocity - joint velocity), +-max_force)``.
    """

    max_velocity: float
    max_force: float
    control: str = VELOCITY_LAW
    kind: ClassVar[str] = 'velocity'


@dataclass(frozen=True, slots=True)
class PT2Motor:
    """Second-order lag of the commanded position: T (s), D (damping), K (gain),
    V (max velocity), F (max force)."""

    t: float
    d: float
    k: float
    v: float
    f: float
    kind: ClassVar[str] = 'pt2'


Motor = ServoMotor | VelocityMotor | PT2Motor


def command_interface(motor: Motor | None) -> str:
    """The ros2_control command interface a joint takes natively: ``position`` for a servo or
    PT2 motor, ``velocity`` for a velocity motor, ``effort`` for a passive joint (the only
    command it accepts)."""
    if motor is None:
        return 'effort'
    return 'velocity' if motor.kind == 'velocity' else 'position'
