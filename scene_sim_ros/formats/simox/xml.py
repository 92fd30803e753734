"""Lenient, hardened XML reading for Simox files.

Simox parses its files with rapidxml, which accepts what a validating parser rejects: ``--``
inside comments, closing tags whose name does not match (``</Fil>``), and it compares tag and
attribute names case-insensitively. This reader does the same and warns (``file:line``) about
every repair:

- comments are removed first, rapidxml-style (a comment ends at the first ``-->``), keeping the
  line count so that line numbers stay right; a ``--`` inside one is reported;
- the rest goes through lxml in recover mode (mismatched closing tags are reported from its
  error log); entities are not resolved, no DTD is loaded and nothing is fetched from the network;
- tag and attribute names are lower-cased in place, so the loaders look up ``'robotnode'`` and
  ``el.get('name')`` whatever the file's spelling.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError, format_location
from .. import xml_parse

_COMMENT = re.compile(r'<!--(.*?)-->', re.S)
_UNIT_ATTRIBUTES = ('unit', 'units', 'unitslength', 'unitsangle', 'unitsweight', 'unitstime')

LENGTH_UNITS = {'mm': 0.001, 'millimeter': 0.001, 'cm': 0.01, 'centimeter': 0.01,
                'm': 1.0, 'meter': 1.0}
ANGLE_UNITS = {'rad': 1.0, 'radian': 1.0, 'radians': 1.0,
               'deg': math.pi / 180.0, 'degree': math.pi / 180.0, 'degrees': math.pi / 180.0}
WEIGHT_UNITS = {'g': 0.001, 'gram': 0.001, 'kg': 1.0, 'kilogram': 1.0, 't': 1000.0, 'ton': 1000.0}
TIME_UNITS = {'s': 1.0, 'sec': 1.0, 'second': 1.0, 'min': 60.0, 'minute': 60.0,
              'h': 3600.0, 'hour': 3600.0}
UNIT_KINDS = {'length': LENGTH_UNITS, 'angle': ANGLE_UNITS, 'weight': WEIGHT_UNITS,
              'time': TIME_UNITS}


@dataclass
class Diagnostics:
    """Warnings and errors of one load (all files), as ``file:line: message`` strings."""

    strict: bool = False
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def warn(self, file: Path | str, line: int | None, message: str) -> None:
        """A finding that becomes an error in strict mode."""
        text = format_location(str(file), line, message)
        (self.errors if self.strict else self.warnings).append(text)

    def note(self, file: Path | str, line: int | None, message: str) -> None:
        """A repair that stays a warning even in strict mode (the file still means one thing)."""
        self.warnings.append(format_location(str(file), line, message))

    def error(self, file: Path | str, line: int | None, message: str) -> None:
        self.errors.append(format_location(str(file), line, message))

    def raise_if_errors(self) -> None:
        if self.errors:
            raise SceneLoadError(limits.joined(self.errors))


def _blank_comment(match: re.Match[str]) -> str:
    return '\n' * match.group(0).count('\n')


def _strip_comments(text: str, path: Path, diagnostics: Diagnostics) -> str:
    for match in _COMMENT.finditer(text):
        if '--' in match.group(1):
            line = text.count('\n', 0, match.start()) + 1
            diagnostics.note(path, line, "'--' inside a comment (not well-formed XML); "
                             'read as Simox does: the comment ends at the first -->')
    return _COMMENT.sub(_blank_comment, text)


def _lower_names(root: etree._Element, path: Path) -> None:
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        try:
            element.tag = element.tag.lower()
            if element.attrib:
                items = list(element.attrib.items())
                element.attrib.clear()
                for key, value in items:
                    element.set(key.lower(), value)
        except ValueError:  # lxml refuses some names its recovering parser produced
            raise SceneLoadError(f'invalid name in <{element.tag}>', path,
                                 element.sourceline) from None


def read_xml(path: Path, diagnostics: Diagnostics) -> etree._Element:
    """Parse ``path`` leniently and return its root element with lower-case names."""
    raw = limits.read_bytes(path)
    text = raw.decode('utf-8', errors='replace')
    text = re.sub(r'^\s*<\?xml[^>]*\?>', lambda m: '\n' * m.group(0).count('\n'), text)
    text = _strip_comments(text, path, diagnostics)
    parser = etree.XMLPullParser(events=('start',), recover=True, resolve_entities=False,
                                 no_network=True, load_dtd=False, dtd_validation=False,
                                 huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = xml_parse.parse(text.encode('utf-8'), path, parser=parser)
    except etree.XMLSyntaxError as err:
        raise SceneLoadError(f'not XML: {err.msg}', path, err.lineno) from None
    for entry in parser.feed_error_log:
        diagnostics.note(path, entry.line, f'malformed XML repaired: {entry.message.strip()}')
    if root is None:
        raise SceneLoadError('no XML element found', path)
    _lower_names(root, path)
    return root


def children(element: etree._Element, tag: str | None = None) -> list[etree._Element]:
    """Child elements (comments and processing instructions skipped), optionally by tag."""
    return [c for c in element if isinstance(c.tag, str) and (tag is None or c.tag == tag)]


def child(element: etree._Element, tag: str) -> etree._Element | None:
    for c in element:
        if c.tag == tag:
            return c
    return None


def text_of(element: etree._Element) -> str:
    return (element.text or '').strip()


def is_true(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ('true', '1', 'yes')


@overload
def unit_factor(element: etree._Element, kind: str, default: float) -> float: ...
@overload
def unit_factor(element: etree._Element, kind: str, default: float | None) -> float | None: ...


def unit_factor(element: etree._Element, kind: str, default: float | None) -> float | None:
    """Factor to SI of the first unit attribute of ``kind`` ('length', 'angle', 'weight',
    'time') on ``element``; ``default`` when it has none of that kind."""
    table = UNIT_KINDS[kind]
    for name in _UNIT_ATTRIBUTES:
        value = element.get(name)
        if value is not None and value.strip().lower() in table:
            return table[value.strip().lower()]
    return default


def has_unit(element: etree._Element) -> bool:
    return any(element.get(name) is not None for name in _UNIT_ATTRIBUTES)
