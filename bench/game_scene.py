"""What the benchmarks share: the scene of real size they measure on, and the skip line of a
benchmark that cannot run here (bench/run.py copies ``_skipped: ..._`` into the report)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GAME = (Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'simrobot'
        / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2')
"""B-Human's game: 14 NAOs with two cameras each (the corpus, beside the repository)."""

NAO_CAMERAS = ('CameraTop', 'CameraBottom')
"""A NAO's two cameras (640x480 and 320x240 in Game.ros2)."""


def naos(scene: Any) -> list[str]:
    """The names of ``scene``'s robots with NAO cameras, sorted."""
    return sorted(e.name for e in scene.entities
                  if any(s.name == NAO_CAMERAS[0] for s in e.sensors))


def skipped_without_gl(scene: Path) -> bool:
    """Print why a GL benchmark of ``scene`` cannot run here (no EGL context, no scene file) and
    return True; False when it can."""
    from scene_sim_ros.sim.render import egl_problem

    why = egl_problem() or (None if scene.is_file() else f'{scene} is missing')
    if why is None:
        return False
    print(f'_skipped: {why}_')
    print(json.dumps({'skipped': why}))
    return True
