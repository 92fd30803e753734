"""The client commands' command line without a simulation: ``--version``, help and examples,
ROS-syntax ``-p NAME:=VALUE`` answered with the right form, and the value parsers (YAML-ish
parameter values, joint values, poses). The commands against a live node:
test/ros/test_cli_client.py.
"""

from __future__ import annotations

import math
import re

import pytest

from scene_sim_ros.cli.client.values import BadValue, parse_assignments, parse_pose, parse_value
from scene_sim_ros.cli.client_commands import COMMANDS
from support.cli import REPO, cli


def test_version_is_the_package_version() -> None:
    result = cli('--version')
    version = re.search(r'<version>\s*([^<\s]+)', (REPO / 'package.xml').read_text()).group(1)
    assert result.returncode == 0 and result.stdout.strip() == f'scene-sim-ros {version}'


def test_help_epilog_shows_every_client_command_with_shipped_files_only() -> None:
    out = cli('--help').stdout
    for command in COMMANDS:
        assert re.search(rf'^\s+scene-sim-ros {command}\b|; scene-sim-ros {command}\b', out,
                         re.MULTILINE), command
    for path in re.findall(r'scene_sim_ros/\S+?\.ros2', out):
        assert (REPO / path).is_file(), path


@pytest.mark.parametrize('command', COMMANDS)
def test_help_of_each_client_command_shows_an_example(command: str) -> None:
    result = cli(command, '--help')
    assert result.returncode == 0 and result.stdout.startswith(f'usage: scene-sim-ros {command}')
    assert re.search(rf'examples?:.*scene-sim-ros {command}\b', result.stdout, re.DOTALL)


@pytest.mark.parametrize('item, hint', [
    ('real_time_factor:=0', '--real-time-factor 0'),
    ('paused:=true', '--paused'),
    ('use_sim_time:=false', '--no-use-sim-time'),
    ('seed:=3', None)])
def test_run_with_ros_parameter_syntax_answers_with_the_right_form(item: str, hint: str) -> None:
    result = cli('run', '-p', item)
    assert result.returncode == 2 and result.stdout == ''
    (line,) = result.stderr.strip().splitlines()
    assert f'--ros-args -p {item}' in line
    assert (hint in line) if hint else ' or ' not in line.split('(')[0]


def test_inspect_with_ros_parameter_syntax_is_refused_too() -> None:
    result = cli('inspect', 'scene_sim_ros/data/scenes/default.ros2', '-p', 'floor:=0')
    assert result.returncode == 2 and 'ROS syntax' in result.stderr


@pytest.mark.parametrize('text, value', [
    ('1', 1), ('-3', -3), ('1.5', 1.5), ('1e3', 1000.0), ('true', True), ('False', False),
    ('hello', 'hello'), ("'007'", '007'), ('"true"', 'true'), ('[1, 2]', [1, 2]),
    ('[1, 2.5]', [1.0, 2.5]), ('[a, b]', ['a', 'b']), ('[true, false]', [True, False]),
    ('', '')])
def test_parse_value_like_ros2_param_set(text: str, value: object) -> None:
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)
    if isinstance(value, list):
        assert [type(v) for v in parsed] == [type(v) for v in value]


@pytest.mark.parametrize('text', ['[1, a]', '[[1], [2]]', '[true, 1]'])
def test_parse_value_refuses_mixed_arrays(text: str) -> None:
    with pytest.raises(BadValue):
        parse_value(text)


def test_parse_assignments_and_poses() -> None:
    assert parse_assignments(['a=1', 'b=-0.5']) == [('a', 1.0), ('b', -0.5)]
    for bad in (['a'], ['=1'], ['a=x'], ['a=inf'], ['a=1', 'a=2']):
        with pytest.raises(BadValue):
            parse_assignments(bad)
    position, quaternion = parse_pose(['1', '2', '3', '0', '0', str(math.pi / 2)])
    assert position == (1.0, 2.0, 3.0)
    assert quaternion == pytest.approx((0, 0, math.sqrt(0.5), math.sqrt(0.5)))
    assert parse_pose(['0', '0', '0', str(math.pi), '0', '0'])[1] == pytest.approx((1, 0, 0, 0),
                                                                                  abs=1e-12)
    with pytest.raises(BadValue, match='x y z'):
        parse_pose(['1', '2'])
