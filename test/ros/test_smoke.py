"""Smoke tests across processes: the installed interface types work over DDS.

A child process publishes tf2_msgs/TFMessage like tf2_ros does, another serves
simulation_interfaces services and the SimulateSteps action; the test process subscribes and
calls. Type names are read from the ROS graph, i.e. as other nodes see them.
"""

from pathlib import Path

import pytest

from support.processes import python_argv
from support.ros import call_service, spin_until, wait_for_messages, wait_for_topic

NODES = Path(__file__).parent / 'nodes'


@pytest.fixture
def tf_publisher(managed_process):
    return managed_process(python_argv(NODES / 'tf_publisher.py', '--rate', '20'), ready='READY')


@pytest.fixture
def toy_simulator(managed_process):
    return managed_process(python_argv(NODES / 'sim_interfaces_server.py'), ready='READY')


def test_tf_message_crosses_processes(ros_node, tf_publisher):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage

    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
    messages = wait_for_messages(ros_node, TFMessage, '/tf', count=3, timeout=20.0, qos=qos)
    xs = [m.transforms[0].transform.translation.x for m in messages]
    assert all(m.transforms[0].header.frame_id == 'odom' for m in messages)
    assert all(m.transforms[0].child_frame_id == 'base_link' for m in messages)
    assert xs == sorted(xs) and xs[0] >= 1.0


def test_tf_static_reaches_a_late_subscriber(ros_node, tf_publisher):
    """/tf_static is transient-local: a subscriber that joins later still gets the transforms."""
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage

    qos = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
    (message,) = wait_for_messages(ros_node, TFMessage, '/tf_static', count=1, timeout=20.0, qos=qos)
    (static,) = message.transforms
    assert (static.header.frame_id, static.child_frame_id) == ('base_link', 'camera_link')
    assert static.transform.translation.x == pytest.approx(0.25)


def test_tf_type_name_on_the_graph(ros_node, tf_publisher):
    assert wait_for_topic(ros_node, '/tf', timeout=20.0) == ['tf2_msgs/msg/TFMessage']


def test_simulation_interfaces_services_across_processes(ros_node, toy_simulator):
    from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
    from simulation_interfaces.srv import GetSimulationState, GetSimulatorFeatures, StepSimulation

    features = call_service(ros_node, GetSimulatorFeatures, '/get_simulator_features', timeout=20.0)
    assert SimulatorFeatures.STEP_SIMULATION_SINGLE in features.features.features
    assert list(features.features.spawn_formats) == ['urdf']

    state = call_service(ros_node, GetSimulationState, '/get_simulation_state')
    assert state.state.state == SimulationState.STATE_PAUSED
    assert state.result.result == Result.RESULT_OK

    one = call_service(ros_node, StepSimulation, '/step_simulation')  # steps defaults to 1
    assert (one.result.result, one.result.error_message) == (Result.RESULT_OK, 'now at step 1')
    five = call_service(ros_node, StepSimulation, '/step_simulation', StepSimulation.Request(steps=5))
    assert five.result.error_message == 'now at step 6'


def test_simulate_steps_action_across_processes(ros_node, toy_simulator):
    from rclpy.action import ActionClient
    from simulation_interfaces.action import SimulateSteps
    from simulation_interfaces.msg import Result

    client = ActionClient(ros_node, SimulateSteps, '/simulate_steps')
    try:
        assert spin_until(ros_node, client.server_is_ready, 20.0), 'action server not found'
        feedback = []
        goal_future = client.send_goal_async(SimulateSteps.Goal(steps=3),
                                             feedback_callback=lambda m: feedback.append(m.feedback))
        assert spin_until(ros_node, goal_future.done, 10.0)
        goal_handle = goal_future.result()
        assert goal_handle.accepted
        result_future = goal_handle.get_result_async()
        assert spin_until(ros_node, result_future.done, 10.0)
        result = result_future.result().result
        assert result.result.result == Result.RESULT_OK
        assert result.result.error_message == 'now at step 3'
        # Feedback is best effort in time (it may race the result), but what arrived is right.
        assert all(f.completed_steps + f.remaining_steps == 3 for f in feedback)
    finally:
        client.destroy()


def test_simulation_interfaces_type_names_on_the_graph(ros_node, toy_simulator):
    from rclpy.action import get_action_names_and_types

    def graph():
        services = dict(ros_node.get_service_names_and_types())
        actions = dict(get_action_names_and_types(ros_node))
        return services, actions

    assert spin_until(ros_node, lambda: '/simulate_steps' in graph()[1]
                      and '/step_simulation' in graph()[0], 20.0)
    services, actions = graph()
    assert services['/step_simulation'] == ['simulation_interfaces/srv/StepSimulation']
    assert services['/get_simulator_features'] == ['simulation_interfaces/srv/GetSimulatorFeatures']
    assert actions['/simulate_steps'] == ['simulation_interfaces/action/SimulateSteps']
