"""Values typed on the command line, parsed the way ros2cli parses them (pure Python, no rclpy).

``parse_value('1')`` -> 1, ``'1.5'`` -> 1.5, ``'true'`` -> True, ``'[1, 2.5]'`` -> [1.0, 2.5],
``"'007'"`` -> '007', ``'hello'`` -> 'hello' (YAML 1.1 scalars, like ``ros2 param set``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class BadValue(ValueError):
    """A value that cannot be used; the message is one line for the user."""


def parse_value(text: str
                ) -> bool | int | float | str | list[bool] | list[int] | list[float] | list[str]:
    """A YAML-ish scalar or flow sequence: bool, int, float, string, or a list of one kind."""
    import yaml
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if value is None:
        return text
    if isinstance(value, str) and value == text.strip():
        try:
            return float(value)  # YAML 1.1 reads 1e3 as a string; a user means a number
        except ValueError:
            return value
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return _homogeneous(value, text)
    return text  # a mapping or a date: keep what was typed


def _homogeneous(items: list[Any], text: str) -> list[bool] | list[int] | list[float] | list[str]:
    kinds = {type(item) for item in items}
    if kinds <= {bool} or kinds <= {int} or kinds <= {str}:
        return items
    if kinds <= {int, float} and bool not in kinds:
        return [float(item) for item in items]
    if kinds <= {bool, int, float, str}:
        raise BadValue(f'array {text!r} mixes types; all items must be bools, numbers or '
                          'strings')
    raise BadValue(f'array {text!r} holds nested values; only flat arrays are parameters')


def parse_finite(text: str, what: str) -> float:
    """A finite float, else :class:`BadValue` naming ``what`` (NaN and infinities refused)."""
    try:
        value = float(text)
    except ValueError:
        raise BadValue(f'{what}: {text!r} is not a number') from None
    if not math.isfinite(value):
        raise BadValue(f'{what}: {text!r} is not finite')
    return value


def parse_assignments(items: Sequence[str]) -> list[tuple[str, float]]:
    """``['pan_joint=1.0', ...]`` -> ``[('pan_joint', 1.0), ...]``; finite numbers only."""
    pairs = []
    for item in items:
        name, sep, value = item.partition('=')
        if not sep or not name:
            raise BadValue(f'expected JOINT=VALUE, got {item!r}')
        pairs.append((name, parse_finite(value, name)))
    seen = set()
    for name, _ in pairs:
        if name in seen:
            raise BadValue(f'joint {name!r} given twice')
        seen.add(name)
    return pairs


def parse_pose(values: Sequence[str], what: str = 'pose'
               ) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """``x y z [roll pitch yaw]`` (metres, radians) -> (position, quaternion xyzw)."""
    if len(values) not in (3, 6):
        raise BadValue(f'{what}: expected x y z [roll pitch yaw], got {len(values)} '
                          f'value{"s" if len(values) != 1 else ""}')
    numbers = [parse_finite(v, f'{what} {n}') for v, n in
               zip(values, ('x', 'y', 'z', 'roll', 'pitch', 'yaw'))]
    roll, pitch, yaw = numbers[3:] if len(numbers) == 6 else (0.0, 0.0, 0.0)
    return (numbers[0], numbers[1], numbers[2]), quaternion_from_rpy(roll, pitch, yaw)


def quaternion_from_rpy(roll: float, pitch: float, yaw: float) -> tuple[float, float, float, float]:
    """Fixed-axis roll, pitch, yaw (about x, then y, then z; as tf2) -> quaternion xyzw."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy)
