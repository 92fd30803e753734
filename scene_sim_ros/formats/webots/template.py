"""A tiny evaluator for the simple cases of procedural PROTO templates (``%< >%``).

Webots runs these blocks as JavaScript. Supported here, which covers field substitution:

- ``%<= expression >%``: numbers, strings, ``true``/``false``, ``fields.NAME.value`` and
  ``fields.NAME.defaultValue`` with member access (``.x``, ``.r``, ``.a``, ``[i]``), unary ``-``
  and ``!``, ``+ - * / %``, comparisons, ``&& ||``, ``? :`` and parentheses;
- ``%< >%`` blocks holding only ``import ...`` lines, comments, and ``let/const/var NAME =
  expression;`` declarations (the names can be used in later expressions).

Anything else (loops, ``if`` blocks, function calls) raises a :class:`SceneLoadError` naming
the file and line of the block, so the user knows which PROTO to replace with a static one.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ...errors import SceneLoadError

_BLOCK = re.compile(r'%<(=?)(.*?)>%', re.DOTALL)
_JS_TOKEN = re.compile(r"""\s*(?:
    (?P<number>\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<op>===|!==|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:().\[\],])
)""", re.VERBOSE)
_DECLARATION = re.compile(r'^(?:let|const|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(.+?);?$', re.DOTALL)
_BINARY = [('||',), ('&&',), ('==', '!=', '===', '!=='), ('<', '>', '<=', '>='), ('+', '-'),
           ('*', '/', '%')]


class TemplateError(Exception):
    pass


class _Expression:
    def __init__(self, text: str, scope: dict[str, Any]):
        self.tokens: list[tuple[str, str]] = []
        position = 0
        text = text.strip()
        while position < len(text):
            match = _JS_TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise TemplateError(f'unsupported JavaScript near {text[position:position + 20]!r}')
            kind = match.lastgroup or ''
            self.tokens.append((kind, match.group(kind)))
            position = match.end()
            while position < len(text) and text[position].isspace():
                position += 1
        self.position = 0
        self.scope = scope

    def peek(self) -> str:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else ''

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.position >= len(self.tokens):
            raise TemplateError('unexpected end of expression')
        token = self.tokens[self.position]
        if expected is not None and token[1] != expected:
            raise TemplateError(f'expected {expected!r}, found {token[1]!r}')
        self.position += 1
        return token

    def evaluate(self) -> Any:
        result = self.conditional()
        if self.position != len(self.tokens):
            raise TemplateError(f'unsupported JavaScript at {self.peek()!r}')
        return result

    def conditional(self) -> Any:
        condition = self.binary(0)
        if self.peek() != '?':
            return condition
        self.take('?')
        then = self.conditional()
        self.take(':')
        otherwise = self.conditional()
        return then if condition else otherwise

    def binary(self, level: int) -> Any:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level] and self.tokens[self.position][0] == 'op':
            operator = self.take()[1]
            left = _apply(operator, left, self.binary(level + 1))
        return left

    def unary(self) -> Any:
        if self.peek() == '-':
            self.take()
            return -self.unary()
        if self.peek() == '!':
            self.take()
            return not self.unary()
        return self.postfix(self.primary())

    def primary(self) -> Any:
        kind, text = self.take()
        if kind == 'number':
            return float(text)
        if kind == 'string':
            return re.sub(r'\\(.)', r'\1', text[1:-1])
        if text == '(':
            inner = self.conditional()
            self.take(')')
            return inner
        if kind == 'name':
            if text in ('true', 'false'):
                return text == 'true'
            if text == 'Math':
                return _MATH
            if text in self.scope:
                return self.scope[text]
            raise TemplateError(f'unknown name {text!r}')
        raise TemplateError(f'unsupported JavaScript at {text!r}')

    def postfix(self, value: Any) -> Any:
        while self.peek() in ('.', '[', '('):
            if self.take()[1] == '.':
                member = self.take()[1]
                if not isinstance(value, dict) or member not in value:
                    raise TemplateError(f'no member {member!r}')
                value = value[member]
            elif self.tokens[self.position - 1][1] == '[':
                index = self.conditional()
                self.take(']')
                value = value[int(index)] if isinstance(value, list) else value[index]
            else:
                if not callable(value):
                    raise TemplateError('only Math functions can be called')
                arguments = [] if self.peek() == ')' else [self.conditional()]
                while self.peek() == ',':
                    self.take()
                    arguments.append(self.conditional())
                self.take(')')
                value = value(*arguments)
        return value


_MATH = {'PI': math.pi, 'abs': abs, 'sqrt': math.sqrt, 'sin': math.sin, 'cos': math.cos,
         'tan': math.tan, 'atan2': math.atan2, 'min': min, 'max': max, 'round': round,
         'floor': math.floor, 'ceil': math.ceil}


def _apply(operator: str, left: Any, right: Any) -> Any:
    if operator == '+':
        if isinstance(left, str) or isinstance(right, str):
            return format_value(left) + format_value(right)
        return left + right
    table = {
        '-': lambda: left - right, '*': lambda: left * right, '/': lambda: left / right,
        '%': lambda: math.fmod(left, right), '<': lambda: left < right, '>': lambda: left > right,
        '<=': lambda: left <= right, '>=': lambda: left >= right,
        '==': lambda: left == right, '===': lambda: left == right,
        '!=': lambda: left != right, '!==': lambda: left != right,
        '&&': lambda: left and right, '||': lambda: left or right,
    }
    return table[operator]()


def format_value(value: Any) -> str:
    """Text that a ``%<= >%`` block writes for ``value`` (JavaScript's number formatting)."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise TemplateError(f'cannot write a {type(value).__name__} into the PROTO body')


def _run_statements(code: str, scope: dict[str, Any]) -> None:
    code = re.sub(r'//[^\n]*|/\*.*?\*/', '', code, flags=re.DOTALL)
    for statement in re.split(r';\s*|\n', code):
        statement = statement.strip()
        if not statement or statement.startswith('import '):
            continue
        declaration = _DECLARATION.match(statement)
        if declaration is None:
            raise TemplateError(f'unsupported JavaScript statement {statement[:40]!r}')
        scope[declaration.group(1)] = _Expression(declaration.group(2), scope).evaluate()


def evaluate(text: str, fields: dict[str, dict[str, Any]], file: str, first_line: int) -> str:
    """Expand the template blocks of ``text``; ``fields`` maps a field name to
    ``{'value': ..., 'defaultValue': ...}``. Line breaks are kept so line numbers stay right."""
    scope: dict[str, Any] = {'fields': fields, 'context': {}}
    out: list[str] = []
    position = 0
    for block in _BLOCK.finditer(text):
        out.append(text[position:block.start()])
        line = first_line + text.count('\n', 0, block.start())
        try:
            if block.group(1):
                out.append(format_value(_Expression(block.group(2), scope).evaluate()))
            else:
                _run_statements(block.group(2), scope)
        except (TemplateError, TypeError, ValueError, KeyError, IndexError,
                ZeroDivisionError) as err:
            raise SceneLoadError(f'procedural PROTO template not supported ({err}); '
                                 'replace it with a static PROTO', file, line) from None
        out.append('\n' * block.group().count('\n'))
        position = block.end()
    out.append(text[position:])
    return ''.join(out)
