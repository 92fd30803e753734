"""A deleted entity's endpoints leave nothing behind in the node's callback group
(scene_sim_ros.ros.runtime.entities): rclpy keeps a weak reference to every endpoint and QoS event
handler in its callback group and never drops the dead ones (ros2/rclpy#1356), so each
spawn/delete cycle of a robot left about 38 of them (3 KB) in the node for good."""

import gc
import threading
import time

import pytest
import rclpy
from rclpy.action import ActionServer
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from simulation_interfaces.action import SimulateSteps
from std_msgs.msg import String

from scene_sim_ros.ros.runtime.entities import EntityWiring, forget_destroyed


class Host(Node):
    """A plain rclpy node as the wiring sees it: ``ros_node`` is the node itself."""

    @property
    def ros_node(self) -> Node:
        return self


@pytest.fixture
def node():
    context = Context()
    rclpy.init(context=context)
    host = Host('entity_wiring_test', context=context)
    yield host
    host.destroy_node()
    rclpy.try_shutdown(context=context)


def entity_endpoints(node: Node):
    """What an entity bridge has (publishers, subscriptions, an action server); returns the
    function that destroys them."""
    publishers = [node.create_publisher(String, f'thing/out{i}', 10) for i in range(3)]
    subscriptions = [node.create_subscription(String, f'thing/in{i}', lambda msg: None, 10)
                     for i in range(2)]
    server = ActionServer(node, SimulateSteps, 'thing/steps',
                          execute_callback=lambda goal: SimulateSteps.Result())

    def destroy() -> None:
        server.destroy()
        for publisher in publishers:
            node.destroy_publisher(publisher)
        for subscription in subscriptions:
            node.destroy_subscription(subscription)
    return destroy


def test_forget_destroyed_drops_the_dead_references_and_keeps_the_live(node):
    group = node.default_callback_group
    kept = node.create_subscription(String, 'kept', lambda msg: None, 10)
    before = len(group.entities)
    destroy = entity_endpoints(node)
    assert len(group.entities) > before + 5  # the endpoints and their QoS event handlers
    destroy()
    del destroy
    gc.collect()
    forget_destroyed(group)
    assert len(group.entities) == before
    assert group.has_entity(kept)


def test_retired_endpoints_leave_no_references_in_the_callback_group(node):
    group = node.default_callback_group
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    wiring = EntityWiring(node, loop=None, static_tf=None, link_tf=False)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        before = len(group.entities)
        destroy = entity_endpoints(node)
        one_entity = len(group.entities) - before
        for _ in range(6):  # spawn, delete (destroyed on the executor's thread)
            wiring.retire([destroy])
            destroy = entity_endpoints(node)
        wiring.retire([destroy])
        del destroy
        # the executor's last wait holds the newest endpoints a little longer: the next
        # retirement (here: of nothing) forgets them (without forgetting: 7 entities' worth)
        deadline = time.monotonic() + 10.0
        while len(group.entities) > before and time.monotonic() < deadline:
            wiring.retire([])
            time.sleep(0.05)
        assert len(group.entities) == before, f'{one_entity} references per entity'
    finally:
        executor.shutdown()
        spinner.join(5.0)


def test_a_failing_destroyer_is_logged_and_the_others_still_run(node):
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    wiring = EntityWiring(node, loop=None, static_tf=None, link_tf=False)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    ran: list[str] = []

    def failing() -> None:
        raise RuntimeError('destroyed twice')
    try:
        wiring.retire([failing, lambda: ran.append('second')])
        deadline = time.monotonic() + 10.0
        while not ran and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ran == ['second'] and spinner.is_alive()  # the executor goes on
    finally:
        executor.shutdown()
        spinner.join(5.0)
