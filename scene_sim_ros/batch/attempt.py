"""One attempt of one run in a fresh worker process (``python -m scene_sim_ros.batch.worker``),
with its wall-clock limit. Crashes, signals and time-outs become failed :class:`Outcome`s; the
caller decides about retries. Both executors call :func:`attempt`: the local one from a thread,
Ray as a task on any node (the files travel back inside the outcome).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

from scene_sim_ros.batch.results import Outcome
from scene_sim_ros.batch.runs import RunTask

POLL_S = 0.05
LOG_TAIL = 2000  # characters of the worker's output kept with a failure
# One core per run: BLAS/OpenMP thread pools in a worker would fight the other workers.
SINGLE_THREADED = {'OMP_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}


def attempt(task: RunTask, cancel: threading.Event | None = None) -> Outcome | None:
    """Run ``task`` once; ``None`` when ``cancel`` was set before it ended (nothing to record)."""
    with tempfile.TemporaryDirectory(prefix='scene-sim-batch-') as folder:
        out = Path(folder)
        (out / 'task.json').write_text(json.dumps(asdict(task)))
        started = time.monotonic()
        with (out / 'log.txt').open('wb') as log:
            worker = subprocess.Popen(
                [sys.executable, '-m', 'scene_sim_ros.batch.worker', str(out / 'task.json'),
                 str(out)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, **SINGLE_THREADED},
                start_new_session=True)  # Ctrl-C reaches the batch only; it stops the workers
            status = _wait(worker, task.time_limit, started, cancel)
        wall = time.monotonic() - started
        if status == 'cancelled':
            return None
        return _outcome(task, worker.returncode, status, out, wall)


def _wait(worker: subprocess.Popen[bytes], limit: float | None, started: float,
          cancel: threading.Event | None) -> str:
    while worker.poll() is None:
        if cancel is not None and cancel.is_set():
            _kill(worker)
            return 'cancelled'
        if limit is not None and time.monotonic() - started > limit:
            _kill(worker)
            return 'timeout'
        time.sleep(POLL_S)
    return 'exited'


def _kill(worker: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    worker.wait()


def _outcome(task: RunTask, returncode: int, status: str, out: Path, wall: float) -> Outcome:
    log = (out / 'log.txt').read_text(errors='replace')[-LOG_TAIL:]
    if status == 'timeout':
        return Outcome(task.key, False, f'time limit of {task.time_limit:g} s exceeded',
                       log, wall)
    result = out / 'result.json'
    if returncode == 0 and result.is_file():
        samples = out / 'samples.npz'
        return Outcome(task.key, True, wall_s=wall, result_text=result.read_text(),
                       samples=samples.read_bytes() if samples.is_file() else None)
    error_file = out / 'error.txt'
    if error_file.is_file():
        error = json.loads(error_file.read_text())
        return Outcome(task.key, False, error['error'], error['traceback'], wall)
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return Outcome(task.key, False, f'worker killed by {name}', log, wall)
    return Outcome(task.key, False, f'worker exited with status {returncode}', log, wall)
