"""The launch file cannot run here (no `launch` package); check what can be checked statically:
it parses, declares the CLI's options one for one, and names executables setup.py installs."""

import ast
import re
from pathlib import Path

from scene_sim_ros.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / 'launch' / 'sim.launch.py'


def launch_arguments() -> list[str]:
    tree = ast.parse(LAUNCH_FILE.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == 'ARGUMENTS' for t in node.targets):
            return [ast.literal_eval(elt)[0] for elt in node.value.elts]
    raise AssertionError('ARGUMENTS table not found')


def run_options() -> set[str]:
    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices['run']  # noqa: SLF001
    names = {a.dest for a in run._actions if a.dest not in ('help', 'param', 'strict')}  # noqa: SLF001
    return names


def test_launch_file_defines_generate_launch_description():
    tree = ast.parse(LAUNCH_FILE.read_text())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert 'generate_launch_description' in functions


def test_launch_arguments_match_cli_run_options_one_for_one():
    assert set(launch_arguments()) == run_options()


def test_launch_file_starts_executables_that_setup_py_installs():
    executables = set(re.findall(r"executable='(\w+)'", LAUNCH_FILE.read_text()))
    setup = (ROOT / 'setup.py').read_text()
    ours = {e for e in executables if e not in ('rviz2', 'robot_state_publisher')}
    assert ours == {'sim_node'}
    assert re.search(r"'sim_node\s*=\s*scene_sim_ros\.ros\.runtime\.node:main'", setup)


def test_launch_file_is_installed_under_share():
    setup = (ROOT / 'setup.py').read_text()
    assert 'launch' in setup and '.launch.py' in setup
