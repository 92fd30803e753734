"""Who owns the parent of a mobile base's odom frame: this node until localisation says
otherwise.

REP-105 gives ``odom`` one parent. Without localisation it is this node's ``world -> <entity>/odom``
(the odometry error; identity when noise-free), so that RViz with the fixed frame ``world``
shows every robot. AMCL, slam_toolbox or a static ``map -> odom`` publish another parent of the
same frame; two parents make tf2 flip between them and lookups across the tree fail (measured
with tf2_ros: 1968 of 2165 ``map -> rover/rover`` lookups in 6 s). :class:`OdomParentWatch`
listens on /tf and /tf_static for transforms of other nodes whose child is one of the odom frames
and whose parent is not the world frame; on the first one (finite numbers only: tf2 drops NaN
transforms too) this node stops publishing ``world -> odom`` for that base, for good, and logs
one line. The true pose stays on ``<entity>/ground_truth`` and the supervisor services.

Messages of this node's own publishers are recognised by their publisher GID (the graph's
endpoint GIDs of this node) and skipped before anything is deserialized; another node's message
is deserialized only when its bytes contain an odom frame's name. Jazzy's rclpy gives no
publisher GID: there this node's own messages are read too, and pass over (their parent of an
odom frame is the world frame).

``perfect_localization``: the node publishes ``map -> world`` (identity, on /tf_static), so that
``map -> <entity>/odom`` is the ground truth: Nav2 without AMCL or SLAM.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from rclpy.serialization import deserialize_message
from tf2_msgs.msg import TFMessage

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.names import ros_name
from scene_sim_ros.ros.bridge.tf import DynamicTransforms, StaticTransforms, transform
from scene_sim_ros.scene import Pose


def _finite(msg: Any) -> bool:
    t, r = msg.transform.translation, msg.transform.rotation
    return all(math.isfinite(v) for v in (t.x, t.y, t.z, r.x, r.y, r.z, r.w))


class OdomParentWatch:
    """Hands a mobile base's ``world -> odom`` over to whichever node publishes another parent
    of its odom frame."""

    def __init__(self, node: NodeHost, dynamic_tf: DynamicTransforms, world_frame: str,
                 tf_topic: str, tf_static_topic: str):
        self._node = node
        self._dynamic_tf = dynamic_tf
        self._world = world_frame
        self._own: set[bytes] = set()
        self._others: set[bytes] = set()
        self._submitted: set[str] = set()
        self.subscriptions = [
            node.create_subscription(TFMessage, topic, self._on_message, profile, raw=True)
            for topic, profile in ((tf_topic, qos.TF), (tf_static_topic, qos.TF_STATIC))]

    def _is_own(self, gid: bytes) -> bool:
        if gid in self._own:
            return True
        if gid in self._others:
            return False
        node = self._node.ros_node
        name, namespace = node.get_name(), node.get_namespace()
        for subscription in self.subscriptions:
            for endpoint in node.get_publishers_info_by_topic(subscription.topic_name):
                if endpoint.node_name == name and endpoint.node_namespace == namespace:
                    self._own.add(bytes(endpoint.endpoint_gid))
        if gid in self._own:
            return True
        self._others.add(gid)
        return False

    def _on_message(self, data: bytes, info: Any) -> None:
        """Executor thread."""
        # Kilted's message info names the publisher, so this node's own /tf is skipped unread;
        # Jazzy's does not, and the content decides (this node's parent of odom is the world)
        publisher = info.get('publisher_gid') if isinstance(info, dict) else None
        if publisher is not None and self._is_own(bytes(publisher['data'])):
            return
        odom_frames = [frame for frame in self._dynamic_tf.odom_frames()
                       if frame not in self._submitted]
        if not any(frame.encode() in data for frame in odom_frames):
            return
        for msg in deserialize_message(data, TFMessage).transforms:
            child = msg.child_frame_id.lstrip('/')
            parent = msg.header.frame_id.lstrip('/')
            if child in odom_frames and parent != self._world and _finite(msg) \
                    and child not in self._submitted:
                self._submitted.add(child)
                self._node.stepper.submit(functools.partial(self._hand_over, child, parent),
                                          want_result=False)

    def _hand_over(self, odom_frame: str, parent: str) -> None:
        """Physics thread."""
        frames = self._dynamic_tf.hand_over_odom(odom_frame)
        if frames is not None:
            self._node.get_logger().info(
                f'{parent} -> {odom_frame} is published by another node (localisation): this '
                f'node no longer publishes {self._world} -> {odom_frame}; the true pose stays on '
                f'{ros_name(frames.entity.name)}/ground_truth')


def publish_perfect_localization(static_tf: StaticTransforms, map_frame: str,
                                 world_frame: str) -> None:
    """``map -> world`` as the identity: ``map -> odom`` is then the ground truth."""
    static_tf.set([transform(map_frame, world_frame,
                             Pose((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))])
