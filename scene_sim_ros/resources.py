"""Files that ship with the package: the bundled default scene, configuration, RViz setup.

They live in the Python package (``scene_sim_ros/data``) so that a pip/editable install finds
them; ``colcon build`` additionally installs them under ``share/scene_sim_ros`` for ``ros2 launch``.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / 'data'


def default_scene_path() -> Path:
    """The scene ``scene-sim-ros run`` starts when none is given."""
    return DATA_DIR / 'scenes' / 'default.ros2'


def default_params_path() -> Path:
    return DATA_DIR / 'config' / 'params.yaml'
