"""RaiSim template parameters (``@@name``) and ``{math}`` expressions in attribute values.

``@@name`` is replaced by the value of parameter ``name`` (loop variables of ``<array>``,
``<params>`` entries, then the user's parameters, which win). ``{...}`` is an arithmetic
expression evaluated after substitution: numbers, ``+ - * / ** ^ %``, parentheses, the
functions ``sin cos tan asin acos atan exp log sqrt abs floor ceil`` and the constants ``pi``
and ``e``. Expressions are parsed with :mod:`ast` and walked by a small evaluator; nothing is
ever passed to ``eval``. Arithmetic is in floats (so a huge power overflows at once instead of
computing a giant integer) and an expression holds at most ``max_math_nodes`` (:mod:`..limits`)
operators, numbers and calls.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping

from scene_sim_ros import limits

PARAMETER = re.compile(r'@@([A-Za-z_][A-Za-z0-9_]*)')
EXPRESSION = re.compile(r'\{([^{}]*)\}')

BINARY_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.Mod: math.fmod,
}
UNARY_OPERATORS: dict[type, Callable[[float], float]] = {
    ast.UAdd: operator.pos, ast.USub: operator.neg,
}
FUNCTIONS: dict[str, Callable[[float], float]] = {
    'sin': math.sin, 'cos': math.cos, 'tan': math.tan, 'asin': math.asin, 'acos': math.acos,
    'atan': math.atan, 'exp': math.exp, 'log': math.log, 'sqrt': math.sqrt, 'abs': abs,
    'floor': math.floor, 'ceil': math.ceil,
}
CONSTANTS: dict[str, float] = {'pi': math.pi, 'e': math.e}


class ExpressionError(ValueError):
    """An expression is malformed or uses something the evaluator does not support."""


def evaluate(text: str, variables: Mapping[str, float] | None = None) -> float:
    """Evaluate arithmetic ``text`` (``^`` is a power, as in C++ expression libraries)."""
    limit = limits.current().max_math_nodes
    if len(text) > 20 * limit:
        raise ExpressionError(f'expression of {len(text)} characters is over the limit '
                              f'max_math_nodes = {limit} (raise it with '
                              f'{limits.env_name("max_math_nodes")}=...)')
    try:
        tree = ast.parse(text.replace('^', '**').strip(), mode='eval')
    except (SyntaxError, RecursionError, MemoryError) as err:
        reason = err.msg if isinstance(err, SyntaxError) else 'nested too deeply'
        raise ExpressionError(f'malformed expression {{{text}}}: {reason}') from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > limit:
        raise ExpressionError(f'expression has {nodes} parts, over the limit max_math_nodes = '
                              f'{limit} (raise it with {limits.env_name("max_math_nodes")}=...)')
    try:
        value = float(_evaluate_node(tree.body, variables or {}))
        if not math.isfinite(value):
            raise ExpressionError(f'{{{text}}} is {value}, not a finite number')
        return value
    except (ArithmeticError, ValueError) as err:
        if isinstance(err, ExpressionError):
            raise
        reason = 'the result is too large' if isinstance(err, OverflowError) else str(err)
        raise ExpressionError(f'cannot evaluate {{{text}}}: {reason}') from None


def _evaluate_node(node: ast.AST, variables: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY_OPERATORS:
        left = _evaluate_node(node.left, variables)
        right = _evaluate_node(node.right, variables)
        if isinstance(node.op, ast.Pow) and abs(right) > 1024:
            raise ExpressionError('exponent too large')
        return BINARY_OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY_OPERATORS:
        return UNARY_OPERATORS[type(node.op)](_evaluate_node(node.operand, variables))
    if isinstance(node, ast.Name):
        if node.id in variables:
            return float(variables[node.id])
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise ExpressionError(f'unknown name {node.id!r} in expression')
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS and len(node.args) == 1 and not node.keywords):
        return FUNCTIONS[node.func.id](_evaluate_node(node.args[0], variables))
    raise ExpressionError(f'unsupported syntax in expression: {ast.dump(node)[:60]}')


def format_number(value: float) -> str:
    """Shortest text for ``value``: integral values without a decimal point (names use them)."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def missing_parameters(text: str, parameters: Mapping[str, str]) -> list[str]:
    return [name for name in PARAMETER.findall(text) if name not in parameters]


def substitute(text: str, parameters: Mapping[str, str]) -> str:
    """Replace ``@@name`` by its value and each ``{expression}`` by its result.

    Raises :class:`KeyError` with the first missing parameter name and :class:`ExpressionError`
    for a bad expression; callers add file and line.
    """
    if '@@' in text:
        text = PARAMETER.sub(lambda m: parameters[m.group(1)], text)
    if '{' in text:
        text = EXPRESSION.sub(lambda m: format_number(evaluate(m.group(1))), text)
    return text
