"""The Ray executor (optional extra scene_sim_ros[ray]) on a local Ray instance: the same results
as the local executor, bit for bit, and failed attempts recorded and retried the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from scene_sim_ros.batch import load_spec, plan_runs, run_batch
from scene_sim_ros.batch.results import ResultStore
from support.batch import write_spec

pytest.importorskip('ray', reason='Ray is the optional extra scene_sim_ros[ray] (ray==2.60.0), '
                                  'not installed here; CI installs it for this module')

SPEC = """\
scenes: [default]
seeds: [0, 1]
params:
  calm: {wheel_speed: 3.0}
  flaky: {wheel_speed: 3.0, misbehave: sigkill_once}
duration: 0.5
record:
  metrics: [distance, fallen]
  sensors: [{entity: rover, sensor: gyroscope, rate: 20}]
  hooks: {step: 'test_batch_hooks:misbehave', end: 'scene_sim_ros.batch.example_hooks:rover_position'}
output: OUT
retries: 1
"""


def test_ray_auto_gives_the_local_executors_results_bit_for_bit(batch_dir: Path,
                                                                monkeypatch) -> None:
    monkeypatch.chdir(batch_dir)
    local = load_spec(write_spec(batch_dir, SPEC.replace('OUT', 'local'), 'local.yaml'))
    on_ray = load_spec(write_spec(batch_dir, SPEC.replace('OUT', 'ray'), 'ray.yaml'))
    assert run_batch(local, workers=2, progress=False).ok
    (batch_dir / 'marks').rename(batch_dir / 'marks-local')  # misbehave again on Ray
    report = run_batch(on_ray, workers=2, ray='auto', progress=False)
    assert report.ok and report.done == 4
    store = ResultStore(batch_dir / 'ray')
    for task in plan_runs(on_ray):
        for name in ('result.json', 'samples.npz'):
            assert ((batch_dir / 'ray' / 'runs' / task.key / name).read_bytes()
                    == (batch_dir / 'local' / 'runs' / task.key / name).read_bytes())
        attempts = store.attempts(task.key)
        if task.params_name == 'flaky':
            assert [(a['ok'], a['error']) for a in attempts] == [
                (False, 'worker killed by SIGKILL'), (True, '')]
        else:
            assert [a['ok'] for a in attempts] == [True]
