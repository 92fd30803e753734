"""Units, colours and placeholder substitution of SimRobot attribute values."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats.simrobot import values
from scene_sim_ros.formats.simrobot.values import BadValue, Scope


@pytest.mark.parametrize(('text', 'units', 'expected'), [
    ('320mm', values.LENGTH, 0.32), ('5cm', values.LENGTH, 0.05), ('3dm', values.LENGTH, 0.3),
    ('2m', values.LENGTH, 2.0), ('1.5km', values.LENGTH, 1500.0), ('0.25', values.LENGTH, 0.25),
    ('180degree', values.ANGLE, math.pi), ('2radian', values.ANGLE, 2.0),
    ('685g', values.MASS, 0.685), ('2kg', values.MASS, 2.0),
    ('5062341.69g*mm^2', values.INERTIA, 5062341.69e-9), ('0.5kg*m^2', values.INERTIA, 0.5),
    ('0.0166s', values.TIME, 0.0166),
    ('474degree/s', values.ANGULAR_VELOCITY, math.radians(474)),
    ('3radian/s', values.ANGULAR_VELOCITY, 3.0),
    ('200mm/s', values.VELOCITY, 0.2), ('36km/h', values.VELOCITY, 10.0),
    ('-9810mm/s^2', values.ACCELERATION, -9.81), ('-9.81m/s^2', values.ACCELERATION, -9.81),
    ('3N', values.FORCE, 3.0), ('1e-3m', values.LENGTH, 0.001), (' 2 m ', values.LENGTH, 2.0),
])
def test_parse_quantity_converts_units_to_si(text: str, units: dict[str, float],
                                             expected: float) -> None:
    assert values.parse_quantity(text, units) == pytest.approx(expected)


@pytest.mark.parametrize(('text', 'units'), [
    ('3inch', values.LENGTH), ('5degree', values.LENGTH), ('1m', values.ANGLE), ('2lb', values.MASS),
    ('4ms', values.TIME), ('1g*cm^2', values.INERTIA), ('2kN', values.FORCE),
])
def test_parse_quantity_rejects_unknown_unit(text: str, units: dict[str, float]) -> None:
    with pytest.raises(BadValue, match='unknown unit'):
        values.parse_quantity(text, units)


@pytest.mark.parametrize('text', ['', 'abc', 'mm', '$x'])
def test_parse_quantity_rejects_non_numbers(text: str) -> None:
    with pytest.raises(BadValue, match='expected a number'):
        values.parse_quantity(text, values.LENGTH)


@pytest.mark.parametrize(('text', 'expected'), [
    ('#f00', (1.0, 0.0, 0.0, 1.0)),
    ('#0f08', (0.0, 1.0, 0.0, 0x88 / 255)),
    ('#f80011', (0xf8 / 255, 0.0, 0x11 / 255, 1.0)),
    ('#1038bc80', (0x10 / 255, 0x38 / 255, 0xbc / 255, 0x80 / 255)),
    ('rgb(255, 128, 0)', (1.0, 128 / 255, 0.0, 1.0)),
    ('rgb(65%, 65%, 70%)', (0.65, 0.65, 0.70, 1.0)),
    ('rgba(0%, 50%, 75%, 0.75)', (0.0, 0.5, 0.75, 0.75)),
    ('rgba(80, 80, 80)', (80 / 255, 80 / 255, 80 / 255, 1.0)),
])
def test_parse_color_forms(text: str, expected: tuple[float, ...]) -> None:
    assert values.parse_color(text) == pytest.approx(expected)


@pytest.mark.parametrize('text', ['#ff', '#12345', '#ggg', 'red', 'rgb(1, 2)', 'rgb(1,2,3',
                                  'rgba(1, 2, 3, x)'])
def test_parse_color_rejects_malformed(text: str) -> None:
    with pytest.raises(BadValue, match='invalid colour'):
        values.parse_color(text)


@pytest.mark.parametrize(('text', 'expected'), [('true', True), ('on', True), ('1', True),
                                                ('false', False), ('off', False), ('0', False)])
def test_parse_bool(text: str, expected: bool) -> None:
    assert values.parse_bool(text) is expected


def test_substitute_all_placeholder_forms_through_the_scope_chain() -> None:
    outer = Scope()
    outer.values['Color'] = 'red'
    inner = Scope(outer)
    inner.values['Size'] = '5'
    text, missing = values.substitute('nao-$Color $(Size)mm ${Size}x', inner)
    assert (text, missing) == ('nao-red 5mm 5x', [])


def test_substitute_reports_unresolved_names_and_keeps_them() -> None:
    text, missing = values.substitute('a$Missing-b', Scope())
    assert (text, missing) == ('a$Missing-b', ['Missing'])


def test_substitute_bare_name_stops_at_non_alphanumeric() -> None:
    scope = Scope()
    scope.values['A'] = 'x'
    assert values.substitute('$A_b', scope) == ('x_b', [])
