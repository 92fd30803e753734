"""Topic names of the node, as data: the CLI's ``topics`` command and the node's bridges name
topics by the same rules. The sensors' topics are what their adapters declare
(:mod:`.adapters`, which imports the ROS message modules but needs no running ROS)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from scene_sim_ros.ros.bridge.adapters import ADAPTERS, INERTIAL_KINDS
from scene_sim_ros.ros.bridge.adapters import SENSOR_TOPICS as SENSOR_TOPICS  # re-exported
from scene_sim_ros.ros.bridge.adapters import SUBSCRIBED_SUFFIXES as SUBSCRIBED_SUFFIXES  # re-exported

if TYPE_CHECKING:
    from scene_sim_ros.scene import Entity, Sensor

_NOT_NAME = re.compile(r'[^A-Za-z0-9_]')

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
    """The key of :data:`SENSOR_TOPICS` for a scene sensor (its adapter's choice: a spherical depth
    camera has its own)."""
    adapter = ADAPTERS.get(sensor.kind)
    return str(sensor.kind) if adapter is None else adapter.topic_key(sensor)


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
        """(suffix, message type) of the group's topics, in publishing order (none without an
        adapter)."""
        adapter = ADAPTERS.get(self.first.kind)
        if adapter is None:
            return ()
        return tuple((t.suffix, t.message_type) for t in adapter.group_topics(self.sensors))


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
