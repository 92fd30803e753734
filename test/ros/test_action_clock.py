"""The action servers' clock (scene_sim_ros.ros.action_clock): the node's sim time when rclpy
reads it, and no executor wake-ups while the node's time runs past the servers' result_timeout
(rcl wakes a cancelled, past-due ROS-time timer on every forward jump of its clock)."""

import threading

import pytest
import rclpy
from rclpy.action import ActionServer
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.time import Time
from simulation_interfaces.action import SimulateSteps

from scene_sim_ros.ros.action_clock import action_node


@pytest.fixture
def make_node():
    made = []

    def make(use_sim_time: bool):
        context = Context()
        rclpy.init(context=context)
        node = rclpy.create_node('action_clock_test', context=context, parameter_overrides=[
            Parameter('use_sim_time', value=use_sim_time)])
        made.append((node, context))
        return node
    yield make
    for node, context in made:
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def set_time(node, seconds: float) -> None:
    """What the step loop does after every step: move the node's own ROS time."""
    node.get_clock().set_ros_time_override(Time(nanoseconds=round(seconds * 1e9)))


def test_follows_the_node_time_when_read(make_node):
    node = make_node(use_sim_time=True)
    set_time(node, 42.0)
    host = action_node(node)
    assert action_node(node) is host  # one per node, shared by its servers
    clock = host.get_clock()
    assert clock.now().nanoseconds == 42_000_000_000
    set_time(node, 50.0)
    assert clock.now().nanoseconds == 42_000_000_000  # stands still between reads
    assert host.get_clock().now().nanoseconds == 50_000_000_000
    assert host.get_name() == node.get_name()  # everything else is the node's


def test_system_time_without_sim_time(make_node):
    node = make_node(use_sim_time=False)
    assert not action_node(node).get_clock().ros_time_is_active


def test_no_wakeups_while_the_node_time_runs_past_the_result_timeout(make_node):
    node = make_node(use_sim_time=True)
    set_time(node, 0.0)
    server = ActionServer(action_node(node), SimulateSteps, 'steps',
                          execute_callback=lambda handle: SimulateSteps.Result())
    checks = []
    real_is_ready = server.is_ready

    def is_ready(wait_set):  # the executor asks after every wake-up of its wait set
        checks.append(1)
        return real_is_ready(wait_set)
    server.is_ready = is_ready
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    spinning = threading.Thread(target=executor.spin, daemon=True)
    spinning.start()
    try:
        stop = threading.Event()
        for k in range(1, 3001):  # 30 s of sim time in 10 ms steps (result_timeout: 10 s)
            set_time(node, k * 0.01)
            stop.wait(0.0005)  # room for the executor to wake, were it woken
        woken = len(checks)
    finally:
        executor.shutdown(timeout_sec=1.0)
        spinning.join(2.0)
        server.destroy()
    # the node's own clock would wake it on each of the 2,000 steps after 10 s (at most a
    # few wake-ups remain: adding the node, the executor's own guard condition)
    assert woken <= 5, f'{woken} executor wake-ups while the sim time ran'
