"""Helpers of the batch tests (test/batch): a hooks module that misbehaves on request, spec files,
worker processes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

# Hooks for the tests, keyed by run.params['misbehave'] and run at step 20: each writes its
# process id (to check that no worker outlives the batch) and, for the *_once kinds, a mark so
# that only the first attempt of a run misbehaves.
HOOKS = """
import os, signal, time
from pathlib import Path

HERE = Path(__file__).parent


def _first_time(tag):
    mark = HERE / 'marks' / tag
    if mark.exists():
        return False
    mark.parent.mkdir(exist_ok=True)
    mark.write_text('')
    return True


def misbehave(sim, run):
    if sim.steps == 1:
        (HERE / 'pids').mkdir(exist_ok=True)
        (HERE / 'pids' / str(os.getpid())).write_text('')
    what = run.params.get('misbehave')
    if sim.steps != 20 or what is None:
        return
    tag = f'{what}-{run.seed}'
    if what == 'raise_once' and _first_time(tag):
        raise RuntimeError('hook failed on purpose')
    if what == 'raise_always':
        raise RuntimeError('hook always fails')
    if what == 'sigkill_once' and _first_time(tag):
        os.kill(os.getpid(), signal.SIGKILL)
    if what == 'hang':
        time.sleep(120)


def slow(sim, run):
    misbehave(sim, run)
    time.sleep(0.01)
"""


@pytest.fixture
def batch_dir(tmp_path: Path) -> Path:
    """A folder holding ``test_batch_hooks.py``; write the spec with :func:`write_spec`."""
    (tmp_path / 'test_batch_hooks.py').write_text(HOOKS)
    return tmp_path


def write_spec(folder: Path, text: str, name: str = 'spec.yaml') -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def worker_pids(folder: Path) -> list[int]:
    pids = folder / 'pids'
    return [int(p.name) for p in pids.iterdir()] if pids.is_dir() else []


def alive(pid: int) -> bool:
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return stat.read().split(')')[-1].split()[0] != 'Z'
    except OSError:
        return False
