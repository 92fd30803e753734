"""Reading SimRobot XML files: hardened parsing, ``<Include href>`` and the named definitions.

Each file is parsed once (lxml without entities, DTDs or network, at most
``max_file_mb`` of :mod:`..limits`) into light :class:`Node` trees that remember file and line.
Parsed files are cached per process by path, size and modification time, so a second load of
the same scene skips the XML work. Includes are resolved relative to the including file,
recursively (within ``max_include_depth`` and the scene's folder tree, :mod:`..paths`); a cycle
is an error, a file included a second time is skipped with a warning.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError, format_location
from .. import paths, xml_parse

TEXT_ELEMENTS = frozenset({'Vertices', 'Normals', 'TexCoords', 'Triangles', 'Quads'})
_CACHE_SIZE = 32


class Diagnostics:
    """Errors and warnings collected during one load (``file:line: message`` strings)."""

    def __init__(self, strict: bool = False):
        self.strict = strict
        self.errors: list[tuple[str, str | None, int | None]] = []
        self.warnings: list[str] = []

    def error(self, message: str, file: str | Path | None, line: int | None) -> None:
        self.errors.append((message, None if file is None else str(file), line))

    def warn(self, message: str, file: str | Path | None, line: int | None) -> None:
        if self.strict:
            self.error(message, file, line)
        else:
            self.warnings.append(format_location(None if file is None else str(file), line,
                                                 message))

    def raise_if_errors(self) -> None:
        if not self.errors:
            return
        message, file, line = self.errors[0]
        rest = [format_location(f, ln, m) for m, f, ln in self.errors[1:]]
        if rest:
            message = limits.joined([message, *rest])
        raise SceneLoadError(message, file, line)


class Node:
    """One XML element of a scene file (comments dropped; text kept for mesh data only)."""

    __slots__ = ('tag', 'attrs', 'children', 'text', 'file', 'line', 'cache')

    def __init__(self, tag: str, attrs: dict[str, str], file: str, line: int):
        self.tag = tag
        self.attrs = attrs
        self.children: list[Node] = []
        self.text: str | None = None
        self.file = file
        self.line = line
        self.cache: Any = None  # derived data that depends on this node only (parsed arrays)

    def __repr__(self) -> str:
        return f'<{self.tag} {self.attrs} at {self.file}:{self.line}>'


HARDENED = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                huge_tree=False, remove_comments=True, remove_pis=True)


def _convert(element: Any, file: str, diag: Diagnostics) -> Node:
    node = Node(element.tag, dict(element.attrib), file, element.sourceline or 0)
    text = element.text
    if element.tag in TEXT_ELEMENTS:
        node.text = text if text is not None and not text.isspace() else None
    elif text is not None and text.strip():
        diag.warn(f'unexpected text in <{element.tag}>', file, node.line)
    for child in element:
        if isinstance(child.tag, str):
            node.children.append(_convert(child, file, diag))
    return node


def parse_xml_text(data: bytes | str, file: str, diag: Diagnostics) -> Node | None:
    """Parse one document into a :class:`Node` tree, recording syntax errors in ``diag``."""
    if isinstance(data, str):
        data = data.encode('utf-8')
    limits.check_file_size(Path(file), len(data))
    try:
        root = xml_parse.parse(data, file, **HARDENED)
    except etree.XMLSyntaxError as err:
        diag.error(f'not well-formed XML: {err.msg}', file, err.lineno)
        return None
    return _convert(root, file, diag)


@dataclass
class _CachedFile:
    key: tuple[int, int]
    root: Node | None
    warnings: list[str]


_file_cache: OrderedDict[str, _CachedFile] = OrderedDict()


def parse_file(path: Path, diag: Diagnostics) -> Node | None:
    """Parse ``path`` (cached by size and mtime); errors and warnings go to ``diag``."""
    file = str(path)
    try:
        stat = path.stat()
    except OSError as err:
        diag.error(f'cannot read file: {err.strerror}', file, None)
        return None
    key = (stat.st_size, stat.st_mtime_ns)
    cached = _file_cache.get(file)
    if cached is not None and cached.key == key:
        _file_cache.move_to_end(file)
        diag.warnings.extend(cached.warnings)
        return cached.root
    data = limits.read_bytes(path)
    local = Diagnostics(diag.strict)
    root = parse_xml_text(data, file, local)
    diag.errors.extend(local.errors)
    diag.warnings.extend(local.warnings)
    if not local.errors:
        _file_cache[file] = _CachedFile(key, root, list(local.warnings))
        while len(_file_cache) > _CACHE_SIZE:
            _file_cache.popitem(last=False)
    return root


def clear_cache() -> None:
    _file_cache.clear()


@dataclass
class Document:
    """All top-level definitions of a scene after includes: ``definitions[(tag, name)]``."""

    definitions: dict[tuple[str, str], Node] = field(default_factory=dict)
    scenes: list[Node] = field(default_factory=list)
    top_level: list[Node] = field(default_factory=list)  # the main file's own elements
    files: list[str] = field(default_factory=list)


def _resolve_href(href: str, including_file: str, base_dir: Path | None) -> Path:
    if os.path.isabs(href):
        return Path(os.path.normpath(href))
    base = base_dir if base_dir is not None else Path(including_file).parent
    return Path(os.path.normpath(base / href))


def collect(root: Node, diag: Diagnostics, document: Document, *, stack: tuple[str, ...],
            base_dir: Path | None = None, main: bool = True) -> None:
    """Add the top-level elements of ``root`` (a ``<Simulation>``) and of its includes."""
    if root.tag != 'Simulation':
        diag.error(f'expected <Simulation> as the root element, found <{root.tag}>',
                   root.file, root.line)
        return
    for node in root.children:
        if node.tag == 'Include':
            _include(node, diag, document, stack, base_dir)
            continue
        if main:
            document.top_level.append(node)
        if node.tag == 'Scene':
            document.scenes.append(node)
            continue
        name = node.attrs.get('name')
        if name is None:
            if main:
                continue  # the caller decides (a fragment's entity needs no name)
            diag.error(f'missing required attribute "name" of top-level <{node.tag}>',
                       node.file, node.line)
            continue
        key = (node.tag, name)
        previous = document.definitions.get(key)
        if previous is not None:
            diag.error(f'duplicate definition of <{node.tag} name="{name}"> (first defined at '
                       f'{previous.file}:{previous.line})', node.file, node.line)
            continue
        document.definitions[key] = node


def _include(node: Node, diag: Diagnostics, document: Document, stack: tuple[str, ...],
             base_dir: Path | None) -> None:
    href = node.attrs.get('href')
    for attribute in node.attrs:
        if attribute != 'href':
            diag.warn(f'unexpected attribute "{attribute}" of <Include>', node.file, node.line)
    if href is None:
        diag.error('missing required attribute "href" of <Include>', node.file, node.line)
        return
    path = paths.confine(_resolve_href(href, node.file, base_dir), 'included file', node.file,
                         node.line)
    limits.check_depth(len(stack), 'includes', node.file, node.line)
    file = str(path)
    if file in stack:
        chain = ' -> '.join([*stack[stack.index(file):], file])
        diag.error(f'include cycle: {chain}', node.file, node.line)
        return
    if file in document.files:
        diag.warn(f'"{href}" is already included; skipped', node.file, node.line)
        return
    if not paths.is_file(path):
        diag.error(f'included file "{href}" not found (looked for {file})', node.file, node.line)
        return
    document.files.append(file)
    root = parse_file(path, diag)
    if root is not None:
        collect(root, diag, document, stack=(*stack, file), main=False)
