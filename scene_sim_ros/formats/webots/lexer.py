"""Tokens of the Webots world syntax (VRML97 with Webots' additions).

``#`` starts a comment to the end of the line (the ``#VRML_SIM R2023b utf8`` header is one);
commas are white space; strings use ``"`` with backslash escapes; ``%< ... >%`` (JavaScript)
and ``%{ ... }%`` (Lua) template blocks of procedural PROTOs come out as single ``template``
tokens so that braces inside the code never unbalance the node syntax.

Values in a row (an MF field's values, a vector) come out as one token of up to
:data:`RUN_LENGTH` decimal numbers (converted by ``float`` in one call), strings or booleans:
a mesh of a million coordinates costs a few hundred tokens, not a million. Values (with other
tokens) are bounded by the ``max_values`` limit and tokens by ``max_tokens``, counted while
reading, so a hostile file fails at its line before it fills the memory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from scene_sim_ros import limits

from ...errors import SceneLoadError

HEADER = re.compile(r'#VRML_(?:SIM|OBJ|PROTO) ([RV]?\d+(?:\.\d+)*[a-z]?)')

RUN_LENGTH = 4096
"""Most values in one row token: long enough to amortise the per-token cost, short enough
for the regex engine to match without a deep backtracking stack."""

_DECIMAL = r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w.])'
_STRING = r'"(?:[^"\\]|\\.)*"'
_BOOL = r'(?:TRUE|FALSE)(?![^\s,"\#\'\[\]\\{}])'

_TOKEN = re.compile(rf"""
  (?:
    (?P<comment>\#[^\n]*)
  | (?P<template>%<.*?>%|%\{{.*?\}}%)
  | (?P<strings>{_STRING}(?:[\s,]*{_STRING}){{0,{RUN_LENGTH - 1}}})
  | (?P<numbers>{_DECIMAL}(?:[\s,]+{_DECIMAL}){{0,{RUN_LENGTH - 1}}})
  | (?P<hex>[+-]?0[xX][0-9a-fA-F]+(?![\w.]))
  | (?P<bools>{_BOOL}(?:[\s,]+{_BOOL}){{0,{RUN_LENGTH - 1}}})
  | (?P<punct>[{{}}\[\]])
  | (?P<ident>(?!%[<{{])[^\s,"\#'+\-.\[\]\\{{}}0-9][^\s,"\#'\[\]\\{{}}]*)
  )[\s,]*  # the white space after a token goes with it: one match per token
""", re.VERBOSE | re.DOTALL)

_SPACE = re.compile(r'[\s,]*')
_ONE_DECIMAL = re.compile(_DECIMAL)
_ONE_STRING = re.compile(_STRING, re.DOTALL)
_ESCAPE = re.compile(r'\\(.)', re.DOTALL)


class Token(NamedTuple):
    kind: str  # 'ident', 'number', 'string', 'bool', 'punct', 'template', 'eof'
    text: str  # a row's first value only
    line: int
    offset: int  # character offset in the source, for slicing PROTO bodies
    values: list[Any] | None = None  # every value of a row: 'number', 'string' and 'bool'

    @property
    def value(self) -> float | str:
        if self.values:
            return self.values[0]
        return self.text

    def number_places(self, source: str) -> list[tuple[int, str]]:
        """Line and text of each value of a row of numbers read from ``source``."""
        places: list[tuple[int, str]] = []
        line, position = self.line, self.offset
        for match in _ONE_DECIMAL.finditer(source, self.offset):
            if len(places) == len(self.values or ()):
                break
            line += source.count('\n', position, match.start())
            position = match.start()
            places.append((line, match.group()))
        return places


def _first_number(run: str) -> str:
    found = _ONE_DECIMAL.match(run)
    return found.group() if found else run


def _hex_value(text: str) -> float:
    try:
        return float(int(text, 16))
    except OverflowError:  # the parser reports it as a number that is not finite
        return float('inf') if not text.startswith('-') else float('-inf')


def version_of(text: str) -> tuple[int, str] | None:
    """``(year, letter)`` from a ``#VRML_SIM R2023b`` header; ``None`` without one."""
    match = HEADER.match(text.lstrip('\ufeff'))
    if match is None:
        return None
    found = re.match(r'R?(\d{4})([a-z]?)', match.group(1))
    if found is None:
        return None
    return int(found.group(1)), found.group(2)


def tokenize(text: str, file: str | Path, first_line: int = 1) -> list[Token]:
    """Split ``text`` into tokens; raises :class:`SceneLoadError` at the first bad character
    or when the tokens exceed ``max_tokens`` or the values ``max_values``."""
    tokens: list[Token] = []
    append = tokens.append
    max_tokens, max_values = limits.current().max_tokens, limits.current().max_values
    values = 0
    position = _SPACE.match(text).end()  # type: ignore[union-attr]  # matches empty text
    line = first_line + text.count('\n', 0, position)
    end = len(text)
    scanner = _TOKEN.scanner(text, position)  # type: ignore[attr-defined]  # (not in typeshed)
    for match in iter(scanner.match, None):  # each match starts where the last one ended
        kind = match.lastgroup or ''
        start, position = match.span()
        if kind == 'ident' or kind == 'punct':  # the most frequent kinds: no call
            append(Token(kind, match.group(kind), line, start))
            values += 1
        elif kind != 'comment':
            token = _token(kind, match.group(kind), line, start)
            append(token)
            values += len(token.values) if token.values else 1
        if values > max_values or len(tokens) > max_tokens:
            raise _too_many(tokens[-1], values - max_values, len(tokens), text, file)
        line += text.count('\n', start, position)
    if position < end:
        if text.startswith(('%<', '%{'), position):  # not an identifier: see _TOKEN
            raise SceneLoadError(f'template block {text[position:position + 2]} is never closed',
                                 file, line)
        raise SceneLoadError(f'unexpected character {text[position]!r}', file, line)
    append(Token('eof', '', line, end))
    return tokens


def _token(kind: str, chunk: str, line: int, position: int) -> Token:
    if kind == 'numbers':
        try:  # one number, the most frequent row
            return Token('number', chunk, line, position, [float(chunk)])
        except ValueError:
            return Token('number', _first_number(chunk), line, position,
                         list(map(float, chunk.replace(',', ' ').split())))
    if kind == 'strings':
        found = _ONE_STRING.findall(chunk)
        return Token('string', found[0], line, position,
                     [_ESCAPE.sub(r'\1', s[1:-1]) if '\\' in s else s[1:-1] for s in found])
    if kind == 'bools':
        words = chunk.replace(',', ' ').split()
        return Token('bool', words[0], line, position, [w == 'TRUE' for w in words])
    if kind == 'hex':
        return Token('number', chunk, line, position, [_hex_value(chunk)])
    return Token(kind, chunk, line, position)


def _too_many(last: Token, over: int, count: int, text: str, file: str | Path) -> SceneLoadError:
    """The ``max_tokens`` or ``max_values`` error, at the line of the first value over."""
    limit = limits.current()
    if count > limit.max_tokens:
        return limits.exceeded('max_tokens', f'the file holds more than {limit.max_tokens} '
                               'tokens', file, last.line)
    line = last.line
    if last.kind == 'number' and last.values and len(last.values) > 1:
        line = last.number_places(text)[len(last.values) - over][0]
    return limits.exceeded('max_values', f'the file holds more than {limit.max_values} values '
                           'and words', file, line)
