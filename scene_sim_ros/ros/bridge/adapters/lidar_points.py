"""A multi-row spherical depth sensor (a 3-D lidar) -> ``<sensor>/points`` and ``<sensor>/scan``.

``points`` is a ``sensor_msgs/PointCloud2`` laid out as the Velodyne ROS driver's XYZIRT cloud
(:class:`~scene_sim_ros.sim.sensors.point_clouds.LidarCloud` builds it; ros-drivers/velodyne,
velodyne_pointcloud/src/lib/pointcloudXYZIRT.cpp, the ``PointcloudXYZIRT`` constructor: x, y, z,
intensity FLOAT32, ring UINT16, time FLOAT32, packed in that order, so ``point_step`` is 22), in
the body-aligned sensor frame (x forward, z up):

- no-return points are *dropped*, as that driver does by default (``addPoint`` returns early when
  ``!pointInRange(distance)``; its organized mode, which keeps NaN, is opt-in): the cloud is
  unorganized (height 1), ``is_dense`` true. A hit closer than ``min_range`` is dropped too
  (Webots returns +inf there, the driver's range test drops it);
- ``ring`` 0 is the lowest layer (Velodyne's numbering, bottom up), so ring ``k`` is image row
  ``height - 1 - k`` (rows run top down, as Webots' layers do);
- ``time`` is seconds after the message's stamp at which the column would be measured: 0 for
  the first column, up to one revolution for a rotating head
  (:func:`scene_sim_ros.sim.sensors.rays.column_times`), as the Velodyne driver's ``time`` counts
  from the scan's first packet (rawdata: ``time_diff_start_to_this_packet``); a fixed head gives
  every point time 0. The ranges themselves are all cast at the stamp's pose (the scene does not
  move within a step);
- ``intensity`` is 0: no reflectivity is simulated (Webots' lidar has none either).

``scan`` is the middle layer as a ``sensor_msgs/LaserScan``: ring ``height // 2``, exactly the
middle for an odd count; for an even count the upper of the two central rings (of an untilted
lidar the one just above the horizontal, which a lidar near the floor does not point into).
Its angles are the one-row scan's (:func:`scene_sim_ros.ros.bridge.adapters.depth.scan_angles`):
the ranges along that layer's cone, as webots_ros2 publishes a layer's ranges.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sensor_msgs.msg import LaserScan, PointCloud2

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.depth_points import POINTS
from scene_sim_ros.ros.bridge.conversions import fill_scan, laser_scan
from scene_sim_ros.ros.bridge.point_cloud import fill_point_cloud
from scene_sim_ros.sim.sensors.point_clouds import LidarCloud


def middle_ring(layers: int) -> int:
    """The ring published as the LaserScan (see the module docstring)."""
    return layers // 2


class LidarPoints:
    """Publishes the cloud and the middle-layer scan of one 3-D lidar adapter."""

    def __init__(self, adapter: Any, angle_min: float, angle_increment: float) -> None:
        s = adapter.sensor
        self.node = adapter.node
        self.builder = LidarCloud(adapter.reader())
        self.points_publisher = adapter.create_publisher(PointCloud2, POINTS.suffix, qos.SENSOR)
        self.scan_publisher = adapter.create_publisher(LaserScan, 'scan', qos.SENSOR)
        self.cloud = PointCloud2()
        self.cloud.header.frame_id = adapter.settings.sensor_frame
        period = 1.0 / adapter.settings.rate if adapter.settings.rate > 0 else 0.0
        self.scan = laser_scan(angle_min, angle_increment, s.width, s.min_range, s.max_range,
                               period)
        self.scan.header.frame_id = adapter.settings.sensor_frame
        self.scan_row = s.height - 1 - middle_ring(s.height)

    def wanted(self) -> tuple[bool, bool]:
        """(cloud, scan): whether each has a subscriber."""
        return (self.points_publisher.get_subscription_count() > 0,
                self.scan_publisher.get_subscription_count() > 0)

    def publish(self, depth: np.ndarray, header: Any, want: tuple[bool, bool]) -> None:
        """Publish from ``depth``, the REP-117 (H, W) ranges (+inf/-inf out of range)."""
        want_cloud, want_scan = want
        if want_cloud:
            self.cloud.header.stamp = header.stamp
            fill_point_cloud(self.cloud, self.builder.points(depth), is_dense=True)
            self.node.publish(self.points_publisher, self.cloud)
        if want_scan:
            self.scan.header.stamp = header.stamp
            fill_scan(self.scan, depth[self.scan_row, ::-1])
            self.node.publish(self.scan_publisher, self.scan)
