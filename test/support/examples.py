"""The scene files that ship with the package (``scene_sim_ros/data/examples`` and the default
scene), for tests of what every scene of a format must satisfy: such a test runs on these always,
so a fresh clone without the corpus still checks it, and on the corpus files too where the corpus
is present::

    from support.examples import shipped, shipped_ids
    SCENES = shipped('simrobot') + corpus_scenes
    @pytest.mark.parametrize('path', SCENES, ids=shipped_ids(SCENES, CORPUS))
"""

from __future__ import annotations

from pathlib import Path

from scene_sim_ros.resources import (
    DATA_DIR,
    default_scene_path,
    example_format,
    example_names,
    example_path,
)


def shipped(fmt: str | None = None) -> list[Path]:
    """The example scene files (and the default scene) of format ``fmt`` (all where None)."""
    files = [example_path(name) for name in example_names()] + [default_scene_path()]
    return [path for path in files if fmt is None or example_format(path) == fmt]


def shipped_ids(paths: list[Path], corpus: Path | None = None) -> list[str]:
    """Test ids: ``shipped/<file>`` for a shipped file, else the path relative to ``corpus``."""
    ids = []
    for path in paths:
        if path.is_relative_to(DATA_DIR):
            ids.append(f'shipped/{path.name}')
        else:
            ids.append(str(path.relative_to(corpus)) if corpus else path.name)
    return ids
