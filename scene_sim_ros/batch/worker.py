"""One run, start to end, in this process: load the scene, step it for the spec's duration with
the recorders and hooks, and return the results. No ROS.

``python -m scene_sim_ros.batch.worker TASK.json OUT_DIR`` is how the executors start a run: a
fresh process per attempt, so that a crash, a leak or a SIGKILL costs that attempt only. It
writes ``result.json`` and ``samples.npz`` into OUT_DIR, or ``error.txt`` and exits 1.
"""

from __future__ import annotations

import json
import os
import random
import sys
import traceback
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scene_sim_ros.batch.results import write_npz
from scene_sim_ros.batch.runs import RunTask, file_sha256
from scene_sim_ros.batch.spec import importable_from, resolve_hook
from scene_sim_ros.sim.engines import ENGINES

PARENT_CHECK_STEPS = 200  # how often a worker looks whether the batch that started it is gone


@dataclass
class RunContext:
    """What a hook gets besides the simulation: the run's identity (``engine``: the physics
    engine it runs in), a generator seeded from the run's seed (use it, not global randomness, to
    keep runs reproducible) and ``record``, a dict whose JSON-ready contents are stored in the
    results under ``hook``."""

    scene: str
    seed: int
    params: dict[str, Any]
    duration: float
    rng: np.random.Generator
    engine: str = ENGINES[0]
    record: dict[str, Any] = field(default_factory=dict)


def execute(task: RunTask, parent_pid: int | None = None
            ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Run ``task``; returns (result mapping, sample arrays)."""
    from scene_sim_ros.batch.recording import RunRecorder
    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.sim.engines import create_simulator
    path = Path(task.scene_path)
    if file_sha256(path) != task.scene_sha256:
        raise RuntimeError(f'{path} differs from the file the batch was planned with (another '
                           'version on this machine?)')
    random.seed(task.seed)      # hooks that use the global generators stay reproducible too
    np.random.seed(task.seed)
    scene_parameters = {str(k): str(v) for k, v in task.params.get('scene_parameters', {}).items()}
    scene = load_scene(path, parameters=scene_parameters)
    recording = task.recording()
    with importable_from(Path(task.hook_dir)):
        step_hook = _hook(recording.hook('step'))
        end_hook = _hook(recording.hook('end'))
    context = RunContext(task.scene_name, task.seed, task.params, task.duration,
                         np.random.default_rng(task.seed), task.engine)
    with closing(create_simulator(scene, task.engine, seed=task.seed)) as sim:
        recorder = RunRecorder(sim, recording)
        steps = round(task.duration / sim.step_length)
        for _ in range(steps):
            sim.step(1)
            recorder.after_step(sim)
            if step_hook is not None:
                step_hook(sim, context)
            if parent_pid is not None and sim.steps % PARENT_CHECK_STEPS == 0:
                _exit_if_orphaned(parent_pid)
        if end_hook is not None:
            returned = end_hook(sim, context)
            if returned is not None:
                context.record.update(returned)
        result = {**task.identity(), **recorder.result(sim)}
        arrays = recorder.arrays()
    if context.record:
        result['hook'] = json.loads(json.dumps(context.record, default=_plain))
    return result, arrays


def _hook(target: str | None) -> Any:
    return None if target is None else resolve_hook(target)


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f'hook recorded {type(value).__name__}, not JSON-ready')


def _exit_if_orphaned(parent_pid: int) -> None:
    if os.getppid() != parent_pid:  # the batch was killed: nobody will read this run
        os._exit(3)


def main(argv: list[str] | None = None) -> int:
    task_file, out_dir = (argv if argv is not None else sys.argv[1:])[:2]
    out = Path(out_dir)
    task = RunTask(**json.loads(Path(task_file).read_text()))
    try:
        result, arrays = execute(task, parent_pid=os.getppid())
    except Exception as err:  # noqa: BLE001 - any failure of the run is the run's result
        (out / 'error.txt').write_text(json.dumps({
            'error': f'{type(err).__name__}: {err}',
            'traceback': ''.join(traceback.format_exc().splitlines(True)[-12:])}))
        return 1
    if arrays:
        write_npz(out / 'samples.npz', arrays)
    (out / 'result.json').write_text(result_json(result))
    return 0


def result_json(result: dict[str, Any]) -> str:
    """The result file's text: sorted keys, floats as Python's shortest round-trip repr."""
    return json.dumps(result, sort_keys=True, indent=1) + '\n'


if __name__ == '__main__':
    sys.exit(main())
