"""``Camera`` -> ``<topic>/image_raw`` (rgb8) + ``<topic>/camera_info``, in the optical frame.

Rendered only while someone subscribes to either topic, at ``publish_rates.camera`` (sim time),
and only the frames the node's frame budget admits: pacing at a real-time factor it cannot keep
with every frame, a camera drops frames fairly instead of stalling /clock
(``ros/runtime/frame_budget.py``, docs/topics.md#frame-drops).
Both messages carry the same stamp and frame_id. A Webots 'spherical' or 'cylindrical' camera
(:mod:`scene_sim_ros.sim.sensors.projection`) has no pinhole model, so it publishes no
camera_info, as spherical depth images do (:mod:`.depth`); its image is still in the optical
frame (columns to the right, rows down).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from rclpy.publisher import Publisher
from sensor_msgs.msg import CameraInfo, Image

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.conversions import camera_info, fill_image
from scene_sim_ros.ros.serialized import ImageTemplate

IMAGE_RAW = Topic('image_raw', 'sensor_msgs/msg/Image')
CAMERA_INFO = Topic('camera_info', 'sensor_msgs/msg/CameraInfo')


class CameraAdapter(SensorAdapter):
    kinds = ('camera',)
    topics = (IMAGE_RAW, CAMERA_INFO)
    topic_variants = {'panoramic_camera': (IMAGE_RAW,)}
    rate_key = 'camera'
    default_rate = 30.0
    optical = True
    lazy = True
    rendered = True

    @classmethod
    def topic_key(cls, sensor: Any) -> str:
        """A non-planar camera (no pinhole model) has no camera_info."""
        return str(sensor.kind) if planar(sensor) else 'panoramic_camera'

    def setup(self) -> None:
        s = self.sensor
        self.image_publisher = self.create_publisher(Image, 'image_raw', qos.IMAGE)
        self.image = Image()
        self.image.header.frame_id = self.settings.frame_id
        self._image_template: tuple[Any, ImageTemplate] | None = None  # (shape, dtype)
        self.info_publisher: Publisher[CameraInfo] | None = None
        if planar(s):
            self.info_publisher = self.create_publisher(CameraInfo, 'camera_info', qos.IMAGE)
            lens = getattr(s, 'lens', None)  # the SegmentationAdapter's sensors have none
            self.info = camera_info(s.width, s.height, s.fov_x, s.fov_y, lens)
            self.info.header.frame_id = self.settings.frame_id
            self.info.header.stamp = self.image.header.stamp  # one Time object: equal stamps

    def frame_reader(self) -> Any | None:
        return self.reader() if self.image_publisher.get_subscription_count() > 0 else None

    def publish(self, t: float) -> None:
        """Read the frame here (physics thread); its bytes are put together by
        :meth:`ImageTemplate.serialize` on the outbox thread where the node has one. A frame
        the step loop drew in its batched round is read back, serialized and published on the
        node's frame lane while the next steps run (:meth:`CameraReader.read_later`)."""
        self.stamp(self.image.header, t)
        if self.image_publisher.get_subscription_count() > 0:
            read_later = getattr(self.reader(), 'read_later', None)  # colour cameras only
            later = read_later() if read_later is not None else None
            if later is not None:
                s = self.sensor
                template = self._template((s.height, s.width, 3), np.dtype(np.uint8))
                self.node.publish_frame(self.image_publisher, _serialize_later, template, t,
                                        later)
            else:
                pixels = self.read()
                self.node.publish_built(self.image_publisher,
                                        self._template(pixels.shape, pixels.dtype).serialize,
                                        t, pixels)
        if self.info_publisher is not None:
            self.node.publish(self.info_publisher, self.info)

    def _template(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> ImageTemplate:
        """The image template of frames of ``shape`` and ``dtype`` (made on the first)."""
        if self._image_template is None or self._image_template[0] != (shape, dtype):
            fill_image(self.image, np.zeros(shape, dtype))  # geometry and encoding
            self._image_template = ((shape, dtype), ImageTemplate(self.image))
        return self._image_template[1]


def _serialize_later(template: ImageTemplate, t: float,
                     later: Callable[[], np.ndarray]) -> bytes:
    return template.serialize(t, later())


def planar(sensor: Any) -> bool:
    """Whether an image sensor is a pinhole camera (segmentation cameras always are)."""
    return getattr(sensor, 'projection', 'planar') == 'planar'
