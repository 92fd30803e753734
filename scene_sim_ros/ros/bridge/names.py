"""Topic names of the node, as data (pure Python: the CLI's ``topics`` command uses it without
rclpy, and the adapters' topics are checked against it in the tests)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scene_sim_ros.scene import Entity, Sensor

_NOT_NAME = re.compile(r'[^A-Za-z0-9_]')

SENSOR_TOPICS: dict[str, tuple[tuple[str, str], ...]] = {
    # sensor kind -> (topic suffix, message type); 'set' and 'send' are subscriptions
    'camera': (('image_raw', 'sensor_msgs/msg/Image'), ('camera_info', 'sensor_msgs/msg/CameraInfo')),
    'depth_camera': (('image_raw', 'sensor_msgs/msg/Image'),
                     ('camera_info', 'sensor_msgs/msg/CameraInfo')),
    'spherical_depth': (('image_raw', 'sensor_msgs/msg/Image'),),
    'laser_scan': (('image_raw', 'sensor_msgs/msg/Image'), ('scan', 'sensor_msgs/msg/LaserScan')),
    'segmentation_camera': (('image_raw', 'sensor_msgs/msg/Image'),
                            ('camera_info', 'sensor_msgs/msg/CameraInfo')),
    'single_distance': (('range', 'sensor_msgs/msg/Range'),),
    'approx_distance': (('range', 'sensor_msgs/msg/Range'),),
    'accelerometer': (('data_raw', 'sensor_msgs/msg/Imu'),),
    'gyroscope': (('data_raw', 'sensor_msgs/msg/Imu'),),
    'inertial_unit': (('data', 'sensor_msgs/msg/Imu'),),
    'collision': (('contact', 'std_msgs/msg/Bool'),),
    'user_input': (('value', 'std_msgs/msg/Float64'), ('set', 'std_msgs/msg/Float64')),
    'gps': (('position', 'geometry_msgs/msg/PointStamped'),),
    'compass': (('magnetic_field', 'sensor_msgs/msg/MagneticField'),),
    'joint_position': (('position', 'std_msgs/msg/Float64'),),
    'emitter': (('send', 'std_msgs/msg/String'),),
    'receiver': (('receive', 'std_msgs/msg/String'),),
    'led': (('state', 'std_msgs/msg/Int32'), ('set', 'std_msgs/msg/Int32')),
    'light_sensor': (('illuminance', 'sensor_msgs/msg/Illuminance'),),
}

SUBSCRIBED_SUFFIXES = ('set', 'send')

TRAJECTORY_CONTROLLER = 'joint_trajectory_controller'
"""Namespace of the FollowJointTrajectory action and its state topic, as ros2_control names it."""


SHARED_TOPICS = ('/clock', '/tf', '/tf_static')
"""Topics every ROS 2 node shares by default; an isolated instance keeps them in its namespace."""


def shared_topic(topic: str, isolate: bool) -> str:
    """``/clock``, ``/tf``, ``/tf_static``, or relative (``<namespace>/clock``) when isolated."""
    return topic.lstrip('/') if isolate else topic


def instance_frame_prefix(namespace: str, isolate: bool, frame_prefix: str = '') -> str:
    """The prefix of every frame id of an instance: ``frame_prefix`` when given, else the
    namespace for an isolated instance (``/sim_a`` -> ``sim_a/``), else none."""
    if frame_prefix:
        return frame_prefix if frame_prefix.endswith('/') else frame_prefix + '/'
    namespace = namespace.strip('/')
    return f'{namespace}/' if isolate and namespace else ''


def isolation_remappings(namespace: str, isolate: bool) -> list[tuple[str, str]]:
    """Remappings that put a companion node (robot_state_publisher, rviz2), in any namespace,
    on the clock and TF of an instance isolated in ``namespace`` (``/tf:=/sim_a/tf``)."""
    namespace = namespace.strip('/')
    if not (isolate and namespace):
        return []
    return [(topic, f'/{namespace}{topic}') for topic in SHARED_TOPICS]


def ros_name(text: str) -> str:
    """``text`` as one token of a ROS name: letters, digits and '_', not starting with a digit."""
    token = _NOT_NAME.sub('_', text) or '_'
    return f'_{token}' if token[0].isdigit() else token


def sensor_topic_kind(sensor: Any) -> str:
    """The key of :data:`SENSOR_TOPICS` for a scene sensor."""
    if sensor.kind == 'depth_camera' and sensor.projection == 'spherical':
        return 'laser_scan' if sensor.height == 1 else 'spherical_depth'
    return sensor.kind


INERTIAL_KINDS = ('accelerometer', 'gyroscope', 'inertial_unit')
"""Kinds grouped per link into one Imu message, in this order (the first gives the frame)."""


class SensorGroup:
    """Sensors bridged by one adapter: usually one; the inertial sensors of one link together."""

    __slots__ = ('sensors', 'topic')

    def __init__(self, sensors: tuple[Sensor, ...], topic: str):
        self.sensors = sensors
        self.topic = topic  # topic base relative to the entity's

    @property
    def first(self) -> Sensor:
        return self.sensors[0]

    @property
    def suffixes(self) -> tuple[tuple[str, str], ...]:
        if self.first.kind in INERTIAL_KINDS:
            suffix = 'data' if any(s.kind == 'inertial_unit' for s in self.sensors) else 'data_raw'
            return ((suffix, 'sensor_msgs/msg/Imu'),)
        return SENSOR_TOPICS.get(sensor_topic_kind(self.first), ())


def sensor_groups(entity: Entity) -> list[SensorGroup]:
    """How the node bridges the sensors of ``entity`` (default topic bases)."""
    groups: list[SensorGroup] = []
    inertial: dict[str, list[Sensor]] = {}
    for sensor in entity.sensors:
        if sensor.kind in INERTIAL_KINDS:
            inertial.setdefault(sensor.link, []).append(sensor)
        else:
            groups.append(SensorGroup((sensor,), ros_name(sensor.name)))
    for index, members in enumerate(inertial.values()):
        members.sort(key=lambda s: INERTIAL_KINDS.index(s.kind))
        if len(members) == 1:
            groups.append(SensorGroup((members[0],), ros_name(members[0].name)))
        else:
            groups.append(SensorGroup(tuple(members), 'imu' if len(inertial) == 1 else f'imu{index}'))
    return groups
