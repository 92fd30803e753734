"""``SingleDistanceSensor`` / ``ApproxDistanceSensor`` -> ``<topic>/range`` (``sensor_msgs/Range``,
in the sensor frame, x along the beam; REP-117: +inf for no return within ``max_range``, -inf
closer than ``min_range``). ``Simulation.read`` gives SimRobot's ``max_range``/``min_range``
there instead; :func:`..conversions.range_rep117` converts (a reading at a limit counts as out
of range).

A single ray is reported as INFRARED with a zero field of view, the cone of an approximate sensor
as ULTRASOUND with its horizontal opening angle. Cast only while subscribed.
"""

from __future__ import annotations

from sensor_msgs.msg import Range

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.conversions import range_message, range_rep117


class RangeAdapter(SensorAdapter):
    kinds = ('single_distance', 'approx_distance')
    topics = (Topic('range', 'sensor_msgs/msg/Range'),)
    rate_key = 'range'
    default_rate = 0.0
    lazy = True

    def setup(self) -> None:
        s = self.sensor
        if s.kind == 'approx_distance':
            self.msg = range_message(Range.ULTRASOUND, s.fov_x, s.min_range, s.max_range)
        else:
            self.msg = range_message(Range.INFRARED, 0.0, s.min_range, s.max_range)
        self.msg.header.frame_id = self.settings.frame_id
        self.publisher = self.create_publisher(Range, 'range', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.stamp(self.msg.header, t)
        s = self.sensor
        self.msg.range = range_rep117(float(self.read()), s.min_range, s.max_range)
        self.node.publish(self.publisher, self.msg)
