"""Small ROS 2 client commands for machines without ros2cli (``scene-sim-ros list|snapshot``).

On a ROS 2 distribution ``ros2 topic list`` and ``rqt_image_view`` do the same; these exist so
that the first five minutes work on a machine with only the PyPI wheels. The other client
commands (echo, hz, send, the supervisor and parameter commands) live in :mod:`.client`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import rclpy
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Image

from scene_sim_ros.images import encode_png


def _node(name: str) -> Node:
    rclpy.init()
    return rclpy.create_node(name)


def _close(node: Node) -> None:
    node.destroy_node()
    rclpy.try_shutdown()


PARAMETER_SERVICES = ('parameters', 'parameter_types', 'parameters_atomically',
                      'get_type_description')
"""Name endings of the services every node has (left out of ``list``)."""


def _settled_graph(node: Node, wait: float, quiet: float = 1.0, limit: float = 10.0
                   ) -> tuple[list[tuple[str, list[str]]], list[tuple[str, list[str]]]]:
    """Topics and services once discovery has settled: another node has been seen, at least
    ``wait`` seconds passed and nothing new appeared for ``quiet`` seconds (a loaded machine
    discovers a node with a hundred endpoints in more than a fixed wait); at most ``limit``
    seconds (an empty graph)."""
    started = time.monotonic()
    last_change, seen = started, None
    me = (node.get_name(), node.get_namespace())
    while True:
        topics = sorted(node.get_topic_names_and_types())
        services = sorted((name, types) for name, types in node.get_service_names_and_types()
                          if not name.endswith(PARAMETER_SERVICES))
        others = any(n != me for n in node.get_node_names_and_namespaces())
        now = time.monotonic()
        if (topics, services) != seen:
            seen, last_change = (topics, services), now
        if others and now - started >= wait and now - last_change >= quiet \
                or now - started >= limit:
            return topics, services
        time.sleep(0.1)


def list_graph(wait: float = 2.0, as_json: bool = False) -> int:
    """Print the topics (with types) and services currently in the ROS graph."""
    node = _node('scene_sim_ros_list')
    try:
        topics, services = _settled_graph(node, wait)
    finally:
        _close(node)
    if as_json:
        import json
        print(json.dumps({'topics': [{'name': n, 'types': t} for n, t in topics],
                          'services': [{'name': n, 'types': t} for n, t in services]}))
        return 0
    for name, types in topics:
        print(f'topic    {name:<48} {", ".join(types)}')
    for name, types in services:
        print(f'service  {name:<48} {", ".join(types)}')
    return 0


def save_snapshot(topic: str, path: Path, timeout: float = 15.0) -> int:
    """Receive one ``sensor_msgs/Image`` from ``topic`` and write it as a PNG."""
    node = _node('scene_sim_ros_snapshot')
    received: list[Image] = []
    try:
        problem = _image_topic_problem(node, topic, min(timeout, 5.0))
        if problem:
            print(problem, file=sys.stderr)
            return 2
        node.create_subscription(Image, topic, received.append, qos_profile_sensor_data)
        deadline = time.monotonic() + timeout
        while not received and time.monotonic() < deadline:
            rclpy.spin_once(node, timeout_sec=0.1)
    finally:
        _close(node)
    if not received:
        print(f'no image on {topic} within {timeout:g} s', file=sys.stderr)
        return 1
    msg = received[0]
    pixels = image_to_rgb(msg)
    path.write_bytes(encode_png(pixels))
    print(f'{path}: {msg.width}x{msg.height} {msg.encoding} from {topic} '
          f'(stamp {msg.header.stamp.sec}.{msg.header.stamp.nanosec:09d})')
    return 0


IMAGE_TYPE = 'sensor_msgs/msg/Image'


def _image_topic_problem(node: Node, topic: str, wait: float) -> str | None:
    """None once ``topic`` carries images; else a line naming the image topics there are."""
    deadline = time.monotonic() + wait
    while True:
        types = dict(node.get_topic_names_and_types())
        if IMAGE_TYPE in types.get(topic, ()):
            return None
        if time.monotonic() > deadline:
            break
        rclpy.spin_once(node, timeout_sec=0.1)
    images = sorted(name for name, kinds in types.items() if IMAGE_TYPE in kinds)
    what = (f'{topic} carries {", ".join(types[topic])}, not images' if topic in types
            else f'no topic {topic}')
    return (f'{what}; image topics: {", ".join(images)}' if images else
            f'{what}, and no image topics are live (is the simulation running?)')


def image_to_rgb(msg: Image) -> np.ndarray:
    """An HxWx3 uint8 view of an rgb8/bgr8/mono8 image; 32FC1 depth is scaled to grey."""
    data = np.frombuffer(bytes(msg.data), dtype=np.uint8)
    if msg.encoding in ('rgb8', 'bgr8'):
        rgb = data.reshape(msg.height, msg.step)[:, :msg.width * 3].reshape(msg.height, msg.width, 3)
        return rgb[..., ::-1] if msg.encoding == 'bgr8' else rgb
    if msg.encoding == 'mono8':
        grey = data.reshape(msg.height, msg.step)[:, :msg.width]
    elif msg.encoding == '32FC1':
        depth = data.view(np.float32).reshape(msg.height, msg.width)
        finite = np.isfinite(depth)
        top = float(depth[finite].max()) if finite.any() else 1.0
        grey = np.where(finite, 255.0 * (1.0 - np.clip(depth / top, 0.0, 1.0)), 0).astype(np.uint8)
    else:
        raise ValueError(f'unsupported image encoding {msg.encoding!r}')
    return np.repeat(grey[..., None], 3, axis=2)
