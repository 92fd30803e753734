"""Path confinement: files a scene names (includes, meshes, textures, URDFs, sensor sets) must lie
in the scene's folder tree or on a configured search path.

The scene's folder tree is the folder of the scene file the user loaded and ``scene_tree_levels``
folders above it (scenes commonly keep ``../Includes`` or ``../../anymal/meshes`` beside their own
folder), never the file system root. Search paths: ``$SCENE_SIM_ROS_SEARCH_PATH``
(``os.pathsep``-separated folders), the package's own data, and what a loader adds (Simox data
folders, the share folder of a ``package://`` package found in the ament index). A path
elsewhere is refused with an error that names the path and never shows the file's content.

Paths are compared both as written (normalised, so that a colcon ``--symlink-install`` tree of
links is inside) and with links resolved.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from scene_sim_ros import limits

from ..errors import SceneLoadError

SEARCH_PATH_ENV = 'SCENE_SIM_ROS_SEARCH_PATH'
_DATA_DIR = Path(__file__).resolve().parent.parent / 'data'

_roots: contextvars.ContextVar[tuple[Path, ...] | None] = contextvars.ContextVar(
    'scene_roots', default=None)


def scene_tree(scene_file: Path) -> Path:
    """The folder tree a scene may reach: ``scene_tree_levels`` above its folder, stopping
    below the file system root."""
    folder = Path(os.path.abspath(scene_file)).parent
    for _ in range(limits.current().scene_tree_levels):
        parent = folder.parent
        if parent == parent.parent:
            break
        folder = parent
    return folder


def search_paths() -> list[Path]:
    raw = os.environ.get(SEARCH_PATH_ENV, '')
    return [Path(p) for p in raw.split(os.pathsep) if p] + [_DATA_DIR]


@contextmanager
def scope(scene_file: Path) -> Iterator[None]:
    """Confine the files of the scene ``scene_file`` inside the block (an outer scope wins: the
    URDF of a RaiSim world is confined to the world's tree)."""
    if _roots.get() is not None:
        yield
        return
    token = _roots.set((scene_tree(scene_file), *search_paths()))
    try:
        yield
    finally:
        _roots.reset(token)


@contextmanager
def allow(folders: Iterable[Path]) -> Iterator[None]:
    """Add ``folders`` (configured search paths of a loader) to the allowed roots in the block."""
    current = _roots.get()
    if current is None:
        yield
        return
    token = _roots.set((*current, *folders))
    try:
        yield
    finally:
        _roots.reset(token)


def _forms(path: Path) -> set[str]:
    absolute = os.path.abspath(path)
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        real = absolute
    return {absolute, real}


def is_allowed(path: Path) -> bool:
    roots = _roots.get()
    if roots is None:
        return True
    candidates = _forms(path)
    for root in roots:
        for base in _forms(root):
            prefix = base.rstrip(os.sep) + os.sep
            if any(c == base or c.startswith(prefix) for c in candidates):
                return True
    return False


def confine(path: Path, what: str, file: str | Path | None = None,
            line: int | None = None) -> Path:
    """``path`` if inside the allowed roots, else a :class:`SceneLoadError` naming it."""
    if is_allowed(path):
        return path
    roots = _roots.get() or ()
    levels = limits.env_name('scene_tree_levels')
    raise SceneLoadError(
        f"{what} {_shown(path)} is outside the scene's folder tree ({roots[0]}) and the search "
        f'paths; refused (add its folder to ${SEARCH_PATH_ENV} or raise {levels})', file, line)


def _shown(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 300 else text[:150] + '...' + text[-100:]


def is_file(path: Path) -> bool:
    """``path.is_file()`` that is False for names the OS refuses (too long, a NUL byte)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def package_share(package: str) -> Path | None:
    """The share folder of ROS package ``package`` from the ament index (allowed as a root)."""
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:
        return None
    try:
        return Path(get_package_share_directory(package))
    except (PackageNotFoundError, ValueError, LookupError, OSError):  # OSError: no index
        return None
