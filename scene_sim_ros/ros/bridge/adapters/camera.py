"""``Camera`` -> ``<topic>/image_raw`` (rgb8) + ``<topic>/camera_info``, in the optical frame.

Rendered only while someone subscribes to either topic, at ``publish_rates.camera`` (sim time).
Both messages carry the same stamp and frame_id.
"""

from __future__ import annotations

from sensor_msgs.msg import Image

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.conversions import camera_info, fill_image

IMAGE_RAW = Topic('image_raw', 'sensor_msgs/msg/Image')
CAMERA_INFO = Topic('camera_info', 'sensor_msgs/msg/CameraInfo')


class CameraAdapter(SensorAdapter):
    kinds = ('camera',)
    topics = (IMAGE_RAW, CAMERA_INFO)
    rate_key = 'camera'
    default_rate = 30.0
    optical = True
    lazy = True

    def setup(self) -> None:
        s = self.sensor
        self.image_publisher = self.create_publisher(Image, 'image_raw', qos.IMAGE)
        self.info_publisher = self.create_publisher(type(camera_info(1, 1, 1.0, 1.0)),
                                                    'camera_info', qos.IMAGE)
        self.image = Image()
        self.image.header.frame_id = self.settings.frame_id
        self.info = camera_info(s.width, s.height, s.fov_x, s.fov_y)
        self.info.header.frame_id = self.settings.frame_id
        self.info.header.stamp = self.image.header.stamp  # one Time object: equal stamps

    def publish(self, t: float) -> None:
        self.stamp(self.image.header, t)
        if self.image_publisher.get_subscription_count() > 0:
            fill_image(self.image, self.read())
            self.node.publish(self.image_publisher, self.image)
        self.node.publish(self.info_publisher, self.info)
