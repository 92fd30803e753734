"""Spin an rclpy node in the test process until something happens, with a timeout.

    msgs = wait_for_messages(node, TFMessage, '/tf', count=3, timeout=10.0)
    response = call_service(node, StepSimulation, '/step_simulation', StepSimulation.Request())

Each helper spins ``node`` with a private single-threaded executor; nothing keeps spinning in
the background after it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile


def spin_until(node: Node, condition: Callable[[], bool], timeout: float, *, step: float = 0.05) -> bool:
    """Spin ``node`` until ``condition()`` is true; False if ``timeout`` seconds passed first."""
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    try:
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return condition()
            executor.spin_once(timeout_sec=min(step, remaining))
        return True
    finally:
        executor.remove_node(node)
        executor.shutdown(timeout_sec=0)


def wait_for_messages(node: Node, msg_type: Any, topic: str, count: int = 1, timeout: float = 10.0,
                      qos: QoSProfile | int = 10) -> list[Any]:
    """Subscribe to ``topic`` and return the first ``count`` messages.

    Raises TimeoutError (with the publishers seen on the topic) if fewer arrived in time.
    """
    received: list[Any] = []
    subscription = node.create_subscription(msg_type, topic, received.append, qos)
    try:
        if not spin_until(node, lambda: len(received) >= count, timeout):
            publishers = node.count_publishers(topic)
            raise TimeoutError(f'{len(received)}/{count} messages on {topic} after {timeout} s '
                               f'({publishers} publishers seen)')
        return received[:count]
    finally:
        node.destroy_subscription(subscription)


def wait_for_topic(node: Node, topic: str, timeout: float = 10.0) -> list[str]:
    """Wait until ``topic`` has a publisher; return its type names (e.g. ``['std_msgs/msg/String']``)."""
    found: list[str] = []

    def seen() -> bool:
        for name, types in node.get_topic_names_and_types():
            if name == topic and node.count_publishers(topic) > 0:
                found[:] = types
                return True
        return False

    if not spin_until(node, seen, timeout):
        raise TimeoutError(f'no publisher on {topic} after {timeout} s')
    return found


def call_service(node: Node, srv_type: Any, name: str, request: Any | None = None,
                 timeout: float = 10.0, *, resend_after: float = 4.0) -> Any:
    """Call service ``name`` and return the response; waits for the server first.

    A read-only request (a ``Get*``/``List*`` type) is sent again every ``resend_after`` seconds
    until one answer arrives: with Fast DDS a server drops the response to a client whose reply
    reader it has not matched within 100 ms ("client will not receive response",
    rmw_fastrtps_shared_cpp rmw_response.cpp), which a loaded machine sometimes hits on a new
    client's first call. Requests that change the simulation are sent once.
    """
    client = node.create_client(srv_type, name)
    try:
        if not spin_until(node, client.service_is_ready, timeout):
            raise TimeoutError(f'service {name} not available after {timeout} s')
        request = srv_type.Request() if request is None else request
        read_only = srv_type.__name__.startswith(('Get', 'List'))
        futures = [client.call_async(request)]
        deadline = time.monotonic() + timeout
        while not any(f.done() for f in futures):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                for future in futures:
                    client.remove_pending_request(future)
                raise TimeoutError(f'service {name} did not answer within {timeout} s')
            answered = spin_until(node, lambda: any(f.done() for f in futures),
                                  min(resend_after, remaining) if read_only else remaining)
            if not answered and read_only:
                futures.append(client.call_async(request))
        return next(f for f in futures if f.done()).result()
    finally:
        node.destroy_client(client)


def client_node(name: str):
    """A node in an rclpy Context of its own, for a module-scoped test client::

        @pytest.fixture(scope='module')
        def client(sim_node):
            yield from client_node('game_test_client')
    """
    import rclpy
    from rclpy.context import Context

    context = Context()
    rclpy.init(context=context)
    node = rclpy.create_node(name, context=context)
    try:
        yield node
    finally:
        node.destroy_node()
        context.try_shutdown()


def qos(depth: int = 10, latched: bool = False) -> QoSProfile:
    """Reliable, volatile (or transient-local for latched topics) with ``depth``."""
    from rclpy.qos import DurabilityPolicy
    return QoSProfile(depth=depth, durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
                      else DurabilityPolicy.VOLATILE)


def stamp(header: Any) -> float:
    """A message header's stamp in seconds."""
    return header.stamp.sec + header.stamp.nanosec * 1e-9


def paired(images: list[Any], infos: list[Any]) -> list[tuple[Any, Any]]:
    """(image, camera_info) pairs with equal stamps, in the order the images arrived."""
    by_stamp = {stamp(info.header): info for info in infos}
    return [(image, by_stamp[stamp(image.header)]) for image in images
            if stamp(image.header) in by_stamp]
