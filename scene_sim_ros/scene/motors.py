"""Joint motor models, in SI units (rad or m, per second, N or N*m).

The simulator gives each its semantics (SimRobot's models are the reference); a joint without a
motor is passive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union


@dataclass(frozen=True, slots=True)
class ServoMotor:
    """Position control: a PID controller on the position error produces a velocity.

    The set-point moves towards the commanded position by at most ``max_velocity`` per second and
    is clamped to the joint limits; the velocity is realised with at most ``max_force``.
    """

    max_velocity: float
    max_force: float
    p: float = 10.0
    i: float = 0.0
    d: float = 0.0
    kind: ClassVar[str] = 'servo'


@dataclass(frozen=True, slots=True)
class VelocityMotor:
    """Velocity control with at most ``max_velocity`` and ``max_force``."""

    max_velocity: float
    max_force: float
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


Motor = Union[ServoMotor, VelocityMotor, PT2Motor]
