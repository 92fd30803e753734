"""Scene file formats: one module per format, each providing ``load(path, ...) -> Scene``.

Supported:

- SimRobot ``.ros2``/``.rsi2`` (and ``.ros3``/``.rsi3``): :mod:`.simrobot`
- Webots ``.wbt`` worlds and ``.proto`` files: :mod:`.webots`
- Simox robot and scene XML: :mod:`.simox`
- RaiSim world XML: :mod:`.raisim`
- URDF ``.urdf`` robots: :mod:`.urdf`

The loader is chosen by extension; ``.xml`` files are told apart by their root element
(:data:`FORMATS`, one row per format).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from scene_sim_ros import limits

from ..errors import SceneLoadError, UnsupportedFormatError
from ..scene import Scene
from . import paths
from .collector import collector_paused
from .validate import validate

Loader = Callable[..., Scene]


def _simrobot() -> Loader:
    from scene_sim_ros.formats.simrobot import load
    return load


def _webots() -> Loader:
    from scene_sim_ros.formats.webots import load
    return load


def _simox() -> Loader:
    from scene_sim_ros.formats.simox import load
    return load


def _raisim() -> Loader:
    from scene_sim_ros.formats.raisim import load
    return load


def _urdf() -> Loader:
    from scene_sim_ros.formats.urdf import load
    return load


@dataclass(frozen=True)
class Format:
    """A scene format: the extensions it owns, the root elements (lower case) that make an
    ``.xml`` file one of its, and its module's ``load`` (imported on first use, so that one
    format's dependencies or bugs never stop another format from loading)."""

    extensions: tuple[str, ...]
    xml_roots: tuple[str, ...]
    loader: Callable[[], Loader]


FORMATS: dict[str, Format] = {
    'simrobot': Format(('.ros2', '.rsi2', '.ros3', '.rsi3'), ('simulation',), _simrobot),
    'webots': Format(('.wbt', '.proto'), (), _webots),
    'simox': Format((), ('robot', 'scene', 'manipulationobject', 'obstacle'), _simox),
    'raisim': Format((), ('raisim',), _raisim),
    'urdf': Format(('.urdf',), (), _urdf),  # an .xml <robot> with <link>s: see _sniff_xml
}

LOADERS: dict[str, str] = {ext: name for name, f in FORMATS.items() for ext in f.extensions}
"""extension -> format name"""

XML_ROOTS: dict[str, str] = {root: name for name, f in FORMATS.items() for root in f.xml_roots}
"""root element (lower case) of an .xml file -> format name (a URDF <robot> is told apart by
its lower-case tag and its <link>s, see _sniff_xml)"""

REJECTED: dict[str, str] = {
    '.ros2d': '2-D SimRobot scenes (.ros2d) are not supported; use a 3-D .ros2 scene',
    '.rsi2d': '2-D SimRobot scenes (.rsi2d) are not supported; use a 3-D .ros2 scene',
}

_ROOT_TAG = re.compile(rb'<\s*([A-Za-z_][\w.-]*)')


def supported_extensions() -> list[str]:
    return sorted({*LOADERS, '.xml'})


def _sniff_xml(path: Path) -> str | None:
    with open(path, 'rb') as stream:
        head = stream.read(65536)
    head = re.sub(rb'<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>', b'', head, flags=re.S)
    match = _ROOT_TAG.search(head)
    if match is None:
        return None
    tag = match.group(1).decode('ascii', 'replace')
    if tag == 'robot' and b'<link' in head:  # URDF: lower-case robot with link elements
        return 'urdf'
    return XML_ROOTS.get(tag.lower())


def _raise_if_not_xml(path: Path) -> None:
    """``file:line: not well-formed XML: ...`` for an ``.xml`` file that is not XML."""
    from lxml import etree
    try:
        etree.fromstring(limits.read_bytes(path),
                         etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as err:
        raise SceneLoadError(f'not well-formed XML: {err.msg}', path, err.lineno) from None


def format_of(path: Path) -> str:
    """Return the name of the format module that reads ``path`` (raises if none does)."""
    suffix = path.suffix.lower()
    if suffix in REJECTED:
        raise UnsupportedFormatError(REJECTED[suffix], path)
    if suffix in LOADERS:
        return LOADERS[suffix]
    if suffix == '.xml' or suffix == '':
        try:
            found = _sniff_xml(path)
        except OSError as err:
            raise SceneLoadError(f'cannot read file: {err.strerror}', path) from None
        if found is not None:
            return found
        _raise_if_not_xml(path)
        raise UnsupportedFormatError(
            'unknown XML scene: the root element is none of '
            + ', '.join(f'<{t}>' for t in XML_ROOTS), path)
    raise UnsupportedFormatError(
        f'unsupported scene file extension {suffix!r}; supported: '
        + ', '.join(supported_extensions()), path)


def load_scene(path: str | Path, *, parameters: Mapping[str, str] | None = None,
               strict: bool = False, simrobot_core: object = 'auto') -> Scene:
    """Load a scene file of any supported format.

    ``parameters`` supplies template values a format asks for (RaiSim ``@@name``);
    ``strict`` turns unknown elements and attributes into errors instead of warnings;
    ``simrobot_core`` (2, 3 or 'auto') overrides which SimRobot servo law a SimRobot scene
    gets (other formats ignore it).
    """
    path = Path(path)
    try:
        if not path.is_file():
            raise SceneLoadError('no such file' if not path.exists() else 'not a file', path)
    except (OSError, ValueError) as err:  # a name too long, a NUL byte
        raise SceneLoadError(f'cannot read file: {getattr(err, "strerror", None) or err}',
                             str(path)[:300]) from None
    limits.check_file_size(path)
    name = format_of(path)
    load = FORMATS[name].loader()
    options: dict[str, object] = dict(parameters=parameters, strict=strict)
    if name == 'simrobot':
        options['simrobot_core'] = simrobot_core
    with paths.scope(path), collector_paused():
        try:
            scene = load(path, **options)
        except RecursionError:
            raise SceneLoadError('elements nest too deeply to read', path) from None
    return validate(scene, strict)


__all__ = ['FORMATS', 'LOADERS', 'XML_ROOTS', 'Format', 'format_of', 'load_scene',
           'supported_extensions']
