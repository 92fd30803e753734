"""One rclpy adapter per sensor type (see :mod:`.base`), chosen by the sensor's kind.

Each adapter class declares what it serves (its kinds, its topics in publishing order, its
``publish_rates.<key>`` parameter with the default, whether its data are in the optical frame) and
registers itself when its module is imported. This package imports them all and derives from that
registry the tables the node and ``scene-sim-ros topics`` use: :data:`ADAPTERS`,
:data:`SENSOR_TOPICS`, :data:`SUBSCRIBED_SUFFIXES`, :data:`OPTICAL_KINDS`, :data:`PUBLISH_RATES`.

=======================  ======================  ====================================  ==================
sensor kind              adapter                 topics under ``<entity>/<sensor>/``   rate key (Hz)
=======================  ======================  ====================================  ==================
camera                   CameraAdapter           image_raw (rgb8), camera_info |       camera (30)
                                                 image_raw (spherical/cylindrical)
depth_camera             DepthAdapter            image_raw (32FC1), camera_info,       depth (30; a
                                                 points (PointCloud2, rgb if RGB-D) |  rotating lidar:
                                                 scan | points (XYZIRT), scan          its frequency)
segmentation_camera      SegmentationAdapter     image_raw (rgb8), camera_info         segmentation (10)
single/approx_distance   RangeAdapter            range                                 range (0)
accelerometer/gyroscope  ImuAdapter              data_raw (``<entity>/imu/data_raw``   imu (0)
/inertial_unit                                   for a group of several on one link;
                                                 ``data`` with orientation)
collision                CollisionAdapter        contact                               collision (0)
user_input               UserInputAdapter        value, set (in)                       user_input (10)
gps / compass            GpsAdapter / Compass..  position / magnetic_field             gps (0) / imu (0)
joint_position           JointPositionAdapter    position                              joint_states (0)
emitter / receiver       EmitterAdapter / Re...  send (in) / receive (std_msgs/String  radio (0)
                                                 packets)
led                      LedAdapter              state, set (in) (std_msgs/Int32)      led (0)
light_sensor             LightSensorAdapter      illuminance                           light (0)
=======================  ======================  ====================================  ==================

The three image kinds publish in the sensor's optical frame; a rate of 0 publishes after every step.
"""

from __future__ import annotations

from collections.abc import Iterable

from scene_sim_ros.ros.bridge.adapters import (  # noqa: F401 - importing them registers their adapters
    camera,
    collision,
    depth,
    imu,
    misc,
    radio,
    ranges,
    segmentation,
    user_input,
)
from scene_sim_ros.ros.bridge.adapters.base import REGISTERED, AdapterSettings, SensorAdapter, Topic
from scene_sim_ros.ros.bridge.adapters.imu import INERTIAL_KINDS

ADAPTERS: dict[str, type[SensorAdapter]] = dict(REGISTERED)
"""Sensor kind -> its adapter class (``SensorAdapter.kinds``)."""


def _adapter_classes() -> list[type[SensorAdapter]]:
    """Every registered adapter class once, in registration order."""
    return list(dict.fromkeys(ADAPTERS.values()))


def sensor_topics(adapters: Iterable[type[SensorAdapter]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Topic key (a kind, or a variant as ``laser_scan``) -> (suffix, message type) pairs, in
    publishing order."""
    return {key: tuple((t.suffix, t.message_type) for t in topics)
            for adapter in adapters for key, topics in adapter.topic_table().items()}


def subscribed_suffixes(adapters: Iterable[type[SensorAdapter]]) -> tuple[str, ...]:
    """The suffixes of subscriptions; one that another adapter publishes under is an error (the
    topic listing tells the directions apart by suffix)."""
    topics = [t for adapter in adapters for ts in adapter.topic_table().values() for t in ts]
    subscribed = tuple(dict.fromkeys(t.suffix for t in topics if t.subscribed))
    both = sorted({t.suffix for t in topics if not t.subscribed} & set(subscribed))
    if both:
        raise TypeError(f'topic suffixes both subscribed and published: {both}')
    return subscribed


PUBLISH_RATE_ORDER = ('camera', 'depth', 'segmentation', 'imu', 'range', 'joint_states', 'collision',
                      'user_input', 'gps', 'radio', 'led', 'light')
"""The order of the ``publish_rates.*`` parameters (as config/params.yaml lists them); a rate key
not listed here follows in registration order."""


def publish_rates(adapters: Iterable[type[SensorAdapter]]) -> dict[str, float]:
    """Rate key -> default rate (Hz of sim time, 0 = after every step), in :data:`PUBLISH_RATE_ORDER`."""
    declared = {adapter.rate_key: adapter.default_rate for adapter in adapters}
    order = [key for key in PUBLISH_RATE_ORDER if key in declared]
    order += [key for key in declared if key not in PUBLISH_RATE_ORDER]
    return {key: declared[key] for key in order}


SENSOR_TOPICS = sensor_topics(_adapter_classes())
"""Topic key -> (suffix, message type), in publishing order (:meth:`SensorAdapter.topic_key`
gives a sensor's key)."""

SUBSCRIBED_SUFFIXES = subscribed_suffixes(_adapter_classes())
"""Topic suffixes the node subscribes to (``set``, ``send``); the others it publishes."""

OPTICAL_KINDS = tuple(kind for kind, adapter in ADAPTERS.items() if adapter.optical)
"""Sensor kinds whose data is expressed in an optical frame."""

PUBLISH_RATES = publish_rates(_adapter_classes())
"""The ``publish_rates.<key>`` parameters and their defaults."""

__all__ = ['ADAPTERS', 'INERTIAL_KINDS', 'OPTICAL_KINDS', 'PUBLISH_RATES', 'SENSOR_TOPICS',
           'SUBSCRIBED_SUFFIXES', 'AdapterSettings', 'SensorAdapter', 'Topic']
