"""The ``scene-sim-ros`` command as a user runs it: the installed console script in a subprocess.

Covers the contract of docs/architecture.md for ``inspect --json`` on every scene that ships,
scene errors (exit 2, ``file:line: message`` on stderr, nothing on stdout), ``urdf``, ``topics``
and the ``--help`` of every command. ``test_cli_corpus.py`` runs ``inspect`` on one real file of
every format from the corpus.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from support.cli import (
    REPO,
    assert_scene_error,
    cli,
    inspect_json,
    params,
    robots,
)
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

DEFAULT_SCENE = REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'
VEHICLE = CORPUS / 'simrobot' / 'SimRobot' / 'Scenes' / 'SimpleVehicle.ros2'
WEBOTS_CAMERA = CORPUS / 'webots' / 'webots' / 'projects' / 'samples' / 'devices' / 'worlds' / 'camera.wbt'


# -- inspect --json ------------------------------------------------------------------------------

RAISIM_EXAMPLE = REPO / 'scene_sim_ros' / 'data' / 'examples' / 'raisim_world.xml'


def test_inspect_json_raisim_example_with_and_without_its_parameters() -> None:
    """The templated-world feature on the RaiSim world that ships: its <params> defaults apply
    without --param, and --param overrides them (the <array> end is exclusive)."""
    defaults = {e.tag: e.get('value') for e in ET.parse(RAISIM_EXAMPLE).find('params')}
    assert set(defaults) == {'box_count', 'rover_x'}

    def boxes(summary):
        return [e['name'] for e in summary['entities'] if e['name'].startswith('box_')]
    plain = inspect_json(RAISIM_EXAMPLE)
    assert plain['format'] == 'raisim'
    assert len(boxes(plain)) == int(defaults['box_count'])
    given = inspect_json(RAISIM_EXAMPLE, *params({'box_count': '5', 'rover_x': '-1'}))
    assert boxes(given) == [f'box_{i}' for i in range(5)]
    assert len(robots(given)) == 1 and len(robots(given)['rover']['joints']) == 4


def test_inspect_shipped_world_given_by_a_relative_path(tmp_path: Path) -> None:
    relative = os.path.relpath(RAISIM_EXAMPLE, tmp_path)
    result = cli('inspect', '--json', relative, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(robots(json.loads(result.stdout))) == ['rover']


def test_inspect_json_default_scene_reports_the_rover() -> None:
    summary = inspect_json(DEFAULT_SCENE)
    assert 'rover' in robots(summary)


def test_inspect_text_summary_of_the_default_scene() -> None:
    result = cli('inspect', DEFAULT_SCENE)
    assert result.returncode == 0, result.stderr
    assert 'rover' in result.stdout


# -- inspect: the engine a run would use, and why -------------------------------------------------

def test_inspect_says_which_engine_a_run_would_use_and_why(tmp_path: Path) -> None:
    text = cli('inspect', DEFAULT_SCENE)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()  # next to the servo law's decision (the dialect)
    assert lines[2].startswith('  dialect: ') and lines[3] == (
        '  engine: pybullet (the default; --engine or the parameter engine choose mujoco)')
    params_file = tmp_path / 'params.yaml'
    params_file.write_text('/**:\n  ros__parameters:\n    engine: mujoco\n')
    assert inspect_json(DEFAULT_SCENE, '--params-file', str(params_file))['engine'] == {
        'name': 'mujoco', 'chosen_by': 'parameter',
        'reason': f'parameter engine in {params_file}'}
    # options given win over the parameters file, as for run
    flag = inspect_json(DEFAULT_SCENE, '--params-file', str(params_file), '--engine', 'pybullet')
    assert flag['engine'] == {'name': 'pybullet', 'chosen_by': 'flag', 'reason': '--engine'}


def test_inspect_refuses_a_parameters_file_naming_an_unknown_engine_in_one_line(tmp_path: Path
                                                                                ) -> None:
    params_file = tmp_path / 'params.yaml'
    params_file.write_text('scene_sim:\n  ros__parameters:\n    engine: ode\n')
    result = cli('inspect', DEFAULT_SCENE, '--params-file', params_file)
    assert result.returncode == 2 and result.stdout == ''
    assert result.stderr.strip() == (f"scene-sim-ros inspect: error: {params_file}: engine 'ode' "
                                     'is not known; engines: pybullet, mujoco')


@pytest.mark.parametrize(('text', 'engine'), [
    ('/**:\n  ros__parameters: {engine: mujoco}\n', 'mujoco'),
    ('/sim/scene_sim:\n  ros__parameters: {engine: mujoco}\n', 'mujoco'),
    ('/**:\n  ros__parameters: {engine: mujoco}\nscene_sim:\n  ros__parameters: {engine: pybullet}\n',
     'pybullet'),  # the later section wins, as rcl reads the file
    ('other_node:\n  ros__parameters: {engine: mujoco}\n', None),
    ('/**:\n  ros__parameters: {paused: true}\n', None),
    ('', None),
])
def test_the_engine_of_a_parameters_file_is_read_for_the_sim_node(tmp_path: Path, text: str,
                                                                   engine: str | None) -> None:
    from scene_sim_ros.cli.engine_choice import params_file_engine
    path = tmp_path / 'params.yaml'
    path.write_text(text)
    assert params_file_engine(path) == engine


# -- scene errors -------------------------------------------------------------------------------

BROKEN_SCENE = """\
<Simulation>
<Scene name="Broken">
<Body name="b">
<SphereMass value="1kg" radius="1"/>
<BoxGeometry depth="1" width="1"/>
</Body>
<Body ref="Ghost"/>
</Scene>
</Simulation>
"""


@pytest.mark.parametrize('as_json', [False, True], ids=['text', 'json'])
def test_inspect_malformed_scene_exits_2_with_file_line_messages(tmp_path: Path, as_json: bool) -> None:
    scene = tmp_path / 'broken.ros2'
    scene.write_text(BROKEN_SCENE)
    result = cli('inspect', *(['--json'] if as_json else []), scene, cwd=tmp_path)
    matches = assert_scene_error(result)
    found = {(Path(m['file']).name, int(m['line'])): m['message'] for m in matches}
    assert 'height' in found[('broken.ros2', 5)] and 'BoxGeometry' in found[('broken.ros2', 5)]
    assert 'Ghost' in found[('broken.ros2', 7)]


def test_inspect_unknown_extension_lists_the_supported_ones(tmp_path: Path) -> None:
    scene = tmp_path / 'world.sdf'
    scene.write_text('<sdf version="1.6"><world name="w"/></sdf>\n')
    result = cli('inspect', scene)
    assert result.returncode == 2 and result.stdout == ''
    assert '.sdf' in result.stderr
    for extension in ('.ros2', '.rsi2', '.wbt', '.xml', '.urdf'):
        assert extension in result.stderr


def test_inspect_missing_file_exits_2(tmp_path: Path) -> None:
    result = cli('inspect', tmp_path / 'nowhere.ros2')
    assert result.returncode == 2 and result.stdout == ''
    assert 'nowhere.ros2' in result.stderr


# -- urdf ---------------------------------------------------------------------------------------

CAR = REPO / 'scene_sim_ros' / 'data' / 'examples' / 'car.ros2'
SCOUT = REPO / 'scene_sim_ros' / 'data' / 'examples' / 'webots_scout.wbt'
# the car example always, SimRobot's SimpleVehicle where the corpus is present
VEHICLES = [CAR] + [VEHICLE] * VEHICLE.exists()


@pytest.mark.parametrize('scene', VEHICLES, ids=shipped_ids(VEHICLES, CORPUS))
def test_urdf_of_an_entity_parses_with_its_links_and_joints(tmp_path: Path, scene: Path) -> None:
    summary = inspect_json(scene)
    car = robots(summary)['car']
    assert car['joints']
    result = cli('urdf', scene, '--entity', 'car', '--mesh-dir', tmp_path)
    assert result.returncode == 0, result.stderr
    robot = ET.fromstring(result.stdout)
    assert robot.tag == 'robot'
    assert len(robot.findall('link')) == car['links']
    urdf_joints = {j.get('name'): j for j in robot.findall('joint')}
    for joint in car['joints']:
        assert joint['name'] in urdf_joints
        element = urdf_joints[joint['name']]
        assert element.get('type') in ('revolute', 'continuous', 'prismatic')
        axis = [float(v) for v in element.find('axis').get('xyz').split()]
        assert axis == pytest.approx(joint['axis'], abs=1e-6)
    links = {link.get('name') for link in robot.findall('link')}
    for element in urdf_joints.values():   # the tree is closed: every joint joins known links
        assert {element.find('parent').get('link'), element.find('child').get('link')} <= links


def scout_motors() -> set[str]:
    """The motor names of the Webots example's PROTO, read from its text."""
    text = (SCOUT.parent / 'ScoutRobot.proto').read_text()
    return set(re.findall(r'RotationalMotor\s*\{\s*name\s+"([^"]+)"', text))


# the Webots world that ships always, the corpus's camera.wbt where present
WEBOTS_ROBOTS = [(SCOUT, 'scout', scout_motors())] + [
    (WEBOTS_CAMERA, 'MyBot', {'left wheel motor', 'right wheel motor'})] * WEBOTS_CAMERA.exists()


@pytest.mark.parametrize('world, entity, motors', WEBOTS_ROBOTS,
                         ids=shipped_ids([w for w, _, _ in WEBOTS_ROBOTS], CORPUS))
def test_urdf_of_a_webots_robot_parses(world: Path, entity: str, motors: set[str]) -> None:
    assert len(motors) >= 2
    result = cli('urdf', world, '--entity', entity)
    assert result.returncode == 0, result.stderr
    robot = ET.fromstring(result.stdout)
    assert {j.get('name') for j in robot.findall('joint')} >= motors


@pytest.mark.parametrize('scene', VEHICLES, ids=shipped_ids(VEHICLES, CORPUS))
def test_urdf_unknown_entity_exits_2_naming_the_entities(scene: Path) -> None:
    result = cli('urdf', scene, '--entity', 'spaceship')
    assert result.returncode == 2 and result.stdout == ''
    assert 'spaceship' in result.stderr
    # every entity of the scene, as its file names them (SimRobot: <Body>/<Compound name=...>
    # directly in the <Scene>)
    scene_text = scene.read_text()
    top = re.findall(r'^    <(?:Body|Compound)\b[^>]*?\bname="([^"]+)"', scene_text, re.MULTILINE)
    assert 'car' in top and len(top) >= 2
    for name in top:
        assert name in result.stderr, name


# -- every scene that ships: inspect --json and topics ------------------------------------------

SHIPPED = shipped()


def movable_joint_count(robot) -> int:
    return sum(j.type in ('revolute', 'prismatic', 'continuous') for j in robot.joints)


@pytest.mark.parametrize('scene', SHIPPED, ids=shipped_ids(SHIPPED))
def test_inspect_json_of_every_shipped_scene_matches_the_loaded_scene(scene: Path) -> None:
    from scene_sim_ros import load_scene
    from scene_sim_ros.resources import example_format
    summary = inspect_json(scene)
    loaded = load_scene(scene)
    assert summary['format'] == example_format(scene) == loaded.format
    assert summary['step_length'] == pytest.approx(loaded.step_length)
    assert [(e['name'], e['kind']) for e in summary['entities']] == \
        [(e.name, e.kind) for e in loaded.entities]
    assert robots(summary), 'every shipped scene has a robot'
    for entity in loaded.entities:
        if entity.kind != 'robot':
            continue
        listed = robots(summary)[entity.name]
        assert [j['name'] for j in listed['joints']] == [j.name for j in entity.movable_joints]
        assert len(listed['joints']) == movable_joint_count(entity) > 0
        assert sorted(s['name'] for s in listed['sensors']) == sorted(s.name for s in entity.sensors)
        assert listed['mass'] == pytest.approx(entity.mass)


@pytest.mark.parametrize('scene', SHIPPED, ids=shipped_ids(SHIPPED))
def test_topics_of_every_shipped_scene_list_each_robots_joint_interfaces(scene: Path) -> None:
    from scene_sim_ros import load_scene
    result = cli('topics', scene)
    assert result.returncode == 0, result.stderr
    rows = {tuple(line.split()[:3]) for line in result.stdout.splitlines() if line.strip()}
    assert ('pub', '/clock', 'rosgraph_msgs/msg/Clock') in rows
    for entity in load_scene(scene).entities:
        if entity.kind == 'robot':
            assert ('pub', f'/{entity.name}/joint_states', 'sensor_msgs/msg/JointState') in rows
            assert ('sub', f'/{entity.name}/joint_commands', 'sensor_msgs/msg/JointState') in rows


# -- topics -------------------------------------------------------------------------------------

def test_topics_of_the_default_scene_lists_the_rover_interfaces() -> None:
    result = cli('topics', DEFAULT_SCENE)
    assert result.returncode == 0, result.stderr
    rows = {tuple(line.split()) for line in result.stdout.splitlines() if line.strip()}
    for row in [('pub', '/clock', 'rosgraph_msgs/msg/Clock'),
                ('pub', '/tf', 'tf2_msgs/msg/TFMessage'),
                ('pub', '/rover/joint_states', 'sensor_msgs/msg/JointState'),
                ('pub', '/rover/camera/image_raw', 'sensor_msgs/msg/Image'),
                ('pub', '/rover/imu/data_raw', 'sensor_msgs/msg/Imu'),
                ('sub', '/rover/joint_commands', 'sensor_msgs/msg/JointState')]:
        assert row in rows, row


def test_topics_namespace_prefixes_the_entity_topics_but_not_tf() -> None:
    result = cli('topics', DEFAULT_SCENE, '--namespace', 'sim')
    assert result.returncode == 0, result.stderr
    topics = {line.split()[1] for line in result.stdout.splitlines() if line.strip()}
    assert '/sim/rover/joint_states' in topics and '/rover/joint_states' not in topics
    assert '/tf' in topics


# -- help ---------------------------------------------------------------------------------------

def test_help_of_the_program_shows_examples_of_each_command() -> None:
    result = cli('--help')
    assert result.returncode == 0
    for command in ('inspect', 'run', 'urdf', 'topics'):
        assert re.search(rf'^\s+scene-sim-ros {command}\b', result.stdout, re.MULTILINE), command


def test_help_of_run_shows_an_example() -> None:
    result = cli('run', '--help')
    assert result.returncode == 0
    assert re.search(r'example.*\n?.*scene-sim-ros run ', result.stdout, re.IGNORECASE)


@pytest.mark.parametrize('command', ['inspect', 'urdf', 'topics'])
def test_help_of_each_command_shows_an_example(command: str) -> None:
    result = cli(command, '--help')
    assert result.returncode == 0
    assert re.search(rf'example.*scene-sim-ros {command} ', result.stdout,
                     re.IGNORECASE | re.DOTALL)


@pytest.mark.parametrize('command', ['inspect', 'run', 'urdf', 'topics'])
def test_help_of_each_command_exits_0_with_its_usage(command: str) -> None:
    result = cli(command, '--help')
    assert result.returncode == 0 and result.stderr == ''
    assert result.stdout.startswith(f'usage: scene-sim-ros {command}')


def test_no_command_prints_help_and_exits_0() -> None:
    result = cli()
    assert result.returncode == 0
    assert 'usage: scene-sim-ros' in result.stdout


def test_malformed_param_is_a_usage_error() -> None:
    result = cli('inspect', DEFAULT_SCENE, '--param', 'no_equals_sign')
    assert result.returncode == 2 and result.stdout == ''
    assert 'NAME=VALUE' in result.stderr


def test_topics_shows_each_forward_controllers_joint_order():
    import sys
    done = subprocess.run([sys.executable, '-m', 'scene_sim_ros.cli', 'topics',
                           'scene_sim_ros/data/scenes/default.ros2'], capture_output=True,
                          text=True, timeout=120, check=True)
    line, = [row for row in done.stdout.splitlines() if '/rover/position_controller/' in row]
    assert line.endswith('data = [left_wheel_joint, right_wheel_joint, mast_joint, pan_joint, '
                         'tilt_joint]')
