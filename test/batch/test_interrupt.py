"""Ctrl-C (SIGINT) stops `scene-sim-ros batch` cleanly: finished runs keep their results, the
running workers end, the summary lists what did not run, and a re-run skips what finished."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.batch import alive, worker_pids, write_spec

SPEC = """\
scenes: [default]
seeds: 6
duration: 1.0
record: {hooks: {step: 'test_batch_hooks:slow'}}
output: out
"""


def batch_command(spec: Path, workers: int) -> list[str]:
    return [sys.executable, '-m', 'scene_sim_ros.cli', 'batch', str(spec), '--workers',
            str(workers)]


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_sigint_keeps_finished_runs_and_a_rerun_skips_them(batch_dir: Path) -> None:
    spec = write_spec(batch_dir, SPEC)
    runs = batch_dir / 'out' / 'runs'
    batch = subprocess.Popen(batch_command(spec, 1), cwd=batch_dir, stderr=subprocess.PIPE,
                             text=True)
    try:
        assert wait_for(lambda: any(runs.glob('*/result.json')), 60), 'no run finished'
        assert wait_for(lambda: len(worker_pids(batch_dir)) >= 2, 30), 'second run not started'
        batch.send_signal(signal.SIGINT)
        _, err = batch.communicate(timeout=20)
    finally:
        batch.kill()
    assert batch.returncode == 130, err
    assert 'Traceback' not in err
    finished = sorted(p.parent.name for p in runs.glob('*/result.json'))
    assert 1 <= len(finished) < 6
    with (batch_dir / 'out' / 'summary.csv').open() as stream:
        rows = list(csv.DictReader(stream))
    assert sorted(r['key'] for r in rows if r['status'] == 'ok') == finished
    assert {r['status'] for r in rows if r['key'] not in finished} == {'not run'}
    assert wait_for(lambda: not [p for p in worker_pids(batch_dir) if alive(p)], 5), \
        'a worker outlived the batch'

    again = subprocess.run(batch_command(spec, 2), cwd=batch_dir, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f'({len(finished)} skipped)' in again.stderr
    assert len(list(runs.glob('*/result.json'))) == 6
