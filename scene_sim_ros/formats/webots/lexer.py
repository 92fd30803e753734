"""Tokens of the Webots world syntax (VRML97 with Webots' additions).

``#`` starts a comment to the end of the line (the ``#VRML_SIM R2023b utf8`` header is one);
commas are white space; strings use ``"`` with backslash escapes; ``%< ... >%`` (JavaScript)
and ``%{ ... }%`` (Lua) template blocks of procedural PROTOs come out as single ``template``
tokens so that braces inside the code never unbalance the node syntax.

Decimal numbers in a row (an MF field's values, a vector) come out as one ``number`` token of
up to :data:`RUN_LENGTH` values, converted by ``float`` in one call: a mesh of a million
coordinates costs a few hundred tokens, not a million. Tokens and values together are bounded
by the ``max_values`` limit, counted while reading, so a file of nothing but numbers fails
before it fills the memory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from ...errors import SceneLoadError
from .. import limits

HEADER = re.compile(r'#VRML_(?:SIM|OBJ|PROTO) ([RV]?\d+(?:\.\d+)*[a-z]?)')

RUN_LENGTH = 4096
"""Most values in one number token: long enough to amortise the per-token cost, short enough
for the regex engine to match without a deep backtracking stack."""

_DECIMAL = r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w.])'

_TOKEN = re.compile(rf"""
    (?P<space>[\s,]+)
  | (?P<comment>\#[^\n]*)
  | (?P<template>%<.*?>%|%\{{.*?\}}%)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<numbers>{_DECIMAL}(?:[\s,]+{_DECIMAL}){{0,{RUN_LENGTH - 1}}})
  | (?P<number>[+-]?0[xX][0-9a-fA-F]+(?![\w.]))
  | (?P<punct>[{{}}\[\]])
  | (?P<ident>[^\s,"\#'+\-.\[\]\\{{}}0-9][^\s,"\#'\[\]\\{{}}]*)
""", re.VERBOSE | re.DOTALL)

_ONE_DECIMAL = re.compile(_DECIMAL)
_ESCAPE = re.compile(r'\\(.)', re.DOTALL)


class Token(NamedTuple):
    kind: str  # 'ident', 'number', 'string', 'punct', 'template', 'eof'
    text: str  # a number token's first number only
    line: int
    offset: int  # character offset in the source, for slicing PROTO bodies
    numbers: list[float] | None = None  # every value of a 'number' token

    @property
    def value(self) -> float | str:
        if self.kind == 'number':
            return self.numbers[0] if self.numbers else float(self.text)
        if self.kind == 'string':
            return _ESCAPE.sub(r'\1', self.text[1:-1])
        return self.text

    def number_places(self, source: str) -> list[tuple[int, str]]:
        """Line and text of each value of a row of numbers read from ``source``."""
        places: list[tuple[int, str]] = []
        line, position = self.line, self.offset
        for match in _ONE_DECIMAL.finditer(source, self.offset):
            if len(places) == len(self.numbers or ()):
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
    or when tokens and numbers exceed ``max_values``."""
    tokens: list[Token] = []
    append = tokens.append
    budget = limits.current().max_values
    count = 0
    line = first_line
    position = 0
    end = len(text)
    match_at = _TOKEN.match
    while position < end:
        if text[position] == '%' and text.startswith(('%<', '%{'), position) and \
                text.find('>%' if text[position + 1] == '<' else '}%', position + 2) < 0:
            # checked first: the template pattern would scan to the end at every such opening
            raise SceneLoadError(f'template block {text[position:position + 2]} is never closed',
                                 file, line)
        match = match_at(text, position)
        if match is None:
            raise SceneLoadError(f'unexpected character {text[position]!r}', file, line)
        kind = match.lastgroup
        chunk = match.group()
        if kind == 'numbers':
            values = list(map(float, chunk.replace(',', ' ').split()))
            count += len(values)
            append(Token('number', _first_number(chunk), line, position, values))
        elif kind == 'number':
            count += 1
            append(Token(kind, chunk, line, position, [_hex_value(chunk)]))
        elif kind != 'space' and kind != 'comment':
            count += 1
            append(Token(kind or '', chunk, line, position))
        if count > budget:
            raise _too_many(tokens[-1], count - budget, text, file)
        line += chunk.count('\n')
        position = match.end()
    append(Token('eof', '', line, end))
    return tokens


def _too_many(last: Token, over: int, text: str, file: str | Path) -> SceneLoadError:
    """The ``max_values`` error at the line of the first value over the limit."""
    line = last.line
    if last.numbers is not None and len(last.numbers) > 1:
        line = last.number_places(text)[len(last.numbers) - over][0]
    limit = limits.current().max_values
    return limits.exceeded('max_values', f'the file holds more than {limit} values and words',
                           file, line)
