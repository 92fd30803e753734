"""Helpers of the end-to-end format tests: start ``scene-sim-ros run`` on a world and check, from
this separate ROS process, what its devices publish."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from scene_sim_ros import load_scene
from scene_sim_ros.ros.runtime.interface_list import interface_rows
from support.corpus import missing
from support.processes import scene_sim_run
from support.ros import spin_until

MESSAGE_TIMEOUT = 20.0


def launch(tmp_path_factory, world: Path, *options: str):
    """``scene-sim-ros run WORLD OPTIONS`` until it reports its real-time factor."""
    if not world.exists():
        pytest.skip(missing(world))
    return scene_sim_run(tmp_path_factory.mktemp(world.stem), str(world.resolve()), *options)


def seconds(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def world_transforms(client, child_frame: str, count: int, timeout: float = MESSAGE_TIMEOUT):
    """The first ``count`` transforms world -> ``child_frame`` on /tf."""
    from tf2_msgs.msg import TFMessage
    found = []

    def take(msg):
        found.extend(t for t in msg.transforms
                     if (t.header.frame_id, t.child_frame_id) == ('world', child_frame))
    subscription = client.create_subscription(TFMessage, '/tf', take, 100)
    try:
        assert spin_until(client, lambda: len(found) >= count, timeout), \
            f'{len(found)}/{count} transforms world -> {child_frame} on /tf'
    finally:
        client.destroy_subscription(subscription)
    return found


def message_class(type_name: str):
    """``sensor_msgs/msg/Image`` -> the Image class."""
    package, _, name = type_name.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def _publishers_qos(client, topic: str):
    """Depth 10, reliable, transient-local where every publisher of ``topic`` is."""
    from rclpy.qos import DurabilityPolicy, QoSProfile
    infos = client.get_publishers_info_by_topic(topic)
    latched = bool(infos) and all(i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                                  for i in infos)
    return QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
                      else DurabilityPolicy.VOLATILE)


def assert_every_device_topic_publishes(client, world: Path) -> dict[str, list]:
    """Each robot topic the node lists for ``world`` (joint states, every sensor; not the latched
    robot_description) delivers a message; returns them by topic."""
    rows = [(topic, msg_type) for direction, topic, msg_type in interface_rows(load_scene(world))
            if direction == 'pub' and topic.count('/') >= 2 and not topic.startswith('/scene_sim/')
            and not topic.endswith('/robot_description')]
    assert rows, f'no device topics listed for {world.name}'
    received: dict[str, list] = {topic: [] for topic, _ in rows}
    # a latched topic (an LED's state, published when it changes) is read as ros2 topic echo
    # reads it: with the publishers' durability, so that its last message arrives
    spin_until(client, lambda: all(client.count_publishers(t) for t, _ in rows), MESSAGE_TIMEOUT)
    subscriptions = [client.create_subscription(message_class(msg_type), topic,
                                                received[topic].append,
                                                _publishers_qos(client, topic))
                     for topic, msg_type in rows]
    try:
        spin_until(client, lambda: all(received.values()), MESSAGE_TIMEOUT)
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)
    silent = [topic for topic, messages in received.items() if not messages]
    assert not silent, f'{world.name}: no message on {silent}'
    return received
