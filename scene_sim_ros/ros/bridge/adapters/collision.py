"""``CollisionSensor`` -> ``<topic>/contact`` (``std_msgs/Bool``: touching anything else now)."""

from __future__ import annotations

from std_msgs.msg import Bool

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic


class CollisionAdapter(SensorAdapter):
    kinds = ('collision',)
    topics = (Topic('contact', 'std_msgs/msg/Bool'),)
    rate_key = 'collision'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = Bool()
        self.publisher = self.create_publisher(Bool, 'contact', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.msg.data = bool(self.read()['in_contact'])
        self.node.publish(self.publisher, self.msg)
