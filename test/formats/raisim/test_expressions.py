"""Template parameters and the safe arithmetic evaluator."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats.raisim import expressions


@pytest.mark.parametrize(('text', 'expected'), [
    ('1+2*3', 7.0), ('(1+2)*3', 9.0), ('2**10', 1024.0), ('2^3', 8.0), ('-4/8', -0.5),
    ('cos(0)*(3*0.2+0.1)', 0.7), ('sin(pi/2)', 1.0), ('exp(log(5))', 5.0), ('7%4', 3.0),
])
def test_evaluate_arithmetic(text: str, expected: float) -> None:
    assert expressions.evaluate(text) == pytest.approx(expected)


def test_evaluate_loop_variables() -> None:
    assert expressions.evaluate('i*2+1', {'i': 4}) == 9.0


@pytest.mark.parametrize('text', [
    '__import__("os").system("true")', 'open("x")', '(1).__class__', 'x', '[1, 2]', 'a if b else c',
    'sin(1, 2)', '1 +', 'lambda: 1', '2**100000',
])
def test_evaluate_rejects_everything_else(text: str) -> None:
    with pytest.raises(expressions.ExpressionError):
        expressions.evaluate(text)


def test_substitute_parameters_then_expressions() -> None:
    params = {'idx': '3', 'offset': '0.1'}
    text = 'sphere_@@idx {cos(0.1*@@idx)*(@@idx*0.2+0.1)} {@@offset+@@idx*1.0}'
    name, x, z = expressions.substitute(text, params).split()
    assert name == 'sphere_3'
    assert float(x) == pytest.approx(math.cos(0.3) * 0.7)
    assert float(z) == pytest.approx(3.1)


def test_substitute_integral_results_print_without_decimal_point() -> None:
    assert expressions.substitute('box_{@@i+1}', {'i': '2'}) == 'box_3'


def test_missing_parameters_lists_unknown_names() -> None:
    assert expressions.missing_parameters('@@a @@b @@c', {'b': '1'}) == ['a', 'c']
