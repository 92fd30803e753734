"""Fixtures shared by the format loader tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from support.corpus import CORPUS, missing
from support.engines import engine, make_sim, pytest_generate_tests  # noqa: F401 (fixtures, hook)


@pytest.fixture(scope='session')
def corpus_dir() -> Path:
    """The corpus (``$SCENE_SIM_ROS_CORPUS``, default ``../shared/corpus``); skips where absent."""
    if not CORPUS.is_dir():
        pytest.skip(missing(CORPUS))
    return CORPUS


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write dedented ``text`` to ``tmp_path / name`` and return the path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip('\n'), encoding='utf-8')
        return path

    return write
