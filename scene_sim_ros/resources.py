"""Files that ship with the package: the bundled default scene, the example scenes and the
configuration.

The default scene and the examples live inside the Python package (``scene_sim_ros/data``) so
that every kind of install finds them. An example is a scene file of ``data/examples`` in any
supported format (helper files there, such as a RaiSim sensor set or height map, are not
examples); its name is the file name without the extension (``car`` for ``car.ros2``).
``config/`` (parameters, RViz) and ``launch/`` sit at the package root and are installed by
``colcon build`` under ``share/scene_sim_ros``; in a source checkout they are found next to this
package.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

PACKAGE = 'scene_sim_ros'
DATA_DIR = Path(__file__).resolve().parent / 'data'
EXAMPLES_DIR = DATA_DIR / 'examples'
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def default_scene_path() -> Path:
    """The scene ``scene-sim-ros run`` starts when none is given."""
    return DATA_DIR / 'scenes' / 'default.ros2'


def _example_files() -> dict[str, Path]:
    """name -> file of every example scene, in name order."""
    from scene_sim_ros.errors import SceneLoadError
    from scene_sim_ros.formats import format_of
    found: dict[str, Path] = {}
    if not EXAMPLES_DIR.is_dir():
        return found
    for path in sorted(EXAMPLES_DIR.iterdir(), key=lambda p: (p.name.lower(), p.name)):
        if not path.is_file():
            continue
        try:
            format_of(path)
        except SceneLoadError:  # not a scene (a sensor set, a height map, ...)
            continue
        found.setdefault(path.stem, path)
    return found


def example_names() -> list[str]:
    """The names of the example scenes that ship with the package (``car``, ``arm``, ...)."""
    return list(_example_files())


def resolve_scene(value: str) -> str:
    """A scene as every front door takes it (``run``, ``sim_node``'s ``scene`` parameter, the
    launch file): an existing path as given, else the file of the example of that name; a name
    that is neither stays as it is (the loader reports the missing file), unless it looks like
    an example name (no folder, no extension): then the error lists the examples."""
    try:
        if Path(value).exists():
            return value
    except OSError:  # a name too long for the file system: the loader says so in one line
        return value
    from scene_sim_ros.errors import SceneSimError
    try:
        return str(example_path(value))
    except SceneSimError:
        if Path(value).suffix or Path(value).name != value:
            return value
        raise


def example_path(name: str) -> Path:
    """The file of example ``name`` (with or without its extension).

    Raises :class:`~scene_sim_ros.errors.SceneSimError` listing the known names on a miss.
    """
    from scene_sim_ros.errors import SceneSimError
    files = _example_files()
    stem = name
    if name not in files and Path(name).suffix:
        stem = Path(name).stem
        if stem in files and files[stem].name != name:
            stem = ''  # right stem, wrong extension: not this example
    if stem in files:
        return files[stem]
    import difflib
    close = difflib.get_close_matches(Path(name).stem, list(files), n=1)
    hint = f' (did you mean {close[0]!r}?)' if close else ''
    raise SceneSimError(f'no scene file or example {name!r}{hint}; examples: ' + ', '.join(files))


def example_format(path: Path) -> str:
    """The format module name of an example file (``simrobot``, ``webots``, ...)."""
    from scene_sim_ros.formats import format_of
    return format_of(path)


_XML_COMMENT = re.compile(r'<!--(.*?)-->', re.S)
_TITLE = re.compile(r'^\s*title\s+"((?:[^"\\]|\\.)*)"', re.M)


def example_description(path: Path) -> str:
    """One line describing a scene file, from the file itself: a Webots world's ``WorldInfo``
    title, else its first ``#`` comment after the header; for XML formats the first line of
    the first comment."""
    text = path.read_text(encoding='utf-8', errors='replace')
    if path.suffix.lower() in ('.wbt', '.proto'):
        title = _TITLE.search(text)
        if title and path.suffix.lower() == '.wbt':
            return title.group(1).strip()
        for line in text.splitlines()[1:]:
            stripped = line.strip()
            if stripped.startswith('#') and stripped.lstrip('#').strip():
                return stripped.lstrip('#').strip()
        return ''
    comment = _XML_COMMENT.search(text)
    if comment is None:
        return ''
    lines = [line.strip() for line in comment.group(1).strip().splitlines()]
    return lines[0] if lines else ''


def package_share_directory(package: str) -> Path | None:
    """``share/<package>`` of an installed ROS package: from the ament index where there is
    one, else beside the package's Python modules (``<prefix>/lib/pythonX.Y/site-packages/<pkg>``
    -> ``<prefix>/share/<pkg>``, how the ROS wheels, colcon and pip installs lay it out), so
    that a plain venv without ``AMENT_PREFIX_PATH`` finds the same files. None where neither
    has it."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
        try:
            return Path(get_package_share_directory(package))
        except (PackageNotFoundError, ValueError, LookupError, OSError):  # OSError: no index
            pass
    except ImportError:
        pass
    if not package.isidentifier():
        return None
    candidates = [Path(sys.prefix)]
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        candidates[:0] = Path(spec.origin).resolve().parents
    for prefix in candidates:
        share = prefix / 'share' / package
        if (share / 'package.xml').is_file():
            return share
    return None


def share_dir() -> Path:
    """``share/scene_sim_ros`` of an installed package, else the source checkout's root."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:
        return SOURCE_ROOT
    try:
        return Path(get_package_share_directory(PACKAGE))
    except (PackageNotFoundError, OSError):  # OSError: no AMENT_PREFIX_PATH (a plain venv)
        return SOURCE_ROOT


def config_path(name: str) -> Path:
    """A file of ``config/`` (``params.yaml``, ``scene_sim_ros.rviz``)."""
    return share_dir() / 'config' / name
