"""Fixtures shared by the format loader tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[3] / 'shared' / 'corpus'


@pytest.fixture(scope='session')
def corpus_dir() -> Path:
    """``../shared/corpus`` (real scene files of other projects); skips where it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f'corpus not found at {CORPUS} (it lives in ../shared beside the project)')
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
