"""A short-lived client node for one command: discovery waits, service calls, QoS matching.

Errors for the user are exceptions with a one-line message: :class:`UserError` (exit 2: a
wrong name, value or request the simulation refused) and :class:`Unreachable` (exit 1: nothing
answers, e.g. no simulation running on this ROS domain / namespace).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import rclpy
from rclpy.client import Client
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy


class UserError(Exception):
    """Exit 2 with this one-line message on stderr."""

    exit_code = 2


class Unreachable(Exception):
    """Exit 1: nothing answered (no simulation, or another domain / namespace)."""

    exit_code = 1


@contextmanager
def client_node(name: str) -> Iterator[Node]:
    """An rclpy node for one command, with an executor of its own; both are destroyed and
    rclpy is shut down afterwards (nothing of rclpy's global executor is left for the
    interpreter's exit to tear down)."""
    from rclpy.signals import SignalHandlerOptions
    # Plain Python Ctrl-C (KeyboardInterrupt), so that echo and hz end cleanly.
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node(name, start_parameter_services=False, enable_rosout=False)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        yield node
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


def spin_until(node: Node, condition: Callable[[], bool], timeout: float | None,
               step: float = 0.05) -> bool:
    """Spin ``node`` until ``condition()``; False once ``timeout`` seconds passed (None: never)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not condition():
        if deadline is not None and time.monotonic() >= deadline:
            return condition()
        if node.executor is None:  # a node of the caller's own
            rclpy.spin_once(node, timeout_sec=step)
        else:
            node.executor.spin_once(timeout_sec=step)
    return True


def resolve(namespace: str, *parts: str) -> str:
    """``resolve('/sim', 'rover', 'joint_commands')`` -> ``'/sim/rover/joint_commands'``;
    a part starting with ``/`` is absolute."""
    path = [p for p in namespace.strip('/').split('/') if p]
    for part in parts:
        if part.startswith('/'):
            path = []
        path += [p for p in part.strip('/').split('/') if p]
    return '/' + '/'.join(path)


def topic_types(node: Node) -> dict[str, list[str]]:
    return dict(node.get_topic_names_and_types())


def wait_for_topic_type(node: Node, topic: str, timeout: float) -> str:
    """The type of ``topic`` once a publisher is seen; :class:`UserError` listing the topics if
    none appears within ``timeout`` seconds."""
    found: list[str] = []

    def seen() -> bool:
        types = topic_types(node).get(topic)
        if types and node.count_publishers(topic):
            found[:] = types
            return True
        return False

    if not spin_until(node, seen, timeout):
        raise UserError(f'no publisher on {topic} after {timeout:g} s'
                        + similar_topics(topic, topic_types(node)))
    return found[0]


def similar_topics(topic: str, known: dict[str, list[str]]) -> str:
    """A hint naming topics like ``topic`` (same last name, or close spelling)."""
    import difflib
    names = sorted(n for n in known if n not in ('/parameter_events', '/rosout'))
    if not names:
        return ' (no topics seen: is the simulation running, on this ROS_DOMAIN_ID?)'
    last = topic.rstrip('/').rsplit('/', 1)[-1]
    close = [n for n in names if n.rsplit('/', 1)[-1] == last]
    close += [n for n in difflib.get_close_matches(topic, names, n=5, cutoff=0.6) if n not in close]
    if close:
        return f'; did you mean {", ".join(close[:5])}?'
    return f' ({len(names)} other topics; `scene-sim-ros list` shows them)'


def matching_qos(node: Node, topic: str, depth: int = 10) -> QoSProfile:
    """A subscription QoS that matches every publisher of ``topic`` (as ros2 topic echo does):
    best effort if any publisher is, transient local only if all publishers are."""
    infos = node.get_publishers_info_by_topic(topic)
    reliable = all(i.qos_profile.reliability == ReliabilityPolicy.RELIABLE for i in infos)
    latched = bool(infos) and all(
        i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for i in infos)
    return QoSProfile(
        depth=depth,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)


def call(node: Node, srv_type: Any, name: str, request: Any, timeout: float) -> Any:
    """Call service ``name`` once; :class:`Unreachable` if no server or no answer in time."""
    client: Client[Any, Any] = node.create_client(srv_type, name)
    try:
        if not spin_until(node, client.service_is_ready, timeout):
            raise Unreachable(f'no service {name} after {timeout:g} s (is `scene-sim-ros run` '
                              'going, on this ROS_DOMAIN_ID and --namespace?)')
        future = client.call_async(request)
        if not spin_until(node, future.done, timeout):
            client.remove_pending_request(future)
            raise Unreachable(f'{name} did not answer within {timeout:g} s')
        return future.result()
    finally:
        node.destroy_client(client)


def message_class(type_name: str) -> Any:
    """``'sensor_msgs/msg/JointState'`` -> the Python message class."""
    import importlib
    package, _, name = type_name.replace('/msg/', '/').partition('/')
    try:
        return getattr(importlib.import_module(f'{package}.msg'), name)
    except (ImportError, AttributeError):
        raise UserError(f'message type {type_name} is not installed here') from None
