"""One expanded SimRobot element (:class:`Instance`) and the grammar entry it follows
(:class:`ElementSpec`): the types the element table (:mod:`.elements`), the expander
(:mod:`.expand`) and the scene builder (:mod:`.builder`) share."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import paths
from .reader import Diagnostics, Node
from .values import BadValue, Scope, parse_bool, parse_color, parse_integer, parse_quantity


@dataclass(frozen=True)
class ElementSpec:
    tag: str
    cls: str
    attributes: frozenset[str] = frozenset()
    required: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    repeatable: frozenset[str] = frozenset()
    build: Callable[..., Any] | None = None

    @property
    def children(self) -> frozenset[str]:
        return self.required | self.optional | self.repeatable


class Instance:
    """One expanded element: resolved attributes, children and the scope it defines."""

    __slots__ = ('tag', 'spec', 'node', 'attrs', 'origins', 'children', 'texts', 'scope', 'diag',
                 'unknown', 'broken', 'misspelled')

    def __init__(self, tag: str, spec: ElementSpec, node: Node, attrs: dict[str, str],
                 origins: dict[str, Node], scope: Scope, diag: Diagnostics):
        self.tag = tag
        self.spec = spec
        self.node = node
        self.attrs = attrs
        self.origins = origins
        self.children: list[Instance] = []
        self.texts: list[Node] = []
        self.scope = scope
        self.diag = diag
        self.unknown: dict[str, str] = {}  # unexpected attributes, unresolved, for metadata
        self.broken: set[str] = set()  # attributes with unresolved placeholders (reported once)
        self.misspelled: set[str] = set()  # missing attributes whose misspelling was reported

    def __repr__(self) -> str:
        return f'<{self.tag} {self.attrs}>'

    # locations -------------------------------------------------------------------------
    @property
    def file(self) -> str:
        return self.node.file

    @property
    def line(self) -> int:
        return self.node.line

    def origin(self, key: str) -> Node:
        return self.origins.get(key, self.node)

    def error(self, message: str, key: str | None = None) -> None:
        node = self.origin(key) if key is not None else self.node
        self.diag.error(message, node.file, node.line)

    def warn(self, message: str, key: str | None = None) -> None:
        node = self.origin(key) if key is not None else self.node
        self.diag.warn(message, node.file, node.line)

    # typed getters (errors are recorded; the default is returned) ----------------------
    def raw(self, key: str, required: bool = False) -> str | None:
        if key in self.broken:
            return None
        value = self.attrs.get(key)
        if value is None and required and key not in self.misspelled:
            self.error(f'missing required attribute "{key}" of <{self.tag}>')
        return value

    def string(self, key: str, default: str = '', required: bool = False) -> str:
        value = self.raw(key, required)
        return default if value is None else value

    def number(self, key: str, units: dict[str, float], default: float = 0.0,
               required: bool = False) -> float:
        value = self.number_or_none(key, units, required)
        return default if value is None else value

    def number_or_none(self, key: str, units: dict[str, float],
                       required: bool = False) -> float | None:
        value = self.raw(key, required)
        if value is None:
            return None
        try:
            return parse_quantity(value, units)
        except BadValue as err:
            self.error(f'attribute "{key}" of <{self.tag}>: {err}', key)
            return None

    def integer(self, key: str, default: int = 0, required: bool = False) -> int:
        value = self.raw(key, required)
        if value is None:
            return default
        try:
            return parse_integer(value)
        except BadValue as err:
            self.error(f'attribute "{key}" of <{self.tag}>: {err}', key)
            return default

    def boolean(self, key: str, default: bool) -> bool:
        value = self.raw(key)
        if value is None:
            return default
        try:
            return parse_bool(value)
        except BadValue as err:
            self.error(f'attribute "{key}" of <{self.tag}>: {err}', key)
            return default

    def color(self, key: str, default: tuple[float, float, float, float] | None = None,
              required: bool = False) -> tuple[float, float, float, float] | None:
        value = self.raw(key, required)
        if value is None:
            return default
        try:
            return parse_color(value)
        except BadValue as err:
            self.error(f'attribute "{key}" of <{self.tag}>: {err}', key)
            return default

    def path(self, key: str) -> Path | None:
        """A file path attribute, relative to the file that wrote it."""
        value = self.raw(key)
        if not value:
            return None
        path = Path(value)
        origin = self.origin(key)
        if not path.is_absolute():
            path = Path(origin.file).parent / path
        return paths.confine(Path(_normalize(path)), f'attribute "{key}": file', origin.file,
                             origin.line)

    # children ----------------------------------------------------------------------------
    def first(self, cls: str) -> Instance | None:
        for child in self.children:
            if child.spec.cls == cls:
                return child
        return None

    def all(self, cls: str) -> list[Instance]:
        return [child for child in self.children if child.spec.cls == cls]


def _normalize(path: Path) -> str:
    return os.path.normpath(path)
