"""The node's parameters as ROS tools see them: every declared parameter has a value (so bulk
GetParameters and ``ros2 param dump`` see them all), numbers take integers from any route, and
wrong types are refused naming the parameter."""

import os

import pytest

from support.processes import scene_sim_run
from support.ros import call_service, client_node

NODE = '/scene_sim'


@pytest.fixture(scope='module')
def sim(tmp_path_factory):
    # real_time_factor:=0 is an INTEGER on the command line (as users type it)
    with scene_sim_run(tmp_path_factory.mktemp('params'), '--renderer', 'tiny', '--ros-args',
                       '-p', 'real_time_factor:=0') as process:
        yield process


@pytest.fixture(scope='module')
def client(sim):
    yield from client_node('parameters_test_client')


def _list(client):
    from rcl_interfaces.srv import ListParameters
    return list(call_service(client, ListParameters, f'{NODE}/list_parameters').result.names)


def _set(client, name, value):
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    request = SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
    return call_service(client, SetParameters, f'{NODE}/set_parameters', request).results[0]


def test_get_parameters_for_every_listed_name_returns_every_value(client):
    from rcl_interfaces.msg import ParameterType
    from rcl_interfaces.srv import GetParameters
    names = _list(client)
    assert {'scene', 'scene_parameters', 'real_time_factor', 'isolate', 'frame_prefix',
            'controllers.rover.position_controller.joints'} <= set(names)
    values = call_service(client, GetParameters, f'{NODE}/get_parameters',
                          GetParameters.Request(names=names)).values
    assert len(values) == len(names)
    assert values[names.index('renderer')].string_value == 'tiny'  # run --renderer tiny
    # the default (or the engine the suite runs its nodes on, test/support/processes.py)
    expected = os.environ.get('SCENE_SIM_ROS_TEST_ENGINE', 'pybullet')
    assert values[names.index('engine')].string_value == expected
    unset = [n for n, v in zip(names, values) if v.type == ParameterType.PARAMETER_NOT_SET]
    assert unset == []
    by_name = dict(zip(names, values))
    assert by_name['scene_parameters'].type == ParameterType.PARAMETER_STRING_ARRAY
    assert list(by_name['scene_parameters'].string_array_value) == []
    # the forward controller's joint order is visible: the default scene's movable joints
    joints = by_name['controllers.rover.position_controller.joints'].string_array_value
    assert list(joints)[:2] == ['left_wheel_joint', 'right_wheel_joint'] and 'pan_joint' in joints


PER_SCENE = ('sensors.', 'controllers.', 'mobile_bases.')
"""Prefixes of the parameters declared per entity of the scene, not in the option table."""
RCLPY_OWN = {'use_sim_time', 'start_type_description_service'}


def test_the_node_declares_exactly_the_parameters_of_the_option_table(client):
    """A parameter declared past the table (scene_sim_ros/ros/options.py) is missing from
    params.yaml and the docs; a table row no part of the node declares is a dead option."""
    from scene_sim_ros.ros.options import node_options
    from scene_sim_ros.ros.runtime.parameters import PUBLISH_RATES
    table = {o.name for o in node_options(PUBLISH_RATES) if o.is_parameter}
    declared = {n for n in _list(client) if not n.startswith(PER_SCENE) and n not in RCLPY_OWN
                and not n.startswith('qos_overrides.')}
    assert sorted(declared - table) == [], 'declared by the node, missing from the option table'
    assert sorted(table - declared) == [], 'in the option table, never declared'


def test_integer_real_time_factor_from_the_command_line_is_taken_as_unpaced(client):
    """``real_time_factor:=0`` (an integer on the command line) is accepted as 0: the node
    runs (/clock advances), unpaced. That 0 never sleeps is the stepper's law, checked exactly
    in test_node_stepper.py; how fast an unpaced run goes is bench/'s question."""
    from rcl_interfaces.msg import ParameterType
    from rcl_interfaces.srv import GetParameters
    from rosgraph_msgs.msg import Clock

    from support.ros import spin_until
    value = call_service(client, GetParameters, f'{NODE}/get_parameters',
                         GetParameters.Request(names=['real_time_factor'])).values[0]
    # as given (an integer), or a double once another test set it back to 0.0
    number = {ParameterType.PARAMETER_INTEGER: value.integer_value,
              ParameterType.PARAMETER_DOUBLE: value.double_value}[value.type]
    assert number == 0
    sims: list[float] = []
    subscription = client.create_subscription(
        Clock, '/clock', lambda m: sims.append(m.clock.sec + m.clock.nanosec * 1e-9), 10)
    try:
        assert spin_until(client, lambda: len(sims) >= 400, 30.0), f'{len(sims)} /clock'
    finally:
        client.destroy_subscription(subscription)
    assert sims == sorted(sims) and sims[-1] > sims[0]


def test_runtime_sets_take_integers_and_refuse_wrong_types_naming_the_parameter(client):
    result = _set(client, 'real_time_factor', 3)
    assert result.successful, result.reason
    result = _set(client, 'real_time_factor', 'fast')
    assert not result.successful
    assert "'real_time_factor'" in result.reason and 'number' in result.reason
    result = _set(client, 'real_time_factor', 0.0)
    assert result.successful, result.reason


def test_a_running_node_keeps_its_engine(client):
    result = _set(client, 'engine', 'mujoco')
    assert not result.successful and 'read-only' in result.reason


def test_a_string_for_a_number_on_the_command_line_is_one_clear_error(tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, '-m', 'scene_sim_ros.cli', 'run', '--ros-args', '-p',
                           'tf_rate:=often'], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "'tf_rate' expects a number" in done.stderr
    assert 'Traceback' not in done.stderr


@pytest.mark.parametrize(('arguments', 'line'), [
    (['--ros-args', '-p', 'engine:=ode'], "error: engine 'ode' is not known; engines: pybullet, mujoco"),
    (['--engine', 'mujoco', '--gui'],
     "error: engine 'mujoco' has no window of its own (gui is PyBullet's); watch it in rviz2 or "
     'Foxglove'),
    (['--ros-args', '-p', 'renderer:=opengl'],
     "error: unknown renderer 'opengl'; expected one of ('auto', 'gl', 'tiny')"),
], ids=['unknown', 'mujoco-gui', 'unknown-renderer'])
def test_an_engine_the_node_cannot_build_is_one_line_before_the_scene_loads(arguments, line):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, '-m', 'scene_sim_ros.cli', 'run', *arguments],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip() == line  # nothing loaded, nothing logged, no traceback
