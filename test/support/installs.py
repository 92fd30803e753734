"""The package as its users install it: the files a build takes from a clone, and the
`ros2 launch` of a ROS 2 distribution where one is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_SOURCES = ('setup.py', 'setup.cfg', 'package.xml', 'pyproject.toml', 'README.md',
                   'resource', 'launch', 'config', 'scene_sim_ros')


def copy_package_sources(destination: Path) -> Path:
    """What a build of the package reads, copied from the clone into ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in PACKAGE_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, destination / name,
                            ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
        else:
            shutil.copy2(ROOT / name, destination / name)
    return destination


def ros2_launch() -> str:
    """The `ros2` executable where `ros2 launch` works; skips the test elsewhere."""
    ros2 = shutil.which('ros2')
    try:
        import launch_ros  # noqa: F401
    except ImportError:
        ros2 = None
    if ros2 is None:
        pytest.skip('ros2 launch is not installed here (launch, launch_ros and ros2cli come '
                    'with a ROS 2 distribution, not from PyPI)')
    return ros2
