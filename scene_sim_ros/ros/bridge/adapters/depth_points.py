"""``<sensor>/points`` of a perspective depth camera: ``sensor_msgs/PointCloud2``, organized.

height x width points in the depth image's optical frame, with its stamp: x y z float32 as
depth_image_proc's point_cloud_xyz lays them out (point_step 16), NaN for no return (+inf/-inf
in the image), ``is_dense`` false. A depth camera registered with a colour camera of its entity
(an RGB-D pair, :func:`~scene_sim_ros.sim.sensors.point_clouds.rgbd_partner`) adds ``rgb`` as
depth_image_proc's point_cloud_xyzrgb does (float32 holding 0x00RRGGBB at offset 16, point_step
32), the colour read in the same step. The math is :mod:`scene_sim_ros.sim.sensors.point_clouds`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sensor_msgs.msg import PointCloud2

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.point_cloud import fill_point_cloud
from scene_sim_ros.sim.sensors.point_clouds import (
    Registration,
    registered_cloud,
    rgbd_partner,
    sensor_rays,
    unproject,
)

POINTS = Topic('points', 'sensor_msgs/msg/PointCloud2')


class DepthPoints:
    """The ``points`` publisher of one perspective depth adapter."""

    def __init__(self, adapter: SensorAdapter) -> None:
        self.adapter = adapter
        self.publisher = adapter.create_publisher(PointCloud2, POINTS.suffix, qos.IMAGE)
        self.cloud = PointCloud2()
        self.rays = sensor_rays(adapter.sensor)
        self.partner = rgbd_partner(adapter.sensor, adapter.entity.sensors)
        self.registration = (Registration.of(adapter.sensor, self.partner)
                             if self.partner is not None else None)
        self.buffer: np.ndarray | None = None  # the last cloud's points, refilled
        if self.partner is not None and self.registration is not None:
            adapter.node.get_logger().info(
                f'{adapter.settings.topic}/points: RGB-D, coloured from camera '
                f'{self.partner.name!r} ({self.partner.width}x{self.partner.height}, '
                f'{1e2 * float(np.linalg.norm(self.registration.baseline)):.2f} cm away)')

    def wanted(self) -> bool:
        return bool(self.publisher.get_subscription_count() > 0)

    def publish(self, depth: np.ndarray, header: Any) -> None:
        """Publish the cloud of ``depth`` (the REP-118 image: +inf/-inf out of range) with the
        image's ``header`` (stamp and optical frame)."""
        self.cloud.header = header
        fill_point_cloud(self.cloud, self.points(depth), is_dense=False)
        self.adapter.node.publish(self.publisher, self.cloud)

    def points(self, depth: np.ndarray) -> np.ndarray:
        if self.partner is None or self.registration is None:
            self.buffer = unproject(depth, self.rays, self.buffer)
            return self.buffer
        adapter = self.adapter
        colour = np.asarray(adapter.node.sim.read(adapter.entity.name, self.partner.name))
        self.buffer = registered_cloud(depth, self.rays, colour, self.registration, self.buffer)
        return self.buffer
