"""The local executor end to end: real worker processes, real PyBullet runs of the default scene.

Failures are provoked by the hooks in ``support.batch`` (a raise, a SIGKILL of the worker, a
hang past the time limit); the batch must record them, retry, and finish the other runs.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from scene_sim_ros.batch import load_spec, plan_runs, run_batch
from scene_sim_ros.batch.results import ResultStore
from support.batch import alive, worker_pids, write_spec

SPEC = """\
scenes: [default]
seeds: 2
params:
  calm: {}
  raise_once: {misbehave: raise_once}
  sigkill_once: {misbehave: sigkill_once}
  raise_always: {misbehave: raise_always}
duration: 0.3
record:
  metrics: [distance, fallen]
  hooks: {step: 'test_batch_hooks:misbehave'}
output: out
retries: 1
time_limit: 60
"""


def summary_rows(folder: Path) -> list[dict[str, str]]:
    with (folder / 'summary.csv').open() as stream:
        return list(csv.DictReader(stream))


def test_failed_attempts_are_recorded_retried_and_the_rest_completes(batch_dir: Path,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(batch_dir)
    spec = load_spec(write_spec(batch_dir, SPEC))
    report = run_batch(spec, workers=2, progress=False)
    assert (report.total, report.done, report.failed, report.skipped) == (8, 6, 2, 0)
    store = ResultStore(batch_dir / 'out')
    by_params = {}
    for task in plan_runs(spec):
        by_params.setdefault(task.params_name, []).append(store.attempts(task.key))
    for attempts in by_params['calm']:
        assert [a['ok'] for a in attempts] == [True]
    for attempts in by_params['raise_once']:
        assert [a['ok'] for a in attempts] == [False, True]
        assert attempts[0]['error'] == 'RuntimeError: hook failed on purpose'
        assert 'test_batch_hooks.py' in attempts[0]['detail']  # the traceback's tail
    for attempts in by_params['sigkill_once']:
        assert [a['ok'] for a in attempts] == [False, True]
        assert attempts[0]['error'] == 'worker killed by SIGKILL'
    for attempts in by_params['raise_always']:
        assert [(a['ok'], a['error']) for a in attempts] == [
            (False, 'RuntimeError: hook always fails')] * 2
    rows = summary_rows(batch_dir / 'out')
    assert [(r['params'], r['seed'], r['status'], r['attempts']) for r in rows] == [
        ('calm', '0', 'ok', '1'), ('calm', '1', 'ok', '1'),
        ('raise_once', '0', 'ok', '2'), ('raise_once', '1', 'ok', '2'),
        ('sigkill_once', '0', 'ok', '2'), ('sigkill_once', '1', 'ok', '2'),
        ('raise_always', '0', 'failed', '2'), ('raise_always', '1', 'failed', '2')]
    assert rows[-1]['error'] == 'RuntimeError: hook always fails'
    for row in rows[:6]:  # complete results: 0.3 s of a 10 ms scene, metrics of every mover
        result = store.result(row['key'])
        assert result is not None and result['steps'] == 30
        assert set(result['metrics']['distance']) == {'ball', 'rover'}
        assert result['metrics']['fallen'] == []
        assert set(result['final_poses']) >= {'rover', 'ball', 'ground'}
    assert not [pid for pid in worker_pids(batch_dir) if alive(pid)]


def test_rerun_skips_finished_runs_and_retries_failed_ones(batch_dir: Path, monkeypatch) -> None:
    monkeypatch.chdir(batch_dir)
    spec = load_spec(write_spec(batch_dir, SPEC))
    run_batch(spec, workers=2, progress=False)
    store = ResultStore(batch_dir / 'out')
    before = {t.key: (store.folder(t.key) / 'result.json').read_bytes()
              for t in plan_runs(spec) if store.finished(t.key)}
    report = run_batch(spec, workers=2, retries=0, progress=False)
    assert (report.skipped, report.done, report.failed) == (6, 6, 2)
    for task in plan_runs(spec):
        attempts = store.attempts(task.key)
        if task.key in before:  # untouched: no attempt added, same bytes
            assert len(attempts) <= 2 and attempts[-1]['ok']
            assert (store.folder(task.key) / 'result.json').read_bytes() == before[task.key]
        else:  # the always-failing ones ran once more (retries=0)
            assert [a['ok'] for a in attempts] == [False, False, False]


def test_a_run_over_its_time_limit_is_stopped_and_recorded_failed(batch_dir: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.chdir(batch_dir)
    spec = load_spec(write_spec(batch_dir, """\
        scenes: [default]
        params: {calm: {}, hang: {misbehave: hang}}
        duration: 0.3
        record: {hooks: {step: 'test_batch_hooks:misbehave'}}
        output: out
        retries: 0
        time_limit: 4
        """))
    report = run_batch(spec, workers=2, progress=False)
    assert (report.done, report.failed) == (1, 1)
    rows = summary_rows(batch_dir / 'out')
    assert [(r['params'], r['status'], r['error']) for r in rows] == [
        ('calm', 'ok', ''), ('hang', 'failed', 'time limit of 4 s exceeded')]
    assert not [pid for pid in worker_pids(batch_dir) if alive(pid)]


def test_results_are_bit_identical_on_rerun_and_differ_between_seeds(tmp_path: Path,
                                                                    monkeypatch) -> None:
    # the example hooks steer from the run's seeded generator; the gyroscope is sampled
    monkeypatch.chdir(tmp_path)
    text = """\
        scenes: [default]
        seeds: [3, 4]
        params: {p: {wheel_speed: 4.0}}
        duration: 1.0
        record:
          metrics: [distance, fallen]
          sensors: [{entity: rover, sensor: gyroscope, rate: 20},
                    {entity: rover, sensor: bumper, rate: 10}]
          hooks: {step: 'scene_sim_ros.batch.example_hooks:wander',
                  end: 'scene_sim_ros.batch.example_hooks:rover_position'}
        output: OUT
        """
    first = load_spec(write_spec(tmp_path, text.replace('OUT', 'first'), 'a.yaml'))
    second = load_spec(write_spec(tmp_path, text.replace('OUT', 'second'), 'b.yaml'))
    assert run_batch(first, workers=2, progress=False).ok
    assert run_batch(second, workers=1, progress=False).ok
    files = sorted(p.relative_to(tmp_path / 'first') for p in (tmp_path / 'first' / 'runs').rglob('*')
                   if p.name in ('result.json', 'samples.npz'))
    assert len(files) == 4
    for name in files:
        assert (tmp_path / 'first' / name).read_bytes() == (tmp_path / 'second' / name).read_bytes()
    seed3, seed4 = (json.loads((tmp_path / 'first' / 'runs' / t.key / 'result.json').read_text())
                    for t in plan_runs(first))
    assert seed3['hook']['rover_x'] != seed4['hook']['rover_x']
    import numpy as np
    with np.load(tmp_path / 'first' / 'runs' / plan_runs(first)[0].key / 'samples.npz') as samples:
        assert samples['rover/gyroscope'].shape == (20, 3)
        assert samples['rover/gyroscope/t'][0] == 0.05
        assert samples['rover/bumper/in_contact'].shape == (10,)


def test_scenes_of_equal_bytes_run_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    scene = (Path(__file__).parents[2] / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2')
    for name in ('a.ros2', 'b.ros2'):
        (tmp_path / name).write_bytes(scene.read_bytes())
    spec = load_spec(write_spec(tmp_path, """\
        scenes: [a.ros2, b.ros2]
        duration: 0.1
        output: out
        """))
    report = run_batch(spec, workers=2, progress=False)
    assert (report.total, report.done) == (1, 1)
    rows = summary_rows(tmp_path / 'out')
    assert [(r['scene'], r['status'], r['key']) for r in rows] == [
        ('a', 'ok', rows[0]['key']), ('b', 'ok', rows[0]['key'])]
    assert len(ResultStore(tmp_path / 'out').attempts(rows[0]['key'])) == 1


ENGINE_HOOK = """\
def end(sim, run):
    return {'engine': run.engine, 'simulation': type(sim).__name__}
"""


def test_each_run_is_made_in_the_engine_of_the_spec_and_says_which(tmp_path: Path,
                                                                    monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'engine_hook.py').write_text(ENGINE_HOOK)
    spec = load_spec(write_spec(tmp_path, """\
        scenes: [default]
        engine: [pybullet, mujoco]
        duration: 0.2
        record: {metrics: [distance], hooks: {end: 'engine_hook:end'}}
        output: out
        """))
    assert run_batch(spec, workers=2, progress=False).ok
    rows = summary_rows(tmp_path / 'out')
    assert [(r['engine'], r['status'], r['hook.simulation']) for r in rows] == [
        ('pybullet', 'ok', 'Simulation'), ('mujoco', 'ok', 'MujocoSimulation')]
    store = ResultStore(tmp_path / 'out')
    for row in rows:
        result = store.result(row['key'])
        assert result['engine'] == result['hook']['engine'] == row['engine']
        assert result['steps'] == 20 and set(result['metrics']['distance']) == {'ball', 'rover'}


NOISY_WORLD = """\
#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 10 }
Solid { translation 2 0 0.5 name "wall" children [ Shape { geometry Box { size 0.1 4 1 } } ]
        boundingObject Box { size 0.1 4 1 } }
Robot { translation 0 0 0.5 name "bot" children [
  Lidar { horizontalResolution 16 numberOfLayers 1 fieldOfView 1.0 maxRange 8 noise 0.05 } ] }
"""


def test_sensor_noise_follows_the_run_seed_as_in_the_simulation(tmp_path: Path,
                                                                monkeypatch) -> None:
    import numpy as np

    from scene_sim_ros import Simulation, load_scene
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'noisy.wbt').write_text(NOISY_WORLD)
    text = """\
        scenes: [noisy.wbt]
        seeds: [0, 1]
        duration: 0.2
        record: {sensors: [{entity: bot, sensor: lidar, rate: 50}]}
        output: OUT
        """
    first = load_spec(write_spec(tmp_path, text.replace('OUT', 'first'), 'a.yaml'))
    second = load_spec(write_spec(tmp_path, text.replace('OUT', 'second'), 'b.yaml'))
    assert run_batch(first, workers=2, progress=False).ok
    assert run_batch(second, workers=2, progress=False).ok
    seeds = {}
    for task in plan_runs(first):
        files = [Path(out, 'runs', task.key, 'samples.npz').read_bytes()
                 for out in ('first', 'second')]
        assert files[0] == files[1]
        with np.load(tmp_path / 'first' / 'runs' / task.key / 'samples.npz') as samples:
            seeds[task.seed] = samples['bot/lidar']
    assert seeds[0].shape == (10, 1, 16)
    assert not np.array_equal(seeds[0], seeds[1])
    # the same numbers as a Simulation seeded alike, read every 2nd step (the batch adds none)
    with Simulation(load_scene(tmp_path / 'noisy.wbt'), seed=1) as sim:
        direct = []
        for _ in range(20):
            sim.step(1)
            if sim.steps % 2 == 0:
                direct.append(sim.read('bot', 'lidar'))
    assert np.array_equal(np.stack(direct), seeds[1])
