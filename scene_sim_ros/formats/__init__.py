"""Scene file formats: one module per format, each providing ``load(path, ...) -> Scene``.

Supported:

- SimRobot ``.ros2``/``.rsi2`` (and ``.ros3``/``.rsi3``): :mod:`.simrobot`
- Webots ``.wbt`` worlds and ``.proto`` files: :mod:`.webots`
- Simox robot and scene XML: :mod:`.simox`
- RaiSim world XML: :mod:`.raisim`
- URDF ``.urdf`` robots: :mod:`.urdf`

The loader is chosen by extension; ``.xml`` files are told apart by their root element.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from scene_sim_ros import limits

from ..errors import SceneLoadError, UnsupportedFormatError
from ..scene import Scene
from . import paths
from .collector import collector_paused
from .validate import validate

# extension -> module name (imported on first use, see _loader, so that one format's
# dependencies or bugs never stop another format from loading)
LOADERS: dict[str, str] = {
    '.ros2': 'simrobot', '.rsi2': 'simrobot', '.ros3': 'simrobot', '.rsi3': 'simrobot',
    '.wbt': 'webots', '.proto': 'webots',
    '.urdf': 'urdf',
}

# root element (lower case) of an .xml file -> module name
XML_ROOTS: dict[str, str] = {
    'simulation': 'simrobot',
    'raisim': 'raisim',
    'robot': 'simox',  # a URDF <robot> is told apart by its lower-case tag, see _sniff_xml
    'scene': 'simox',
    'manipulationobject': 'simox',
    'obstacle': 'simox',
}

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


def _loader(name: str) -> Callable[..., Scene]:
    """The ``load`` function of format module ``name``, imported now."""
    if name == 'simrobot':
        from scene_sim_ros.formats import simrobot
        return simrobot.load
    if name == 'webots':
        from scene_sim_ros.formats import webots
        return webots.load
    if name == 'simox':
        from scene_sim_ros.formats import simox
        return simox.load
    if name == 'raisim':
        from scene_sim_ros.formats import raisim
        return raisim.load
    if name == 'urdf':
        from scene_sim_ros.formats import urdf
        return urdf.load
    raise ValueError(f'no format module {name!r}')


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
    load = _loader(name)
    options: dict[str, object] = dict(parameters=parameters, strict=strict)
    if name == 'simrobot':
        options['simrobot_core'] = simrobot_core
    with paths.scope(path), collector_paused():
        try:
            scene = load(path, **options)
        except RecursionError:
            raise SceneLoadError('elements nest too deeply to read', path) from None
    return validate(scene, strict)


__all__ = ['LOADERS', 'format_of', 'load_scene', 'supported_extensions']
