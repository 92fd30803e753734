"""The launch file cannot run here (no `launch` package); check what can be checked without it:
it parses, declares the CLI's options one for one (its ``generate_launch_description`` run with
launch's classes stubbed), and names executables setup.py installs."""

import ast
import importlib.util
import re
import sys
import types
from pathlib import Path

import pytest

from scene_sim_ros.cli.main import build_parser
from scene_sim_ros.ros import options

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / 'launch' / 'sim.launch.py'

LAUNCH_CLASSES = {'launch': ['LaunchDescription'],
                  'launch.actions': ['DeclareLaunchArgument', 'OpaqueFunction', 'Shutdown'],
                  'launch.substitutions': ['LaunchConfiguration'],
                  'launch_ros': [], 'launch_ros.actions': ['Node']}


class Recorded:
    """A stand-in for one of launch's classes: keeps what it was made with."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


@pytest.fixture
def launch_description(monkeypatch):
    """What the launch file's generate_launch_description returns, launch's classes stubbed."""
    for module_name, class_names in LAUNCH_CLASSES.items():
        module = types.ModuleType(module_name)
        for class_name in class_names:
            setattr(module, class_name, type(class_name, (Recorded,), {}))
        monkeypatch.setitem(sys.modules, module_name, module)
    spec = importlib.util.spec_from_file_location('sim_launch_under_test', LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_launch_description()


@pytest.fixture
def declared(launch_description) -> list[tuple[str, str, str]]:
    """(name, default, description) of each DeclareLaunchArgument of the launch file."""
    entities, = launch_description.args
    return [(a.args[0], a.kwargs['default_value'], a.kwargs['description']) for a in entities
            if type(a).__name__ == 'DeclareLaunchArgument']


@pytest.fixture
def launch_arguments(declared) -> list[str]:
    return [name for name, _, _ in declared]


def run_options() -> set[str]:
    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices['run']  # noqa: SLF001
    names = {a.dest for a in run._actions if a.dest not in ('help', 'param', 'strict')}  # noqa: SLF001
    return names


def test_launch_file_defines_generate_launch_description():
    tree = ast.parse(LAUNCH_FILE.read_text())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert 'generate_launch_description' in functions


def test_launch_arguments_match_cli_run_options_one_for_one(launch_arguments):
    assert set(launch_arguments) == run_options()


def test_launch_arguments_are_the_option_tables(declared):
    assert declared == options.launch_arguments()
    setup = ast.parse(LAUNCH_FILE.read_text())
    called = {n.func.id for n in ast.walk(setup) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name)}
    assert {'launch_values', 'launch_parameters', 'robot_state_publishers'} <= called


def test_launch_file_starts_executables_that_setup_py_installs():
    executables = set(re.findall(r"executable='(\w+)'", LAUNCH_FILE.read_text()))
    setup = (ROOT / 'setup.py').read_text()
    ours = {e for e in executables if e not in ('rviz2', 'robot_state_publisher')}
    assert ours == {'sim_node'}
    assert re.search(r"'sim_node\s*=\s*scene_sim_ros\.ros\.runtime\.node:main'", setup)


def test_launch_file_is_installed_under_share():
    setup = (ROOT / 'setup.py').read_text()
    assert 'launch' in setup and '.launch.py' in setup


def launched_parameters(**given: str) -> dict:
    """The sim node's parameters for launch arguments ``given`` (the others at their default)."""
    texts = {name: default for name, default, _ in options.launch_arguments()}
    return options.launch_parameters(options.launch_values({**texts, **given}))


def test_launch_defaults_give_the_node_every_on_off_option_and_the_real_time_factor():
    assert launched_parameters() == {
        'scene': '', 'use_sim_time': True, 'gui': False, 'real_time_factor': 1.0,
        'paused': False, 'publish_link_tf': True, 'isolate': False}


def test_launch_arguments_become_parameters_as_run_options_do(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parameters = launched_parameters(
        renderer='tiny', real_time_factor='0', worlds=f'w1:{tmp_path / "w2"}', record='out.mcap',
        foxglove='9000', robot_state_publisher='true', offline='true')
    assert parameters['renderer'] == 'tiny' and parameters['real_time_factor'] == 0.0
    assert parameters['worlds.paths'] == [str(tmp_path.resolve() / 'w1'), str(tmp_path / 'w2')]
    assert parameters['record.path'] == str(tmp_path.resolve() / 'out.mcap')
    assert parameters['foxglove.port'] == 9000 and parameters['publish_link_tf'] is False
    assert parameters['scene_parameters'] == ['webots.download=false']
    for off in ('0', 'off', ''):
        assert 'foxglove.port' not in launched_parameters(foxglove=off)


def test_launch_engine_argument_sets_the_engine_and_its_default_leaves_it_to_params_file():
    assert launched_parameters(engine='mujoco')['engine'] == 'mujoco'
    assert 'engine' not in launched_parameters()  # engine:= empty: params_file, else pybullet
