"""``Accelerometer``, ``Gyroscope`` and ``InertialUnit`` -> ``sensor_msgs/Imu`` (REP-145).

The inertial sensors of one link form one group and one message (the node groups them): an
accelerometer and a gyroscope together publish ``imu/data_raw``; with an inertial unit (an
orientation) the topic is ``imu/data``; a lone sensor publishes ``<sensor>/data_raw`` with the
missing quantities marked absent (covariance[0] = -1). The frame is the first sensor's
(accelerometer, gyroscope, inertial unit in that order); readings of the others are rotated into
it when their mounts differ. Covariance diagonals are the noise variances (a small floor when a
sensor is noise-free, because 0 means "unknown" to many consumers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sensor_msgs.msg import Imu

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import AdapterSettings, SensorAdapter, Topic
from scene_sim_ros.ros.bridge.conversions import imu_message
from scene_sim_ros.ros.serialized import MessageTemplate
from scene_sim_ros.scene.transforms import Quat, quat_conjugate, quat_multiply, quat_rotate, vec3

if TYPE_CHECKING:
    from scene_sim_ros.scene import Accelerometer, Entity, Gyroscope, InertialUnit

    InertialSensor = Accelerometer | Gyroscope | InertialUnit

INERTIAL_KINDS = ('accelerometer', 'gyroscope', 'inertial_unit')
"""Kinds grouped per link into one Imu message, in this order (the first gives the frame)."""

DATA_RAW = Topic('data_raw', 'sensor_msgs/msg/Imu')
DATA = Topic('data', 'sensor_msgs/msg/Imu')  # with an orientation: a group with an inertial unit

FIELDS = ('orientation', 'angular_velocity', 'linear_acceleration')
"""The numbers of an Imu message that change (covariances and frame are set once)."""


def sort_group(sensors: Iterable[InertialSensor]) -> tuple[InertialSensor, ...]:
    """The sensors of a group in :data:`INERTIAL_KINDS` (the first gives the frame)."""
    return tuple(sorted(sensors, key=lambda s: INERTIAL_KINDS.index(s.kind)))


class ImuAdapter(SensorAdapter):
    kinds = INERTIAL_KINDS
    topics = (DATA_RAW,)
    topic_variants = {'inertial_unit': (DATA,)}
    rate_key = 'imu'
    default_rate = 0.0

    @classmethod
    def group_topics(cls, sensors: Sequence[Any]) -> tuple[Topic, ...]:
        """One message for the whole group: ``data`` when it has an orientation."""
        return (DATA,) if any(s.kind == 'inertial_unit' for s in sensors) else (DATA_RAW,)

    def init(self, node: Any, entity: Entity, sensor: Any, settings: AdapterSettings) -> None:
        self.group = sort_group(sensor if isinstance(sensor, tuple) else (sensor,))
        super().init(node, entity, self.group[0], settings)

    def setup(self) -> None:
        by_kind = {s.kind: s for s in self.group}
        self.accelerometer = by_kind.get('accelerometer')
        self.gyroscope = by_kind.get('gyroscope')
        self.inertial_unit = by_kind.get('inertial_unit')
        frame = self.group[0].pose.orientation
        self.msg = imu_message(
            acceleration_noise=_noise(self.accelerometer),
            angular_velocity_noise=_noise(self.gyroscope),
            orientation_noise=_noise(self.inertial_unit))
        self.msg.header.frame_id = self.settings.frame_id
        # rotation from another sensor's frame into the message frame (None: the same frame)
        self._gyro_rotation = _relative(frame, self.gyroscope)
        self._accel_rotation = _relative(frame, self.accelerometer)
        self._orientation_fix = (None if self.inertial_unit is None
                                 or self.inertial_unit.pose.orientation == frame else
                                 quat_multiply(quat_conjugate(self.inertial_unit.pose.orientation),
                                               frame))
        self.publisher = self.create_publisher(Imu, self.group_topics(self.group)[0].suffix,
                                               qos.SENSOR)
        # serialized once, the numbers patched per publication (see ..serialized)
        self.template = MessageTemplate(self.msg, FIELDS)
        self._orientation = self.template.slices['orientation']
        self._angular_velocity = self.template.slices['angular_velocity']
        self._linear_acceleration = self.template.slices['linear_acceleration']

    def publish(self, t: float) -> None:
        """Read here (physics thread); the message is built by :meth:`_message`, on the outbox
        thread where the node has one."""
        sim, name = self.node.sim, self.entity.name
        acceleration = rate = orientation = None
        if self.accelerometer is not None:
            acceleration = sim.read(name, self.accelerometer.name)
        if self.gyroscope is not None:
            rate = sim.read(name, self.gyroscope.name)
        if self.inertial_unit is not None:
            orientation = sim.read(name, self.inertial_unit.name)
        self.node.publish_built(self.publisher, self._message, t, acceleration, rate,
                                orientation)

    def _message(self, t: float, acceleration: np.ndarray | None, rate: np.ndarray | None,
                 orientation: np.ndarray | None) -> bytes:
        values = self.template.values
        if acceleration is not None:
            values[self._linear_acceleration] = _rotated(self._accel_rotation, acceleration)
        if rate is not None:
            values[self._angular_velocity] = _rotated(self._gyro_rotation, rate)
        if orientation is not None:
            x, y, z, w = orientation
            q: Quat = (float(x), float(y), float(z), float(w))
            if self._orientation_fix is not None:
                q = quat_multiply(q, self._orientation_fix)
            values[self._orientation] = q
        return self.template.serialize(t)


def _noise(sensor: InertialSensor | None) -> float | None:
    return None if sensor is None else float(sensor.noise)


def _relative(frame: Quat, sensor: InertialSensor | None) -> Quat | None:
    if sensor is None or sensor.pose.orientation == frame:
        return None
    return quat_multiply(quat_conjugate(frame), sensor.pose.orientation)


def _rotated(rotation: Quat | None, value: Any) -> np.ndarray | tuple[float, float, float]:
    if rotation is None:
        return value
    return quat_rotate(rotation, vec3(value))
