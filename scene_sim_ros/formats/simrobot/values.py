"""Attribute values of SimRobot scenes: numbers with units, colours and ``$placeholders``.

Units follow SimRobot's typed getters: a number, optional spaces, then a unit from the table of
its quantity (no unit means the SI unit). Everything is converted to SI here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from scene_sim_ros import limits

LENGTH = {'': 1.0, 'm': 1.0, 'mm': 1e-3, 'cm': 1e-2, 'dm': 0.1, 'km': 1e3}
ANGLE = {'': 1.0, 'radian': 1.0, 'degree': math.pi / 180.0}
MASS = {'': 1.0, 'kg': 1.0, 'g': 1e-3}
INERTIA = {'': 1.0, 'kg*m^2': 1.0, 'g*mm^2': 1e-9}
TIME = {'': 1.0, 's': 1.0}
ANGULAR_VELOCITY = {'': 1.0, 'radian/s': 1.0, 'degree/s': math.pi / 180.0}
VELOCITY = {'': 1.0, 'm/s': 1.0, 'mm/s': 1e-3, 'cm/s': 1e-2, 'dm/s': 0.1, 'km/s': 1e3,
            'km/h': 1.0 / 3.6}
ACCELERATION = {'': 1.0, 'm/s^2': 1.0, 'mm/s^2': 1e-3}
FORCE = {'': 1.0, 'N': 1.0}
UNITLESS = {'': 1.0}

_NUMBER = re.compile(r'\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$')
_PLACEHOLDER = re.compile(r'\$(?:\(([^)]*)\)|\{([^}]*)\}|([A-Za-z0-9]*))')


class BadValue(ValueError):
    """A value that cannot be read; the message says why (no location: the caller adds it)."""


def parse_quantity(text: str, units: Mapping[str, float]) -> float:
    """``'320mm'`` with ``LENGTH`` -> 0.32. Raises :class:`BadValue` naming the problem."""
    match = _NUMBER.match(text)
    if match is None:
        raise BadValue(f'expected a number, got {text!r}')
    number, unit = match.groups()
    factor = units.get(unit)
    if factor is None:
        expected = ', '.join(u for u in units if u) or 'no unit'
        raise BadValue(f'unknown unit {unit!r} in {text!r} (expected {expected})')
    try:
        return limits.number(number) * factor
    except ValueError as err:
        raise BadValue(str(err)) from None


def parse_integer(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise BadValue(f'expected an integer, got {text!r}') from None


def parse_bool(text: str) -> bool:
    value = text.strip()
    if value in ('true', '1', 'on'):
        return True
    if value in ('false', '0', 'off'):
        return False
    raise BadValue(f'expected true or false, got {text!r}')


def _hex_color(digits: str, text: str) -> tuple[float, float, float, float]:
    if len(digits) not in (3, 4, 6, 8) or not all(c in '0123456789abcdefABCDEF' for c in digits):
        raise BadValue(f'invalid colour {text!r}')
    if len(digits) in (3, 4):  # CSS short form: each digit doubled (#f00 is red)
        channels = [int(c * 2, 16) / 255.0 for c in digits]
    else:
        channels = [int(digits[i:i + 2], 16) / 255.0 for i in range(0, len(digits), 2)]
    if len(channels) == 3:
        channels.append(1.0)
    return (channels[0], channels[1], channels[2], channels[3])


def _css_channel(part: str, text: str) -> float:
    part = part.strip()
    try:
        if part.endswith('%'):
            return float(part[:-1]) / 100.0
        return float(part) / 255.0
    except ValueError:
        raise BadValue(f'invalid colour {text!r}') from None


def parse_color(text: str) -> tuple[float, float, float, float]:
    """``#rgb #rgba #rrggbb #rrggbbaa``, ``rgb(r, g, b)``, ``rgba(r, g, b[, a])``; r, g, b in
    0..255 or percentages, a in 0..1. Returns RGBA in 0..1."""
    value = text.strip()
    if value.startswith('#'):
        return _hex_color(value[1:], text)
    for prefix, counts in (('rgba(', (3, 4)), ('rgb(', (3,))):
        if value.startswith(prefix) and value.endswith(')'):
            parts = value[len(prefix):-1].split(',')
            if len(parts) not in counts:
                raise BadValue(f'invalid colour {text!r}')
            rgb = [_css_channel(p, text) for p in parts[:3]]
            alpha = 1.0
            if len(parts) == 4:
                try:
                    alpha = float(parts[3])
                except ValueError:
                    raise BadValue(f'invalid colour {text!r}') from None
            return (rgb[0], rgb[1], rgb[2], alpha)
    raise BadValue(f'invalid colour {text!r}')


class Scope:
    """Placeholder values set by ``<Set>`` in one element, chained to the enclosing element's."""

    __slots__ = ('parent', 'values')

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.values: dict[str, str] = {}

    def lookup(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            value = scope.values.get(name)
            if value is not None:
                return value
            scope = scope.parent
        return None


def substitute(text: str, scope: Scope | None) -> tuple[str, list[str]]:
    """Replace ``$name``, ``$(name)`` and ``${name}`` (name: letters and digits in the bare
    form) by their values in ``scope``. Returns the text and the names that were unresolved."""
    if '$' not in text:
        return text, []
    missing: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) if match.group(1) is not None else (
            match.group(2) if match.group(2) is not None else match.group(3))
        if not name:
            return match.group(0)
        value = scope.lookup(name) if scope is not None else None
        if value is None:
            missing.append(name)
            return match.group(0)
        return value

    return _PLACEHOLDER.sub(replace, text), missing
