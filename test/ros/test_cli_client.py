"""The client commands of ``scene-sim-ros`` (echo, hz, the supervisor commands, param, send,
snapshot, list) run as a user runs them: each one a separate process, against one node on the
bundled default scene (a module-scoped ``scene-sim-ros run``), on this test process's ROS
domain (``test/conftest.py`` sets it; the subprocesses inherit it).

Tests that change the simulation (pause, poses, spawned entities, parameters) put it back before
they end, so each passes alone and in any order.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

import yaml  # noqa: E402

from scene_sim_ros import load_scene  # noqa: E402
from support.processes import console_script, scene_sim_run  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SCENE = REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'
STEP = 0.01  # the default scene's step length
JOINTS = ['left_wheel_joint', 'right_wheel_joint', 'mast_joint', 'pan_joint', 'tilt_joint']


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    with scene_sim_run(tmp_path_factory.mktemp('cli_client')) as proc:
        yield proc


def cli(*args: object, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """``scene-sim-ros ARGS`` in its own process, from the repository root."""
    return subprocess.run([console_script('scene-sim-ros'), *map(os.fspath, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, check=False)


def ok(*args: object, timeout: float = 60.0) -> str:
    result = cli(*args, timeout=timeout)
    assert result.returncode == 0, f'{args}: exit {result.returncode}\n{result.stderr}'
    return result.stdout


def user_error(*args: object) -> str:
    """Run a command that must fail as a user error: exit 2, one line on stderr, no traceback."""
    result = cli(*args)
    assert result.returncode == 2, f'{args}: exit {result.returncode}\n{result.stderr}'
    assert 'Traceback' not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr


def documents(text: str) -> list:
    return [yaml.safe_load(doc) for doc in text.split('---\n') if doc.strip()]


def clock(sim_node) -> float:
    msg = json.loads(ok('echo', '/clock', '--once', '--json', '--timeout', '20'))
    return msg['clock']['sec'] + msg['clock']['nanosec'] * 1e-9


def entities(**filters: str) -> dict[str, dict]:
    args = [arg for key, value in filters.items() for arg in (f'--{key}', value)]
    return {row['name']: row for row in json.loads(ok('entities', '--json', *args))}


def wait_for_state(expected: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        state = json.loads(ok('state', '--json'))['state']
        if state == expected or time.monotonic() > deadline:
            return state
        time.sleep(0.2)


# -- echo, hz, list -----------------------------------------------------------------------------

def test_echo_once_clock_prints_one_yaml_document(sim_node):
    out = ok('echo', '/clock', '--once', '--timeout', '20')
    assert out.endswith('---\n') and out.count('---\n') == 1
    (msg,) = documents(out)
    assert set(msg) == {'clock'} and set(msg['clock']) == {'sec', 'nanosec'}
    assert 0 <= msg['clock']['nanosec'] < 1_000_000_000
    assert msg['clock']['sec'] + msg['clock']['nanosec'] > 0


def test_echo_once_joint_states_names_every_movable_joint(sim_node):
    (msg,) = documents(ok('echo', '/rover/joint_states', '--once', '--timeout', '20'))
    assert msg['name'] == JOINTS
    assert len(msg['position']) == len(msg['velocity']) == len(msg['effort']) == 5
    assert all(isinstance(v, float) for v in msg['position'])
    assert msg['header']['stamp']['sec'] >= 0


def test_echo_field_and_count_with_json(sim_node):
    lines = ok('echo', '/rover/joint_states', '--count', '3', '--json', '--field', 'name',
               '--timeout', '20').splitlines()
    assert [json.loads(line) for line in lines] == [JOINTS] * 3
    mast = json.loads(ok('echo', '/rover/joint_states', '--once', '--json', '--field',
                         'position.2', '--timeout', '20'))
    assert isinstance(mast, float) and 0.0 <= mast <= 0.16


def test_echo_a_latched_topic_prints_its_value(sim_node):
    """robot_description is transient local: a late subscriber only gets it with a matching QoS."""
    out = ok('echo', '/rover/robot_description', '--once', '--field', 'data', '--timeout', '20')
    assert out.startswith('<?xml') and '<robot name="rover">' in out and out.endswith('---\n')
    counter = json.loads(ok('echo', '/scene_sim/rejected_commands', '--once', '--json',
                            '--timeout', '20'))
    assert isinstance(counter['data'], int)


def test_echo_abbreviates_long_arrays_unless_full(sim_node):
    short = json.loads(ok('echo', '/rover/laser/scan', '--once', '--json', '--timeout', '20'))
    full = json.loads(ok('echo', '/rover/laser/scan', '--once', '--json', '--full',
                         '--timeout', '20'))
    count = len(full['ranges'])
    assert count == round((full['angle_max'] - full['angle_min']) / full['angle_increment']) + 1
    assert count > 32
    assert len(short['ranges']) == 9 and all(not isinstance(v, str) for v in short['ranges'][:8])
    assert short['ranges'][8] == f'... {count - 8} more, {count} in all (--full prints all)'


def test_echo_rate_drops_what_comes_between(sim_node):
    """/clock comes every step; at --rate 4 the printed ones are a quarter second of wall
    time apart, so steps in between are dropped (how many depends on the machine's pace)."""
    lines = ok('echo', '/clock', '--count', '3', '--rate', '4', '--json').splitlines()
    times = [m['clock']['sec'] + m['clock']['nanosec'] * 1e-9 for m in map(json.loads, lines)]
    step = load_scene(DEFAULT_SCENE).step_length
    assert len(times) == 3
    assert all(later - earlier > 1.5 * step for earlier, later in zip(times, times[1:])), times


def test_throttle_admits_at_most_rate_events_per_second_of_its_clock():
    from scene_sim_ros.cli.client.topic_tools import Throttle
    now = [0.0]
    throttle = Throttle(4.0, clock=lambda: now[0])
    admitted = []
    for tick in range(101):  # 1 s in steps of 10 ms
        now[0] = tick * 0.01
        if throttle.admits():
            admitted.append(round(now[0], 2))
    assert admitted == [0.0, 0.25, 0.5, 0.75, 1.0]
    unlimited = Throttle(None, clock=lambda: 0.0)
    assert all(unlimited.admits() for _ in range(10))


def test_echo_unknown_topic_is_a_user_error_naming_similar_topics(sim_node):
    # the topic never appears, so this waits the whole timeout; 3 s were too few for a fresh
    # process to discover the node at all on a loaded machine ('no topics seen')
    err = user_error('echo', '/rover/joint_state', '--once', '--timeout', '8')
    assert 'no publisher on /rover/joint_state' in err and '/rover/joint_states' in err


def test_echo_unknown_field_is_a_user_error_naming_the_fields(sim_node):
    err = user_error('echo', '/clock', '--once', '--field', 'clock.seconds', '--timeout', '20')
    assert 'seconds' in err and 'sec, nanosec' in err


def test_hz_of_the_clock_matches_the_step_rate(sim_node):
    """101 messages, a window of 100 intervals, and statistics that agree with each other
    (the rate a loaded machine reaches is bench/'s question, not this one's)."""
    result = json.loads(ok('hz', '/clock', '--count', '101', '--json', '--timeout', '30'))
    assert result['topic'] == '/clock' and result['messages'] == 101 and result['window'] == 100
    assert result['rate'] > 0.0
    assert result['min'] <= 1.0 / result['rate'] <= result['max']
    assert result['std_dev'] >= 0.0


def test_hz_text_output_and_window(sim_node):
    out = ok('hz', '/rover/joint_states', '--count', '30', '--window', '10', '--timeout', '30')
    assert 'average rate:' in out
    assert out.rstrip().endswith('window: 10')


def test_list_json_holds_the_topics_and_services(sim_node):
    graph = json.loads(ok('list', '--json'))
    topics = {t['name']: t['types'] for t in graph['topics']}
    services = {s['name']: s['types'] for s in graph['services']}
    assert topics['/clock'] == ['rosgraph_msgs/msg/Clock']
    assert topics['/rover/joint_commands'] == ['sensor_msgs/msg/JointState']
    assert services['/step_simulation'] == ['simulation_interfaces/srv/StepSimulation']


# -- supervisor ---------------------------------------------------------------------------------

def test_pause_step_play(sim_node):
    try:
        assert ok('pause').strip() in ('paused', 'already paused')
        assert ok('state').strip() == 'paused'
        assert ok('pause').strip() == 'already paused'
        before = clock(sim_node)
        time.sleep(0.3)
        assert clock(sim_node) == pytest.approx(before, abs=1e-9)  # paused: time stands still
        assert ok('step', '25').strip() == 'stepped 25 steps'
        assert clock(sim_node) == pytest.approx(before + 25 * STEP, abs=1e-6)
    finally:
        ok('play')
    assert wait_for_state('playing') == 'playing'
    started = clock(sim_node)
    time.sleep(0.5)
    assert clock(sim_node) > started + 0.1


def test_step_while_playing_is_refused(sim_node):
    ok('play')
    err = user_error('step', '5')
    assert err.startswith('error: step_simulation: OPERATION_FAILED') and 'paused' in err


def test_state_json(sim_node):
    ok('pause')
    assert json.loads(ok('state', '--json')) == {'state': 'paused', 'code': 2}
    ok('play')
    assert json.loads(ok('state', '--json')) == {'state': 'playing', 'code': 1}


def test_entities_lists_the_default_scene(sim_node):
    rows = entities()
    assert {'rover', 'ball', 'ground', 'crate1', 'crate2', 'pillar'} <= set(rows)
    assert rows['rover']['category'] == 'robot' and 'loaded' in rows['rover']['tags']
    assert rows['crate1']['category'] == 'static'
    assert rows['crate1']['position'] == pytest.approx([2.0, -0.6, 0.2], abs=1e-6)
    assert set(entities(filter='^wall')) == {'wall_north', 'wall_south', 'wall_east', 'wall_west'}
    text = ok('entities', '--filter', '^crate1$')
    assert text.split()[:2] == ['crate1', 'static']


def test_spawn_set_pose_and_delete(sim_node):
    source = f'{DEFAULT_SCENE.relative_to(REPO)}#ball'
    try:
        assert ok('spawn', 'cli_ball', source, '--pose', '0', '-1.5', '0.5').strip() \
            == 'spawned cli_ball'
        rows = entities(filter='^cli_ball$')
        assert 'spawned' in rows['cli_ball']['tags']
        # the ball is written at (1.0, 0.3, 0.1) in the scene: placed relative to the pose
        assert rows['cli_ball']['position'][:2] == pytest.approx([1.0, -1.2], abs=0.05)
        err = user_error('spawn', 'cli_ball', source)
        assert 'NAME_NOT_UNIQUE' in err
        ok('set-pose', 'cli_ball', '-1', '-2', '0.1', '0', '0', '1.5707963')
        row = entities(filter='^cli_ball$')['cli_ball']
        assert row['position'][:2] == pytest.approx([-1.0, -2.0], abs=0.05)
        assert row['orientation'][2:] == pytest.approx([math.sqrt(0.5)] * 2, abs=0.05)
        assert ok('delete', 'cli_ball').strip() == 'deleted cli_ball'
        assert 'cli_ball' not in entities()
        assert 'NOT_FOUND' in user_error('delete', 'cli_ball')
    finally:
        cli('reset', '--scope', 'spawned')


def test_spawn_and_set_pose_check_their_arguments(sim_node):
    assert 'no file' in user_error('spawn', 'x', 'no_such_file.ros2')
    assert 'x y z' in user_error('spawn', 'x', f'{DEFAULT_SCENE}#ball', '--pose', '1', '2')
    assert 'not a number' in user_error('set-pose', 'ball', '1', 'two', '3')
    assert 'NOT_FOUND' in user_error('set-pose', 'no_such_entity', '1', '2', '3')


def test_reset_puts_a_moved_entity_back(sim_node):
    ok('set-pose', 'crate2', '0', '-2', '0.2')
    assert entities(filter='^crate2$')['crate2']['position'] == pytest.approx([0, -2, 0.2], abs=1e-6)
    assert ok('reset').strip() == 'reset (all)'
    assert entities(filter='^crate2$')['crate2']['position'] == pytest.approx([1.2, 1.4, 0.2],
                                                                             abs=1e-6)


# -- parameters ---------------------------------------------------------------------------------

def test_param_list_and_get(sim_node):
    names = json.loads(ok('param', 'list', '--json'))
    assert {'real_time_factor', 'paused', 'use_sim_time', 'world_frame'} <= set(names)
    assert ok('param', 'list').split() == sorted(names)
    assert json.loads(ok('param', 'get', 'world_frame', '--json')) == {
        'name': 'world_frame', 'type': 'string', 'value': 'world'}
    assert ok('param', 'get', 'paused').strip() in ('Bool value is: False', 'Bool value is: True')


def test_param_set_parses_the_value_and_the_node_applies_it(sim_node):
    try:
        assert ok('param', 'set', 'real_time_factor', '0.5').strip() == 'Set parameter successful'
        assert json.loads(ok('param', 'get', 'real_time_factor', '--json'))['value'] == 0.5
        err = user_error('param', 'set', 'real_time_factor', '-1')
        assert 'real_time_factor must be >= 0' in err
        ok('param', 'set', 'paused', 'true')
        assert wait_for_state('paused') == 'paused'
        ok('param', 'set', 'paused', 'false')
        assert wait_for_state('playing') == 'playing'
    finally:
        cli('param', 'set', 'real_time_factor', '1.0')
        cli('play')
    assert json.loads(ok('param', 'get', 'real_time_factor', '--json'))['value'] == 1.0


def test_param_get_of_an_unknown_parameter_is_a_user_error(sim_node):
    err = user_error('param', 'get', 'no_such_parameter')
    assert 'no_such_parameter' in err


# -- send ---------------------------------------------------------------------------------------

def test_send_moves_the_joint_and_reports_acceptance(sim_node):
    out = ok('send', 'rover', 'pan_joint=0.6')
    assert out.strip() == 'sent position pan_joint=0.6 to /rover/joint_commands: accepted'
    deadline = time.monotonic() + 20
    pan = None
    while time.monotonic() < deadline:
        pan = json.loads(ok('echo', '/rover/joint_states', '--once', '--json', '--field',
                            'position.3', '--timeout', '20'))
        if abs(pan - 0.6) < 0.05:
            break
        time.sleep(0.2)
    assert pan == pytest.approx(0.6, abs=0.05)
    ok('send', 'rover', 'pan_joint=0')


@pytest.mark.parametrize('value, says', [('abc', "'abc' is not a number"),
                                         ('nan', "'nan' is not finite"),
                                         ('-inf', "'-inf' is not finite")])
def test_send_refuses_values_that_are_no_finite_numbers(value, says):
    """Checked before anything is sent: no simulation needed."""
    err = user_error('send', 'rover', f'pan_joint={value}')
    assert err.strip() == f'error: pan_joint: {says}'


def test_send_unknown_joint_names_the_movable_joints(sim_node):
    err = user_error('send', 'rover', 'pan_joint=0.1', 'elbow=1')
    assert 'no movable joint elbow' in err and ', '.join(JOINTS) in err


def test_send_unknown_entity_lists_the_live_robots(sim_node):
    err = user_error('send', 'ball', 'x=1')
    assert "no robot 'ball'" in err and 'live robots: rover' in err


def test_send_under_the_wrong_namespace_says_which_to_use(sim_node):
    err = user_error('send', 'rover', 'pan_joint=0.1', '--namespace', '/sim')
    assert 'under namespace /sim' in err and 'use --namespace /' in err


def test_send_a_command_the_node_rejects_exits_1(sim_node):
    before = json.loads(ok('echo', '/scene_sim/rejected_commands', '--once', '--json',
                           '--field', 'data', '--timeout', '20'))
    result = cli('send', 'rover', 'elbow=1', '--no-check')
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith('rejected: the simulation refused position elbow=1')
    after = json.loads(ok('echo', '/scene_sim/rejected_commands', '--once', '--json',
                          '--field', 'data', '--timeout', '20'))
    assert after == before + 1


# -- snapshot -----------------------------------------------------------------------------------

def test_snapshot_of_a_topic_without_images_lists_the_image_topics(sim_node, tmp_path):
    err = user_error('snapshot', '/rover/camera/image', tmp_path / 'x.png', '--timeout', '10')
    assert 'no topic /rover/camera/image' in err and '/rover/camera/image_raw' in err
    # waits the whole timeout too (the topic never carries images): 8 s to discover it
    err = user_error('snapshot', '/rover/joint_states', tmp_path / 'x.png', '--timeout', '8')
    assert 'sensor_msgs/msg/JointState, not images' in err
    assert not (tmp_path / 'x.png').exists()


def test_world_commands_list_load_unload_and_describe(sim_node):
    try:
        worlds = json.loads(ok('worlds', '--json'))
        assert len(worlds) >= 6 and {'default', 'car'} <= {w['name'] for w in worlds}
        assert all('webots' in w['tags'] for w in json.loads(ok('worlds', '--tag', 'webots',
                                                                 '--json')))
        assert json.loads(ok('bounds', 'ball', '--json')) == {
            'lower': [-0.1, -0.1, -0.1], 'upper': [0.1, 0.1, 0.1]}
        assert 'rover_start' in {p['name'] for p in json.loads(ok('poses', '--json'))}
        assert any(s['uri'].endswith('#rover') for s in json.loads(ok('spawnables', '--json')))
        assert ok('load', 'car').strip() == 'loaded car'
        assert 'car' in {e['name'] for e in json.loads(ok('entities', '--json'))}
        assert ok('unload').strip() == 'unloaded: no world'
        assert json.loads(ok('entities', '--json')) == []
        assert 'NO_WORLD_LOADED' in user_error('unload')
        assert 'outside the folders' in user_error('load', REPO / 'pyproject.toml')
    finally:
        ok('load', DEFAULT_SCENE)
    assert 'rover' in {e['name'] for e in json.loads(ok('entities', '--json'))}
