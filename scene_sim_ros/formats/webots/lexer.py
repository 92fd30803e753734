"""Tokens of the Webots world syntax (VRML97 with Webots' additions).

``#`` starts a comment to the end of the line (the ``#VRML_SIM R2023b utf8`` header is one);
commas are white space; strings use ``"`` with backslash escapes; ``%< ... >%`` (JavaScript)
and ``%{ ... }%`` (Lua) template blocks of procedural PROTOs come out as single ``template``
tokens so that braces inside the code never unbalance the node syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import SceneLoadError

HEADER = re.compile(r'#VRML_(?:SIM|OBJ|PROTO) ([RV]?\d+(?:\.\d+)*[a-z]?)')

_TOKEN = re.compile(r"""
    (?P<space>[\s,]+)
  | (?P<comment>\#[^\n]*)
  | (?P<template>%<.*?>%|%\{.*?\}%)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<number>[+-]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))(?![\w.])
  | (?P<punct>[{}\[\]])
  | (?P<ident>[^\s,"\#'+\-.\[\]\\{}0-9][^\s,"\#'\[\]\\{}]*)
""", re.VERBOSE | re.DOTALL)

_ESCAPE = re.compile(r'\\(.)', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # 'ident', 'number', 'string', 'punct', 'template', 'eof'
    text: str
    line: int
    offset: int  # character offset in the source, for slicing PROTO bodies

    @property
    def value(self) -> float | str:
        if self.kind == 'number':
            return float(int(self.text, 16)) if self.text.lower().lstrip('+-').startswith('0x') \
                else float(self.text)
        if self.kind == 'string':
            return _ESCAPE.sub(r'\1', self.text[1:-1])
        return self.text


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
    """Split ``text`` into tokens; raises :class:`SceneLoadError` at the first bad character."""
    tokens: list[Token] = []
    line = first_line
    position = 0
    end = len(text)
    while position < end:
        if text.startswith(('%<', '%{'), position) and \
                text.find('>%' if text[position + 1] == '<' else '}%', position + 2) < 0:
            # checked first: the template pattern would scan to the end at every such opening
            raise SceneLoadError(f'template block {text[position:position + 2]} is never closed',
                                 file, line)
        match = _TOKEN.match(text, position)
        if match is None:
            raise SceneLoadError(f'unexpected character {text[position]!r}', file, line)
        kind = match.lastgroup or ''
        chunk = match.group()
        if kind not in ('space', 'comment'):
            tokens.append(Token(kind, chunk, line, position))
        line += chunk.count('\n')
        position = match.end()
    tokens.append(Token('eof', '', line, end))
    return tokens
