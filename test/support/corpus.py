"""Where the tests find the third-party scene corpus (real scene files of other projects,
used as test data only; never copied into the package).

The location is the environment variable ``SCENE_SIM_ROS_CORPUS``; without it,
``../shared/corpus`` beside the repository. Tests that need a corpus file skip where it is
absent, saying where they looked::

    from support.corpus import CORPUS, skip_if_missing
    GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
    skip_if_missing(GAME)            # in a test or fixture
    @needs_corpus(GAME)              # or as a mark
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = 'SCENE_SIM_ROS_CORPUS'
REPO = Path(__file__).resolve().parents[2]
DEFAULT = REPO.parent / 'shared' / 'corpus'
CORPUS = Path(os.environ[ENV]).expanduser().resolve() if os.environ.get(ENV) else DEFAULT


def where() -> str:
    """How the corpus location was chosen, for skip messages."""
    if os.environ.get(ENV):
        return f'${ENV}={os.environ[ENV]}'
    return f'${ENV} is unset, so ../shared/corpus beside the repository: {DEFAULT}'


def missing(path: Path) -> str:
    """The skip reason for an absent corpus file or folder."""
    return f'corpus file {path} not found (corpus: {where()})'


def skip_if_missing(path: Path) -> Path:
    """Skip the running test unless ``path`` exists; returns it."""
    if not path.exists():
        pytest.skip(missing(path))
    return path


def needs_corpus(path: Path = CORPUS) -> pytest.MarkDecorator:
    """A skipif mark for tests that need ``path`` (default: the corpus folder)."""
    return pytest.mark.skipif(not path.exists(), reason=missing(path))
