"""Every example that ships (``scene-sim-ros examples``) end to end, with no corpus:
``scene-sim-ros run <example name>`` is started as a user starts it, and a separate ROS process
receives /clock and every topic ``scene-sim-ros topics`` lists for each robot: joint states, each
sensor's, odometry and ground truth (all but the bare ``raisim_rover.urdf`` have sensors; its
sensors come with the RaiSim world)."""

from __future__ import annotations

import importlib

import pytest

pytest.importorskip('rclpy')

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.resources import example_names, example_path  # noqa: E402
from scene_sim_ros.ros.runtime.interface_list import interface_rows  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

TIMEOUT = 30.0
NOT_SENSORS = ('/joint_states', '/robot_description')


@pytest.fixture(scope='module')
def client():
    yield from client_node('examples_e2e_test_client')


def message_class(type_name: str):
    package, _, name = type_name.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def robot_topics(name: str) -> dict[str, dict[str, str]]:
    """robot -> {published topic: message type} of its own topics (from ``topics``' listing)."""
    scene = load_scene(example_path(name))
    robots = {e.name: {} for e in scene.entities if e.kind == 'robot'}
    for direction, topic, msg_type in interface_rows(scene):
        owner = topic.split('/')[1]
        if direction == 'pub' and owner in robots:
            robots[owner][topic] = msg_type
    return robots


@pytest.mark.parametrize('name', example_names())
def test_example_runs_and_publishes(name, client, tmp_path):
    robots = robot_topics(name)
    assert robots, f'{name}: no robot'
    with_sensors = [r for r, own in robots.items() if any(not t.endswith(NOT_SENSORS) for t in own)]
    assert with_sensors or name == 'raisim_rover', f'{name}: no sensor topics listed'
    topics = {'/clock': 'rosgraph_msgs/msg/Clock'}
    for own in robots.values():
        topics.update((t, m) for t, m in own.items() if not t.endswith('/robot_description'))
    received: dict[str, int] = dict.fromkeys(topics, 0)

    def counter(topic):
        def count(_msg):
            received[topic] += 1
        return count

    def arrived() -> bool:  # every topic the listing promises, each sensor's included
        return all(received.values())

    with scene_sim_run(tmp_path, name):   # the example's name, not a path
        subscriptions = [client.create_subscription(message_class(m), t, counter(t), 10)
                         for t, m in topics.items()]
        try:
            spin_until(client, arrived, TIMEOUT)
        finally:
            for subscription in subscriptions:
                client.destroy_subscription(subscription)
    silent = [t for t, n in received.items() if not n]
    assert arrived(), f'{name}: nothing received on {silent}'
