"""How `scene-sim-ros run` options become node parameters and ROS arguments (the node itself
is exercised end to end in test/ros)."""

import pytest

from scene_sim_ros.cli import main as cli


@pytest.fixture
def captured(monkeypatch):
    calls = []

    def fake_run(scene, *, parameters, ros_args):
        calls.append((scene, parameters, ros_args))
        return 0

    import scene_sim_ros.ros.runtime.node as node
    monkeypatch.setattr(node, 'run', fake_run)
    return calls


def test_run_defaults_match_the_launch_file(captured):
    assert cli.main(['run']) == 0
    scene, parameters, ros_args = captured[0]
    assert scene is None and ros_args == []
    assert parameters == {'use_sim_time': True, 'gui': False, 'paused': False, 'isolate': False}


def test_run_maps_options_to_parameters_and_namespace_remap(captured):
    cli.main(['run', 'w.xml', '--paused', '--real-time-factor', '0', '--namespace', 'sim',
              '-p', 'floor_height=0.5', '--ros-args', '--log-level', 'debug'])
    scene, parameters, ros_args = captured[0]
    assert scene == 'w.xml'
    assert parameters['paused'] is True and parameters['real_time_factor'] == 0.0
    assert parameters['scene_parameters'] == ['floor_height=0.5']
    assert ros_args == ['--ros-args', '-r', '__ns:=/sim', '--log-level', 'debug']


def test_params_file_values_are_not_overridden_by_option_defaults(captured, tmp_path):
    params = tmp_path / 'p.yaml'
    params.write_text('/**:\n  ros__parameters:\n    paused: true\n')
    cli.main(['run', '--params-file', str(params), '--gui'])
    _, parameters, ros_args = captured[0]
    assert parameters == {'gui': True}
    assert ros_args == ['--ros-args', '--params-file', str(params)]


def test_run_engine_flag_sets_the_engine_parameter(captured):
    cli.main(['run', '--engine', 'mujoco'])
    _, parameters, _ = captured[0]
    assert parameters['engine'] == 'mujoco'


def test_run_refuses_an_unknown_engine_naming_the_engines(captured, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(['run', '--engine', 'ode'])
    assert exited.value.code == 2 and captured == []
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == ("scene-sim-ros run: error: argument --engine: invalid choice: 'ode' "
                    "(choose from 'pybullet', 'mujoco')")
