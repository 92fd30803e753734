"""The ``scene-sim-ros`` command as a user runs it: the installed console script in a subprocess.

Covers the contract of docs/architecture.md for ``inspect --json`` on one real file of every
format (SimRobot, Webots, Simox robot and scene, RaiSim with ``@@`` parameters, plain URDF),
scene errors (exit 2, ``file:line: message`` on stderr, nothing on stdout), ``urdf``, ``topics``
and the ``--help`` of every command. Corpus tests skip where the corpus (``$SCENE_SIM_ROS_CORPUS``) is absent;
``inspect``, ``urdf`` and ``topics`` also run on every scene that ships (no corpus needed).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from support.examples import shipped, shipped_ids
from support.processes import console_script

REPO = Path(__file__).resolve().parents[1]
from support.corpus import CORPUS, missing  # noqa: E402

DEFAULT_SCENE = REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'

GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
VEHICLE = CORPUS / 'simrobot' / 'SimRobot' / 'Scenes' / 'SimpleVehicle.ros2'
WEBOTS_CAMERA = CORPUS / 'webots' / 'webots' / 'projects' / 'samples' / 'devices' / 'worlds' / 'camera.wbt'
SIMOX_DATA = CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data'
ARMAR = SIMOX_DATA / 'robots' / 'ArmarIII' / 'ArmarIII.xml'
SIMOX_SCENE = SIMOX_DATA / 'scenes' / 'examples' / 'SceneViewer' / 'scene1.xml'
RAISIM = CORPUS / 'raisim' / 'raisim2Lib' / 'rsc'
TEMPLATED_WORLD = RAISIM / 'xmlScripts' / 'templatedWorld' / 'templatedWorld.xml'
LAIKAGO_URDF = RAISIM / 'laikago' / 'laikago.urdf'

TEMPLATE_PARAMETERS = {'laikago_start_x': '1.5', 'laikago_start_y': '-2', 'floor_height': '0.25',
                       'sphere_count': '3', 'spawn_sphere': 'true', 'spawn_box': 'false',
                       'sphere_height_offset': '0.5'}
REQUIRED_TEMPLATE_PARAMETERS = ('floor_height', 'sphere_count', 'laikago_start_x', 'laikago_start_y')

FILE_LINE_MESSAGE = re.compile(r'^(?P<file>[^\s:][^:]*):(?P<line>\d+): (?P<message>\S.*)$')


def needs(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=missing(path))


def cli(*args: object, cwd: Path = REPO, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """``scene-sim-ros ARGS`` as a user runs it; stdout and stderr kept apart."""
    return subprocess.run([console_script('scene-sim-ros'), *map(os.fspath, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)


def inspect_json(path: Path, *extra: str) -> dict:
    result = cli('inspect', '--json', path, *extra)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    check_summary_contract(summary)
    return summary


def params(values: dict[str, str]) -> list[str]:
    return [arg for name, value in values.items() for arg in ('--param', f'{name}={value}')]


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_summary_contract(summary: dict) -> None:
    """The keys and value types that docs/architecture.md promises for ``inspect --json``."""
    assert {'format', 'step_length', 'gravity', 'entities', 'warnings'} <= summary.keys()
    assert isinstance(summary['format'], str)
    assert is_number(summary['step_length']) and summary['step_length'] > 0
    assert len(summary['gravity']) == 3 and all(map(is_number, summary['gravity']))
    assert all(isinstance(w, str) for w in summary['warnings'])
    for entity in summary['entities']:
        assert {'name', 'kind', 'links', 'mass', 'joints', 'sensors'} <= entity.keys(), entity
        assert entity['kind'] in ('robot', 'object', 'static')
        assert isinstance(entity['links'], int) and entity['links'] >= 1
        assert is_number(entity['mass']) and entity['mass'] >= 0
        if entity['kind'] != 'robot':
            assert entity['joints'] == [] and entity['sensors'] == [], entity['name']
        for joint in entity['joints']:
            assert {'name', 'type', 'axis', 'limits', 'motor'} <= joint.keys()
            assert joint['type'] in ('revolute', 'prismatic')
            assert math.isclose(math.hypot(*joint['axis']), 1.0, abs_tol=1e-6), joint
            if joint['limits'] is not None:
                low, high = joint['limits']
                assert low <= high, joint
            assert joint['motor'] is None or isinstance(joint['motor'].get('type'), str)
        for sensor in entity['sensors']:
            assert {'name', 'type', 'link'} <= sensor.keys()


def robots(summary: dict) -> dict[str, dict]:
    return {e['name']: e for e in summary['entities'] if e['kind'] == 'robot'}


def assert_scene_error(result: subprocess.CompletedProcess[str]) -> list[re.Match[str]]:
    """Exit 2, nothing on stdout, every stderr line ``file:line: message``; returns the matches."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ''
    lines = result.stderr.strip().splitlines()
    assert lines, 'no message on stderr'
    matches = [FILE_LINE_MESSAGE.match(line) for line in lines]
    assert all(matches), f'not file:line: message: {result.stderr!r}'
    return matches


# -- inspect --json, one real file per format ---------------------------------------------------

@needs(GAME)
def test_inspect_json_simrobot_game_has_fourteen_naos() -> None:
    summary = inspect_json(GAME)
    assert summary['format'] == 'simrobot'
    assert summary['gravity'] == pytest.approx([0.0, 0.0, -9.80665])
    naos = robots(summary)
    assert len(naos) == 14
    for name, nao in naos.items():
        assert len(nao['joints']) == 24, name
        assert {j['type'] for j in nao['joints']} == {'revolute'}
        assert {j['motor']['type'] for j in nao['joints']} == {'servo'}
        assert nao['mass'] == pytest.approx(next(iter(naos.values()))['mass'])
        cameras = {s['name']: s for s in nao['sensors'] if s['type'] == 'camera'}
        assert set(cameras) == {'CameraTop', 'CameraBottom'}
        assert {s['link'] for s in cameras.values()} == {'Head'}


@needs(WEBOTS_CAMERA)
def test_inspect_json_webots_camera_world_lists_the_robot_devices() -> None:
    summary = inspect_json(WEBOTS_CAMERA)
    assert summary['format'] == 'webots'
    (bot,) = robots(summary).values()
    assert bot['name'] == 'MyBot'
    assert sorted(j['name'] for j in bot['joints']) == ['left wheel motor', 'right wheel motor']
    assert all(j['motor'] is not None for j in bot['joints'])
    sensors = {s['name']: s for s in bot['sensors']}
    assert (sensors['camera']['type'], sensors['camera']['width'], sensors['camera']['height']) \
        == ('camera', 80, 60)
    assert sensors['camera']['fov_x'] == pytest.approx(1.047)
    assert {sensors[n]['type'] for n in ('ds0', 'ds1')} == {'single_distance'}
    assert sensors['left wheel sensor']['type'] == 'joint_position'
    assert sensors['left wheel sensor']['joint'] == 'left wheel motor'
    # the remote PROTOs of the arena are not in the corpus: warnings that name them
    assert any('RectangleArena' in w for w in summary['warnings'])


@needs(ARMAR)
def test_inspect_json_simox_armar3_has_53_joints_with_prismatic_ones() -> None:
    summary = inspect_json(ARMAR)
    assert summary['format'] == 'simox'
    (armar,) = robots(summary).values()
    assert len(armar['joints']) == 53
    types = Counter(j['type'] for j in armar['joints'])
    assert types['revolute'] > 0 and types['prismatic'] > 0
    assert all(j['motor'] is not None for j in armar['joints'])


@needs(SIMOX_SCENE)
def test_inspect_json_simox_scene_holds_the_robot_and_obstacles() -> None:
    summary = inspect_json(SIMOX_SCENE)
    assert summary['format'] == 'simox'
    kinds = Counter(e['kind'] for e in summary['entities'])
    assert kinds['robot'] == 1 and kinds['static'] >= 1
    (armar,) = robots(summary).values()
    assert len(armar['joints']) == 53


@needs(TEMPLATED_WORLD)
def test_inspect_json_raisim_templated_world_with_its_parameters() -> None:
    summary = inspect_json(TEMPLATED_WORLD.resolve(), *params(TEMPLATE_PARAMETERS))
    assert summary['format'] == 'raisim'
    assert summary['step_length'] == pytest.approx(0.001)
    (laikago,) = robots(summary).values()
    assert len(laikago['joints']) == 12 and {j['type'] for j in laikago['joints']} == {'revolute'}
    spheres = [e for e in summary['entities'] if e['name'].startswith('sphere_array_')]
    assert len(spheres) == int(TEMPLATE_PARAMETERS['sphere_count'])   # <array> end is exclusive
    assert all(e['kind'] == 'object' for e in spheres)
    assert not any(e['name'].startswith('box') for e in summary['entities'])  # spawn_box=false


@needs(TEMPLATED_WORLD)
def test_inspect_raisim_without_its_parameters_names_each_missing_one() -> None:
    result = cli('inspect', '--json', TEMPLATED_WORLD.resolve())
    assert result.returncode == 2 and result.stdout == ''
    for name in REQUIRED_TEMPLATE_PARAMETERS:
        # the parameter, where it is first used as file:line, on one line of stderr
        assert re.search(rf'{name}\b[^\n]*\.xml:\d+', result.stderr), (name, result.stderr)


@needs(TEMPLATED_WORLD)
def test_inspect_raisim_world_given_by_a_relative_path() -> None:
    relative = os.path.relpath(TEMPLATED_WORLD, REPO)
    result = cli('inspect', '--json', relative, *params(TEMPLATE_PARAMETERS))
    assert result.returncode == 0, result.stderr
    assert len(robots(json.loads(result.stdout))) == 1


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


@needs(LAIKAGO_URDF)
def test_inspect_json_plain_urdf_is_one_robot() -> None:
    summary = inspect_json(LAIKAGO_URDF)
    assert summary['format'] == 'urdf'
    (laikago,) = summary['entities']
    assert laikago['kind'] == 'robot'
    assert (laikago['links'], len(laikago['joints'])) == (21, 12)
    limits = {j['name']: j['limits'] for j in laikago['joints']}
    assert limits['FR_hip_joint'] == pytest.approx([-1.0471975512, 0.872664625997])
    # the .dae visuals are not in the corpus: one warning each, file:line
    assert summary['warnings'] and all(FILE_LINE_MESSAGE.match(w) for w in summary['warnings'])


def test_inspect_json_default_scene_reports_the_rover() -> None:
    summary = inspect_json(DEFAULT_SCENE)
    assert 'rover' in robots(summary)


def test_inspect_text_summary_of_the_default_scene() -> None:
    result = cli('inspect', DEFAULT_SCENE)
    assert result.returncode == 0, result.stderr
    assert 'rover' in result.stdout


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
    import subprocess
    import sys
    done = subprocess.run([sys.executable, '-m', 'scene_sim_ros.cli', 'topics',
                           'scene_sim_ros/data/scenes/default.ros2'], capture_output=True,
                          text=True, timeout=120, check=True)
    line, = [row for row in done.stdout.splitlines() if '/rover/position_controller/' in row]
    assert line.endswith('data = [left_wheel_joint, right_wheel_joint, mast_joint, pan_joint, '
                         'tilt_joint]')
