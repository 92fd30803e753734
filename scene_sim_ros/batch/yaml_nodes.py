"""YAML read with line numbers, so that every spec error can say ``file:line: what``.

:func:`load_located` returns plain dicts, lists and scalars wrapped as :class:`Located` values
(the value and the line it starts on); :class:`Field` readers turn them into typed values or
raise :class:`~.spec.SpecError` at that line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from scene_sim_ros.errors import SceneLoadError


class SpecError(SceneLoadError):
    """A batch spec is malformed: ``str(err)`` is ``file:line: message``."""


@dataclass(frozen=True, slots=True)
class Located:
    """A YAML value (dict of str -> Located, list of Located, or a scalar) and its 1-based line."""

    value: Any
    line: int


def _located(node: yaml.Node, constructor: yaml.constructor.SafeConstructor, file: str) -> Located:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        constructor.flatten_mapping(node)  # merge keys (<<: *anchor)
        mapping: dict[Any, Located] = {}
        for key_node, value_node in node.value:
            key = constructor.construct_object(key_node, deep=True)
            if key in mapping:
                raise SpecError(f'{key!r} given twice', file, key_node.start_mark.line + 1)
            mapping[key] = _located(value_node, constructor, file)
        return Located(mapping, line)
    if isinstance(node, yaml.SequenceNode):
        return Located([_located(n, constructor, file) for n in node.value], line)
    return Located(constructor.construct_object(node, deep=True), line)


def load_located(text: str, file: str | Path) -> Located:
    """Parse YAML ``text`` of ``file``; a syntax error becomes a :class:`SpecError` at its line."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is None:
            raise SpecError('empty spec', file, 1)
        return _located(node, yaml.SafeLoader(''), str(file))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(f'YAML: {err.problem or err}', file, line) from None
    except yaml.YAMLError as err:
        raise SpecError(f'YAML: {err}', file) from None


def plain(item: Located) -> Any:
    """The value without line numbers (dicts, lists, scalars)."""
    if isinstance(item.value, dict):
        return {k: plain(v) for k, v in item.value.items()}
    if isinstance(item.value, list):
        return [plain(v) for v in item.value]
    return item.value
