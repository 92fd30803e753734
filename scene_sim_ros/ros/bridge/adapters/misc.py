"""The remaining readings, each as the message peers use: ``Gps`` -> ``<topic>/position``
(``geometry_msgs/PointStamped`` in the world frame), ``Compass`` -> ``<topic>/magnetic_field``
(``sensor_msgs/MagneticField``, the unit vector to north in the sensor frame, as webots_ros2),
``JointPositionSensor`` -> ``<topic>/position`` (``std_msgs/Float64``), ``LightSensor`` ->
``<topic>/illuminance`` (``sensor_msgs/Illuminance``: the sensor's output, as Webots' ROS
interface publishes it)."""

from __future__ import annotations

from geometry_msgs.msg import PointStamped
from sensor_msgs.msg import Illuminance, MagneticField
from std_msgs.msg import Float64

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic
from scene_sim_ros.ros.bridge.conversions import set_vector3


class GpsAdapter(SensorAdapter):
    kinds = ('gps',)
    topics = (Topic('position', 'geometry_msgs/msg/PointStamped'),)
    rate_key = 'gps'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = PointStamped()
        self.msg.header.frame_id = self.node.frames.world
        self.publisher = self.create_publisher(PointStamped, 'position', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.stamp(self.msg.header, t)
        set_vector3(self.msg.point, self.read())
        self.node.publish(self.publisher, self.msg)


class CompassAdapter(SensorAdapter):
    kinds = ('compass',)
    topics = (Topic('magnetic_field', 'sensor_msgs/msg/MagneticField'),)
    rate_key = 'imu'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = MagneticField()
        self.msg.header.frame_id = self.settings.frame_id
        self.publisher = self.create_publisher(MagneticField, 'magnetic_field', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.stamp(self.msg.header, t)
        set_vector3(self.msg.magnetic_field, self.read())
        self.node.publish(self.publisher, self.msg)


class JointPositionAdapter(SensorAdapter):
    kinds = ('joint_position',)
    topics = (Topic('position', 'std_msgs/msg/Float64'),)
    rate_key = 'joint_states'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = Float64()
        self.publisher = self.create_publisher(Float64, 'position', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.msg.data = float(self.read())
        self.node.publish(self.publisher, self.msg)


class LightSensorAdapter(SensorAdapter):
    kinds = ('light_sensor',)
    topics = (Topic('illuminance', 'sensor_msgs/msg/Illuminance'),)
    rate_key = 'light'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = Illuminance()
        self.msg.header.frame_id = self.settings.frame_id
        self.publisher = self.create_publisher(Illuminance, 'illuminance', qos.SENSOR)

    def publish(self, t: float) -> None:
        self.stamp(self.msg.header, t)
        self.msg.illuminance = float(self.read())
        self.node.publish(self.publisher, self.msg)
