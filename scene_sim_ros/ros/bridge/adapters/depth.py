"""``DepthCamera`` -> ``<topic>/image_raw`` (32FC1, metres, REP-118) and, for a one-row spherical
sensor, ``<topic>/scan`` (``sensor_msgs/LaserScan``); a spherical sensor of several rows (a 3-D
lidar) publishes ``<topic>/points`` and its middle row as ``scan`` (:mod:`.lidar_points`), one
cloud per revolution of a rotating head (its ``frequency``, unless the sensor's own rate is set).

Perspective sensors publish ``camera_info`` too (depth along the optical z axis, frame
``<sensor>_optical_frame``) and ``points`` (``sensor_msgs/PointCloud2``, organized, in that
frame, coloured where a camera is registered with it: :mod:`.depth_points`; one depth read
serves image and cloud). Spherical images have no pinhole model, so no camera_info; their
scan is in the body-aligned sensor frame (x forward, angles counter-clockwise about z), which
reverses the image's left-to-right columns. Image and scan follow REP-118/REP-117: +inf where
nothing is within ``max_range``, -inf closer than ``min_range`` (``Simulation.read`` gives
SimRobot's ``max_range``/``min_range`` there; :func:`..conversions.to_rep117` converts, a reading
at a limit counting as out of range); ``range_min``/``range_max`` are the sensor's; the stamp is
the sim time of the step. Nav2's ``scan``: remap it (``--ros-args -r
/<entity>/<sensor>/scan:=/scan``). Read only while one of the topics has a subscriber.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from sensor_msgs.msg import CameraInfo, Image, LaserScan

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.adapters.camera import CAMERA_INFO, IMAGE_RAW
from scene_sim_ros.ros.bridge.adapters.depth_points import POINTS, DepthPoints
from scene_sim_ros.ros.bridge.adapters.lidar_points import LidarPoints
from scene_sim_ros.ros.bridge.conversions import camera_info, fill_image, fill_scan, laser_scan, to_rep117

if TYPE_CHECKING:
    from scene_sim_ros.sim.sensors.rays import SphericalDepthReader

SCAN = Topic('scan', 'sensor_msgs/msg/LaserScan')


def scan_angles(reader: SphericalDepthReader) -> tuple[float, float]:
    """(angle_min, angle_increment) of the LaserScan of a one-row spherical depth reader.

    The columns run left to right (angle decreasing); reversed they are counter-clockwise
    (REP-103/LaserScan: positive increment), starting at the reader's *last* column. For a full
    circle that is not ``-angle_min`` (the first and last rays do not coincide)."""
    return reader.angle_max, -reader.angle_increment


class DepthAdapter(SensorAdapter):
    kinds = ('depth_camera',)
    topics = (IMAGE_RAW, CAMERA_INFO, POINTS)
    topic_variants = {'spherical_depth': (IMAGE_RAW, POINTS, SCAN), 'laser_scan': (IMAGE_RAW, SCAN)}
    rate_key = 'depth'
    default_rate = 30.0
    optical = True
    lazy = True
    rendered = True

    def uses_frame_budget(self) -> bool:
        """Perspective depth images are rendered (frame budget); spherical ones are ray casts."""
        return bool(self.sensor.projection != 'spherical')

    @classmethod
    def topic_key(cls, sensor: Any) -> str:
        """A spherical image has no camera_info; one of a single row also publishes a scan, one
        of several rows (a 3-D lidar) a cloud and its middle row's scan."""
        if sensor.projection != 'spherical':
            return str(sensor.kind)
        return 'laser_scan' if sensor.height == 1 else 'spherical_depth'

    @classmethod
    def scene_rate(cls, sensor: Any) -> float:
        """A rotating 3-D lidar publishes one cloud per revolution, as a Velodyne driver does."""
        rotating = sensor.projection == 'spherical' and sensor.height > 1 and sensor.rotating
        return float(sensor.frequency) if rotating else 0.0

    def setup(self) -> None:
        s = self.sensor
        self.spherical = s.projection == 'spherical'
        self.image_publisher = self.create_publisher(Image, 'image_raw', qos.IMAGE)
        self.image = Image()
        self.image.header.frame_id = (self.settings.sensor_frame if self.spherical
                                      else self.settings.frame_id)
        self.info_publisher = None
        self.scan_publisher = None
        self.points: DepthPoints | None = None
        self.lidar: LidarPoints | None = None
        if not self.spherical:
            self.info_publisher = self.create_publisher(CameraInfo, 'camera_info', qos.IMAGE)
            self.info = camera_info(s.width, s.height, s.fov_x, s.fov_y, s.lens)
            self.info.header.frame_id = self.settings.frame_id
            self.info.header.stamp = self.image.header.stamp
            self.points = DepthPoints(self)
        elif s.height == 1:
            self.scan_publisher = self.create_publisher(LaserScan, 'scan', qos.SENSOR)
            reader = self.reader()
            period = 1.0 / self.settings.rate if self.settings.rate > 0 else 0.0
            angle_min, increment = scan_angles(reader)
            self.scan = laser_scan(angle_min, increment, s.width, s.min_range, s.max_range,
                                   period)
            self.scan.header.frame_id = self.settings.sensor_frame
            self.scan.header.stamp = self.image.header.stamp
        else:
            self.lidar = LidarPoints(self, *scan_angles(self.reader()))

    def publish(self, t: float) -> None:
        self.stamp(self.image.header, t)
        want_image = self.image_publisher.get_subscription_count() > 0
        want_scan = (self.scan_publisher is not None
                     and self.scan_publisher.get_subscription_count() > 0)
        points = self.points if self.points is not None and self.points.wanted() else None
        want_lidar = self.lidar.wanted() if self.lidar is not None else (False, False)
        if want_image or want_scan or points is not None or any(want_lidar):
            s = self.sensor
            depth = to_rep117(np.asarray(self.read()), s.min_range, s.max_range)
            if want_image:
                fill_image(self.image, depth)
                self.node.publish(self.image_publisher, self.image)
            if want_scan:
                fill_scan(self.scan, depth[0, ::-1])
                self.node.publish(self.scan_publisher, self.scan)
            if points is not None:
                points.publish(depth, self.image.header)
            if self.lidar is not None and any(want_lidar):
                self.lidar.publish(depth, self.image.header, want_lidar)
        if self.info_publisher is not None:
            self.node.publish(self.info_publisher, self.info)
