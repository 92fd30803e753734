"""Files that ship with the package: the bundled default scene and the configuration.

The default scene lives inside the Python package (``scene_sim_ros/data``) so that every kind of
install finds it. ``config/`` (parameters, RViz) and ``launch/`` sit at the package root and are
installed by ``colcon build`` under ``share/scene_sim_ros``; in a source checkout they are found
next to this package.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = 'scene_sim_ros'
DATA_DIR = Path(__file__).resolve().parent / 'data'
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def default_scene_path() -> Path:
    """The scene ``scene-sim-ros run`` starts when none is given."""
    return DATA_DIR / 'scenes' / 'default.ros2'


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
