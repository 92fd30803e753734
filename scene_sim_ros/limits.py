"""Resource limits of the scene loaders: one named setting each, with a generous default.

A scene that goes over one fails with a :class:`SceneLoadError` naming the limit, its value and
the environment variable that raises it, e.g. ``big.wbt: file is 300.0 MiB, over the limit
max_file_mb = 64 (raise it with SCENE_SIM_ROS_MAX_FILE_MB=...)``. The table is documented in
``docs/limits.md``; :func:`override` changes limits for a block of code (tests, embedding).

Reading goes through :func:`read_bytes`/:func:`read_text` so that the size is checked before a
byte is read and undecodable bytes are reported with their line and column.
"""

from __future__ import annotations

import codecs
import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from scene_sim_ros.errors import SceneLoadError

ENV_PREFIX = 'SCENE_SIM_ROS_'


@dataclass(frozen=True)
class Limits:
    max_file_mb: float = 64.0
    """Size of any one scene, include, PROTO or mesh file (MiB), checked before reading."""
    max_elements: int = 200_000
    """Elements after expansion: SimRobot ``ref``, Webots DEF/USE, RaiSim ``<array>``, includes."""
    max_xml_elements: int = 50_000
    """XML elements in any one SimRobot, Simox, URDF or RaiSim file, counted while it is parsed
    (see :mod:`.xml_parse`); real files have up to a few thousand."""
    max_values: int = 5_000_000
    """Numbers, strings and words in one Webots world, PROTO or template expansion."""
    max_tokens: int = 2_000_000
    """Tokens (words, brackets, rows of up to 4096 values) in one Webots world, PROTO or
    template expansion: what a parser holds per token is larger than a value in a row."""
    max_include_depth: int = 32
    """Nesting of includes (SimRobot Include, RaiSim include, Simox ChildFromRobot)."""
    max_magnitude: float = 1e9
    """Largest absolute value of any number in SI units (length, mass, force, ...)."""
    max_time_step: float = 1.0
    """Longest simulation time step (s); time steps must also be positive."""
    max_math_nodes: int = 200
    """Operators, numbers and calls in one RaiSim ``{math}`` expression."""
    max_triangles: int = 2_000_000
    """Triangles in one mesh (inline or file)."""
    max_texture_pixels: int = 8192 * 8192
    """Pixels (width x height) of one texture image, checked from its header before decoding;
    a larger one is drawn in its plain colour with a warning."""
    max_image_pixels: int = 8192 * 8192
    """Pixels (width x height) of one camera, depth or segmentation image: every frame is
    allocated at that size."""
    scene_tree_levels: int = 2
    """Folders above the scene file's folder that its includes, meshes and textures may reach
    (``../../meshes``); never the file system root (see :mod:`.paths`)."""


_overrides: Limits | None = None


def current() -> Limits:
    """The limits in force: :func:`override` if active, else defaults with environment values."""
    if _overrides is not None:
        return _overrides
    values: dict[str, Any] = {}
    for f in fields(Limits):
        raw = os.environ.get(env_name(f.name))
        if raw is not None:
            try:
                values[f.name] = float(raw) if f.type == 'float' else int(float(raw))
            except ValueError:
                raise SceneLoadError(f'{env_name(f.name)}={raw!r} is not a number') from None
    return replace(Limits(), **values)


@contextmanager
def override(**changes: float) -> Iterator[Limits]:
    """Use ``changes`` (limit name -> value) instead of the current limits inside the block."""
    global _overrides
    previous = _overrides
    _overrides = replace(current(), **changes)  # type: ignore[arg-type]
    try:
        yield _overrides
    finally:
        _overrides = previous


def env_name(limit: str) -> str:
    return ENV_PREFIX + limit.upper()


def exceeded(limit: str, what: str, file: str | Path | None = None,
             line: int | None = None) -> SceneLoadError:
    """The error for going over ``limit``: ``what`` says by how much."""
    value = getattr(current(), limit)
    shown = f'{value:g}' if isinstance(value, float) else str(value)
    return SceneLoadError(f'{what}, over the limit {limit} = {shown} (raise it with '
                          f'{env_name(limit)}=...)', file, line)


MAX_ERRORS_SHOWN = 20


def joined(errors: list[str]) -> str:
    """One message per line, the first :data:`MAX_ERRORS_SHOWN` of them (a file of 50,000
    duplicate names is 50,000 errors: a message of megabytes says no more than its start)."""
    shown = errors[:MAX_ERRORS_SHOWN]
    if len(errors) > len(shown):
        shown.append(f'... and {len(errors) - len(shown)} more errors')
    return '\n'.join(shown)


# -- files ------------------------------------------------------------------------------------

def check_file_size(path: Path, size: int | None = None) -> None:
    """Raise if ``path`` (of ``size`` bytes, else stat'ed) is over ``max_file_mb``."""
    if size is None:
        try:
            size = path.stat().st_size
        except OSError as err:
            raise cannot_read(path, err) from None
    limit = current().max_file_mb
    if size > limit * 1024 * 1024:
        raise exceeded('max_file_mb', f'file is {size / 1024 / 1024:.1f} MiB', path)


def cannot_read(path: Path, err: OSError) -> SceneLoadError:
    """``file: cannot read file: <reason>`` (the reason only: never the file's content)."""
    reason = err.strerror or type(err).__name__
    return SceneLoadError(f'cannot read file: {reason}', _shown(path))


def _shown(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 300 else text[:150] + '...' + text[-100:]


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path`` after the size check; errors are :class:`SceneLoadError`."""
    try:
        with open(path, 'rb') as stream:
            check_file_size(path, os.fstat(stream.fileno()).st_size)
            return stream.read()
    except OSError as err:
        raise cannot_read(path, err) from None
    except ValueError as err:  # a NUL byte in the path
        raise SceneLoadError(f'cannot read file: {err}', _shown(path)) from None


_XML_ENCODING = re.compile(rb'^\s*<\?xml[^>]*encoding\s*=\s*["\']([A-Za-z0-9._-]+)["\']')
_VRML_ENCODING = re.compile(rb'^#VRML\w* \S+ ([A-Za-z0-9_-]+)')
_BOMS = ((codecs.BOM_UTF8, 'utf-8-sig'), (codecs.BOM_UTF16_LE, 'utf-16'),
         (codecs.BOM_UTF16_BE, 'utf-16'))


def declared_encoding(data: bytes) -> str:
    """The encoding a byte-order mark, an XML declaration or a ``#VRML_SIM .. utf8`` header
    names; UTF-8 otherwise. Unknown names fall back to UTF-8."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    match = _XML_ENCODING.match(data) or _VRML_ENCODING.match(data)
    if match is not None:
        name = match.group(1).decode('ascii')
        try:
            return codecs.lookup(name).name
        except LookupError:
            return 'utf-8'
    return 'utf-8'


def decode(data: bytes, file: str | Path) -> str:
    """``data`` as text in its declared encoding; an invalid byte is ``file:line: ...`` with
    the column and the byte."""
    encoding = declared_encoding(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data.count(b'\n', 0, err.start) + 1
        column = err.start - (data.rfind(b'\n', 0, err.start) + 1) + 1
        bad = data[err.start:err.end].hex(' ')
        raise SceneLoadError(f'invalid {encoding} byte(s) 0x{bad} at column {column} '
                             f'(byte offset {err.start}); save the file as {encoding} or declare '
                             'its encoding', file, line) from None


def read_text(path: Path) -> str:
    """:func:`read_bytes` then :func:`decode`."""
    return decode(read_bytes(path), path)


# -- counts and numbers -------------------------------------------------------------------------

class NumberError(ValueError):
    """A number in a file that parses but is not finite (``nan``, ``inf``, ``1e999``)."""


def number(text: str) -> float:
    """``float(text)`` for finite numbers only: :class:`NumberError` (a ``ValueError``) for
    ``nan``/``inf``/overflowing text, so that loaders' ``except ValueError`` report it."""
    value = float(text)
    if not math.isfinite(value):
        raise NumberError(f'{text.strip()!r} is not a finite number')
    return value


def why_not(err: ValueError, fallback: str) -> str:
    """The message for a number that failed :func:`number`: its own if not finite."""
    if not isinstance(err, NumberError):
        return fallback
    return fallback.replace(' is not a number', ' is not a finite number').replace(
        ' is not a list of numbers', ' holds a number that is not finite')


class ElementBudget:
    """Counts expanded elements of one load against ``max_elements``."""

    def __init__(self, file: str | Path | None = None) -> None:
        self.file = file
        self.limit = current().max_elements
        self.count = 0

    def spend(self, n: int = 1, what: str = 'elements', file: str | Path | None = None,
              line: int | None = None) -> None:
        self.count += n
        if self.count > self.limit:
            raise exceeded('max_elements', f'the scene expands to more than {self.limit} {what}',
                           file if file is not None else self.file, line)


def check_depth(depth: int, what: str, file: str | Path | None = None,
                line: int | None = None) -> None:
    limit = current().max_include_depth
    if depth > limit:
        raise exceeded('max_include_depth', f'{what} nest {depth} deep', file, line)


def check_number(value: float, what: str, file: str | Path | None = None,
                 line: int | None = None) -> float:
    """``value`` if finite and within ``max_magnitude``, else a clear error naming ``what``."""
    if not math.isfinite(value):
        raise SceneLoadError(f'{what} is {value}, not a finite number', file, line)
    if abs(value) > current().max_magnitude:
        raise exceeded('max_magnitude', f'{what} is {value:g}', file, line)
    return value


def check_time_step(value: float, what: str, file: str | Path | None = None,
                    line: int | None = None) -> float:
    check_number(value, what, file, line)
    if value <= 0:
        raise SceneLoadError(f'{what} is {value:g} s; it must be positive', file, line)
    if value > current().max_time_step:
        raise exceeded('max_time_step', f'{what} is {value:g} s', file, line)
    return value


def check_triangles(count: int, what: str, file: str | Path | None = None,
                    line: int | None = None) -> None:
    if count > current().max_triangles:
        raise exceeded('max_triangles', f'{what} has {count} triangles', file, line)
