"""Elements of a RaiSim file: :class:`Node` reads typed attributes with ``@@parameter`` and
``{math}`` substitution and reports unused ones; :class:`Loader` gathers the diagnostics."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from scene_sim_ros import limits

from ...scene.transforms import Vec3
from .. import paths
from . import expressions

ALIASES = {'timestep': 'time_step', 'linvel': 'lin_vel', 'angvel': 'ang_vel'}
_CAMEL = re.compile(r'(?<=[a-z0-9])([A-Z])')
SEPARATORS = re.compile(r'[,\s]+')


def normalize_name(name: str) -> str:
    """``timeStep`` -> ``time_step``; spellings RaiSim accepts map to one key."""
    key = _CAMEL.sub(r'_\1', name).lower()
    return ALIASES.get(key, key)


@dataclass
class Loader:
    strict: bool
    user_parameters: Mapping[str, str]
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # parameter -> first location
    metadata: dict = field(default_factory=dict)
    include_stack: list[Path] = field(default_factory=list)
    once: dict[str, tuple[int, int]] = field(default_factory=dict)  # message -> (index, count)
    budget: limits.ElementBudget = field(default_factory=limits.ElementBudget)
    array_copies: int = 1  # how many times the <array> being expanded is (enclosing arrays)

    def warn(self, file: Path, line: int | None, message: str) -> None:
        text = f'{file}:{line}: {message}' if line else f'{file}: {message}'
        (self.errors if self.strict else self.warnings).append(text)

    def error(self, file: Path, line: int | None, message: str) -> None:
        self.errors.append(f'{file}:{line}: {message}' if line else f'{file}: {message}')

    def warn_once(self, file: Path, line: int | None, message: str) -> None:
        """One warning per distinct ``message`` (at its first place) with the count of the
        places it applies to: an unknown attribute used 150 times is one warning."""
        target = self.errors if self.strict else self.warnings
        seen = self.once.get(message)
        if seen is None:
            self.once[message] = (len(target), 1)
            self.warn(file, line, message)
            return
        index, count = seen
        self.once[message] = (index, count + 1)
        text = target[index].removesuffix(f' ({count} times)')
        target[index] = f'{text} ({count + 1} times)'


class Node:
    """An element of a RaiSim file with normalised names and template substitution.

    Reading marks attributes as used; :meth:`finish` warns about the rest.
    """

    def __init__(self, element: etree._Element, file: Path, scope: Mapping[str, str],
                 loader: Loader):
        self.element = element
        self.file = file
        self.scope = scope
        self.loader = loader
        self.tag = normalize_name(element.tag) if isinstance(element.tag, str) else ''
        self.line = element.sourceline
        self.attributes = {normalize_name(k): (k, v) for k, v in element.attrib.items()}
        self.used: set[str] = set()

    def children(self) -> Iterator[Node]:
        for child in self.element:
            if isinstance(child.tag, str):
                yield Node(child, self.file, self.scope, self.loader)

    def child(self, tag: str) -> Node | None:
        for node in self.children():
            if node.tag == tag:
                return node
        return None

    def has(self, name: str) -> bool:
        return name in self.attributes

    def raw(self, name: str) -> str | None:
        self.used.add(name)
        found = self.attributes.get(name)
        return None if found is None else found[1]

    def get(self, name: str, default: str | None = None) -> str | None:
        raw = self.raw(name)
        if raw is None:
            return default
        return self.substitute(raw, name)

    def substitute(self, raw: str, name: str) -> str | None:
        missing = expressions.missing_parameters(raw, self.scope)
        if missing:
            for parameter in missing:
                self.loader.missing.setdefault(parameter, f'{self.file}:{self.line}')
            return None
        try:
            return expressions.substitute(raw, self.scope)
        except expressions.ExpressionError as err:
            self.loader.error(self.file, self.line, f'{name}: {err}')
            return None

    def number(self, name: str, default: float | None = None) -> float | None:
        text = self.get(name)
        if text is None:
            return default
        try:
            return limits.number(text)
        except ValueError as err:
            self.loader.error(self.file, self.line,
                              limits.why_not(err, f'{name}="{text}" is not a number'))
            return default

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.number(name)
        if value is None:
            return default
        if not value.is_integer():
            self.loader.error(self.file, self.line, f'{name}="{value}" must be an integer')
            return default
        return int(value)

    def vector(self, name: str, count: int | None, default: tuple[float, ...] | None = None
               ) -> tuple[float, ...] | None:
        text = self.get(name)
        if text is None:
            return default
        parts = [p for p in SEPARATORS.split(text.strip()) if p]
        try:
            values = tuple(limits.number(p) for p in parts)
        except ValueError as err:
            self.loader.error(self.file, self.line,
                              limits.why_not(err, f'{name}="{text}" is not a list of numbers'))
            return default
        if count is not None and len(values) != count:
            self.loader.error(self.file, self.line,
                              f'{name} needs {count} numbers, got {len(values)}')
            return default
        return values

    def vec3(self, name: str, default: Vec3 | None = None) -> Vec3 | None:
        values = self.vector(name, 3)
        return default if values is None else (values[0], values[1], values[2])

    def path(self, name: str) -> Path | None:
        text = self.get(name)
        if text is None:
            return None
        text = text.replace('[THIS_DIR]', str(self.file.parent))
        path = Path(text)
        path = Path(os.path.normpath(path if path.is_absolute() else self.file.parent / path))
        return paths.confine(path, f'{name}', self.file, self.line)

    def boolean(self, name: str, default: bool) -> bool:
        text = self.get(name)
        if text is None:
            return default
        lowered = text.strip().lower()
        if lowered in ('true', '1', 'yes', 'on'):
            return True
        if lowered in ('false', '0', 'no', 'off'):
            return False
        try:
            return float(lowered) != 0.0
        except ValueError:
            self.loader.error(self.file, self.line, f'{name}="{text}" is not a boolean')
            return default

    def warn(self, message: str) -> None:
        self.loader.warn(self.file, self.line, message)

    def error(self, message: str) -> None:
        self.loader.error(self.file, self.line, message)

    def finish(self, known_children: tuple[str, ...] = ()) -> None:
        for key, (raw_name, _) in self.attributes.items():
            if key not in self.used:
                self.loader.warn_once(self.file, self.line, f'unknown attribute {raw_name!r} of '
                                      f'<{self.element.tag}> ignored')
        for child in self.children():
            if child.tag not in known_children:
                self.loader.warn_once(child.file, child.line, f'unknown element '
                                      f'<{child.element.tag}> in <{self.element.tag}> ignored')
