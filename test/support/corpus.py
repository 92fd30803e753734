"""Where the tests find the third-party scene corpus (real scene files of other projects,
used as test data only; never copied into the package).

The location is the environment variable ``SCENE_SIM_ROS_CORPUS``; without it,
``../shared/corpus`` beside the repository. Tests that need a corpus file skip where it is
absent, saying where they looked::

    from support.corpus import CORPUS, skip_if_missing
    GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
    skip_if_missing(GAME)            # in a test or fixture
    @needs_corpus(GAME)              # or as a mark
    skip_module_without(GAME)        # at the top of a corpus module (``test_*_corpus.py``)

A corpus module holds only tests written around particular corpus files (Game.ros2's 14 NAOs,
ArmarIII's 53 joints, ...); it is skipped whole, as one item, where the corpus is absent. What
every scene of a format must satisfy lives beside the loader's other tests and runs on the
shipped examples always, and on the corpus files where they are present.
"""

from __future__ import annotations

import os
import sys
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


def skip_module_without(path: Path = CORPUS) -> None:
    """Skip the calling test module as a whole unless ``path`` exists (call at module level)."""
    if not path.exists():
        module = sys._getframe(1).f_globals.get('__name__', 'this module')
        pytest.skip(f'{module}: every test of the module needs the corpus: {missing(path)}',
                    allow_module_level=True)
