"""The batch spec: what it accepts, and file:line errors for what it does not."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scene_sim_ros.batch.runs import plan_runs
from scene_sim_ros.batch.spec import load_spec
from scene_sim_ros.batch.yaml_nodes import SpecError
from scene_sim_ros.cli.main import main
from scene_sim_ros.resources import DATA_DIR, default_scene_path, example_path


def write_spec(folder: Path, text: str) -> Path:
    path = folder / 'spec.yaml'
    path.write_text(textwrap.dedent(text))
    return path


def test_spec_reads_scenes_seeds_params_and_recording(tmp_path: Path) -> None:
    (tmp_path / 'my_hooks.py').write_text('def end(sim, run):\n    return {}\n')
    spec = load_spec(write_spec(tmp_path, """\
        scenes:
          - default
          - {path: car, name: the_car}
        seeds: {from: 7, count: 3}
        params:
          slow: {wheel_speed: 1.0}
          fast: {wheel_speed: 5.0, scene_parameters: {n: 2}}
        duration: 2.5
        record:
          metrics: [distance, fallen]
          sensors: [{entity: rover, sensor: gyroscope, rate: 10}]
          hooks: {end: 'my_hooks:end'}
        output: out
        retries: 3
        time_limit: 30
        """))
    assert [(s.name, s.path) for s in spec.scenes] == [
        ('default', default_scene_path()), ('the_car', example_path('car'))]
    assert spec.seeds == (7, 8, 9)
    assert spec.param_sets == (('slow', {'wheel_speed': 1.0}),
                               ('fast', {'wheel_speed': 5.0, 'scene_parameters': {'n': 2}}))
    assert spec.record.metrics == ('distance', 'fallen')
    assert spec.record.hook('end') == 'my_hooks:end' and spec.record.hook('step') is None
    assert (spec.duration, spec.retries, spec.time_limit) == (2.5, 3, 30.0)
    runs = plan_runs(spec)
    assert len(runs) == 2 * 2 * 3
    assert len({run.key for run in runs}) == len(runs)
    assert [(r.scene_name, r.params_name, r.seed) for r in runs[:4]] == [
        ('default', 'slow', 7), ('default', 'slow', 8), ('default', 'slow', 9),
        ('default', 'fast', 7)]


def test_engines_are_an_axis_of_the_runs_and_part_of_their_identity(tmp_path: Path) -> None:
    default = load_spec(write_spec(tmp_path, 'scenes: [default]\nduration: 1\noutput: o\n'))
    assert default.engines == ('pybullet',)
    one = load_spec(write_spec(tmp_path, """\
        scenes: [default]
        engine: mujoco
        seeds: 2
        duration: 1
        output: o
        """))
    assert [r.engine for r in plan_runs(one)] == ['mujoco', 'mujoco']
    both = load_spec(write_spec(tmp_path, """\
        scenes: [default, car]
        engine: [pybullet, mujoco]
        seeds: 2
        duration: 1
        output: o
        """))
    runs = plan_runs(both)
    assert [(r.scene_name, r.engine, r.seed) for r in runs[:4]] == [
        ('default', 'pybullet', 0), ('default', 'pybullet', 1),
        ('default', 'mujoco', 0), ('default', 'mujoco', 1)]
    assert len({r.key for r in runs}) == len(runs) == 8  # the engine changes the key
    assert runs[2].identity()['engine'] == 'mujoco'


def test_run_keys_follow_scene_content_not_its_path(tmp_path: Path) -> None:
    scene = default_scene_path().read_text()
    (tmp_path / 'a.ros2').write_text(scene)
    (tmp_path / 'b.ros2').write_text(scene)
    (tmp_path / 'c.ros2').write_text(scene.replace('<Simulation>', '<Simulation> '))
    spec = load_spec(write_spec(tmp_path, """\
        scenes: [a.ros2, b.ros2, c.ros2]
        duration: 1
        output: out
        """))
    a, b, c = (run.key for run in plan_runs(spec))
    assert a == b != c


def test_shipped_example_spec_is_valid() -> None:
    spec = load_spec(DATA_DIR / 'batch' / 'example.yaml')
    assert len(plan_runs(spec)) == 12


@pytest.mark.parametrize(('text', 'line', 'message'), [
    ('scenes: [default]\nduration: 1\noutput: o\nsede: 3\n', 4, "unknown key 'sede'"),
    ('scenes: [default]\noutput: o\n', 1, "'duration'"),
    ('scenes: [default]\nduration: -1\noutput: o\n', 2, 'duration: must be > 0'),
    ('scenes: [default]\nduration: 1\noutput: o\nseeds: [1, x]\n', 4, "expected integers >= 0, got 'x'"),
    ('scenes: [default]\nduration: 1\noutput: o\nseeds: 0\n', 4, 'a count must be >= 1'),
    ('scenes:\n  - default\n  - no_such.ros2\nduration: 1\noutput: o\n', 3, 'no such file'),
    ('scenes: [default]\nduration: 1\noutput: o\nrecord:\n  metrics: [speed]\n', 5,
     "unknown metric 'speed'"),
    ('scenes: [default]\nduration: 1\noutput: o\nrecord:\n  hooks: {step: nomodule}\n', 5,
     'expected module:function'),
    ('scenes: [default]\nduration: 1\noutput: o\nrecord:\n  hooks:\n    end: absent_mod:f\n', 6,
     "no module 'absent_mod'"),
    ('scenes: [default]\nduration: 1\noutput: o\nrecord:\n  sensors:\n    - {entity: rover}\n', 6,
     "'sensor' is required"),
    ('scenes: [default]\nduration: 1\nduration: 2\noutput: o\n', 3, "'duration' given twice"),
    ('scenes: [default\nduration: 1\n', 2, 'YAML'),
    ('scenes: [default]\nduration: 1\noutput: o\nparams: [{a: 1}, 3]\n', 4, 'expected a mapping'),
    ('scenes: [default]\nduration: 1\noutput: o\nparams:\n  p: {day: 2026-11-25}\n', 5,
     'params p: Object of type date is not JSON serializable'),
    ('scenes: [default]\nduration: 1\noutput: o\nengine: ode\n', 4,
     "engine: 'ode' is not known; engines: pybullet, mujoco"),
    ('scenes: [default]\nduration: 1\noutput: o\nengine:\n  - mujoco\n  - bullet\n', 6,
     "engine: 'bullet' is not known"),
    ('scenes: [default]\nduration: 1\noutput: o\nengine: [mujoco, mujoco]\n', 4,
     'an engine is listed twice'),
])
def test_spec_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write_spec(tmp_path, text)
    with pytest.raises(SpecError) as raised:
        load_spec(path)
    assert str(raised.value).startswith(f'{path}:{line}: '), str(raised.value)
    assert message in str(raised.value)


def test_cli_reports_a_bad_spec_as_file_line_and_exit_2(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, 'scenes: [default]\nduration: 1\noutput: o\nretries: many\n')
    assert main(['batch', str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"{path}:4: retries: expected an integer >= 0, got 'many'")


def test_cli_rejects_zero_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path, 'scenes: [default]\nduration: 1\noutput: o\n')
    with pytest.raises(SystemExit) as exited:
        main(['batch', str(path), '--workers', '0'])
    assert exited.value.code == 2
    assert "--workers: expected an integer >= 1, got '0'" in capsys.readouterr().err


def test_output_from_the_command_line_replaces_the_specs_and_may_stand_alone(tmp_path: Path
                                                                            ) -> None:
    without = write_spec(tmp_path, 'scenes: [default]\nduration: 1\n')
    with pytest.raises(SpecError, match="'output'"):
        load_spec(without)
    assert load_spec(without, output=tmp_path / 'cli').output == (tmp_path / 'cli').resolve()
    given = write_spec(tmp_path, 'scenes: [default]\nduration: 1\noutput: spec_out\n')
    assert load_spec(given, output='elsewhere').output == Path('elsewhere').resolve()
    bad = write_spec(tmp_path, 'scenes: [default]\nduration: 1\noutput: 3\n')
    with pytest.raises(SpecError, match='output: expected a folder path'):
        load_spec(bad, output='elsewhere')
