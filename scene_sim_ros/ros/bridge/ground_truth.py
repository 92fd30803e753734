"""``<entity>/ground_truth``: the true pose and twist of a mobile base, as Gazebo's
OdometryPublisher (and p3d) give it: nav_msgs/Odometry with ``header.frame_id`` the world frame,
``child_frame_id`` the base frame, the twist in the base frame. Published at
``ground_truth.rate`` while someone subscribes (like the cameras: unwatched, it costs nothing).
It stays available whoever owns ``map -> odom`` or ``odom -> base`` on /tf."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from nav_msgs.msg import Odometry

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import ACTIVITY_CHECK_PERIOD
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.serialized import MessageTemplate
from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.transforms import quat, quat_conjugate, quat_rotate, vec3

GROUND_TRUTH_FIELDS = ('pose.pose.position', 'pose.pose.orientation', 'twist.twist.linear',
                       'twist.twist.angular')

EXACT_VARIANCE = 1e-9
"""Reported variance of every ground-truth number (0 reads as "unknown" to many consumers)."""


def rotate_into(orientation: Sequence[float], vector: Sequence[float]
                ) -> tuple[float, float, float]:
    """``vector`` (world) expressed in the frame whose orientation (xyzw) is ``orientation``."""
    return quat_rotate(quat_conjugate(quat(orientation)), vec3(vector))


class GroundTruth:
    """The ground-truth publisher of one mobile base."""

    def __init__(self, node: NodeHost, entity: str, base_link: str, topic: str,
                 world_frame: str, base_frame: str, rate: float):
        self._node = node
        self._entity = entity
        self._base_link = base_link
        self.topic = f'{topic}/ground_truth'
        self.publisher = node.create_publisher(Odometry, self.topic, qos.SENSOR)
        msg = Odometry()
        msg.header.frame_id = world_frame
        msg.child_frame_id = base_frame
        msg.pose.covariance = [EXACT_VARIANCE if i % 7 == 0 else 0.0 for i in range(36)]
        msg.twist.covariance = msg.pose.covariance
        self._template = MessageTemplate(msg, GROUND_TRUTH_FIELDS)
        self._rate = node.rate_limiter(rate)
        self._subscribed = False
        self._checked = -math.inf

    def _has_subscribers(self) -> bool:
        now = time.monotonic()
        if now >= self._checked + ACTIVITY_CHECK_PERIOD:
            self._checked = now
            self._subscribed = self.publisher.get_subscription_count() > 0
        return self._subscribed

    def after_step(self, t: float) -> None:
        """Physics thread: publish when due and watched."""
        if not self._rate.due(t) or not self._has_subscribers():
            return
        pose, linear, angular = self._node.sim.link_world_state(self._entity, self._base_link)
        self._node.publish_built(self.publisher, self._message, t, pose, linear, angular)

    def _message(self, t: float, pose: Pose, linear: Sequence[float],
                 angular: Sequence[float]) -> bytes:
        values = self._template.values
        values[0:3] = pose.position
        values[3:7] = pose.orientation
        values[7:10] = rotate_into(pose.orientation, linear)
        values[10:13] = rotate_into(pose.orientation, angular)
        return self._template.serialize(t)
