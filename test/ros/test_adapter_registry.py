"""Sensor adapters register themselves (scene_sim_ros.ros.bridge.adapters.base.register) and the
package's tables are derived from what they declare."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip('rclpy')

from scene_sim_ros.ros.bridge import adapters, names  # noqa: E402
from scene_sim_ros.ros.bridge.adapters import base  # noqa: E402
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic  # noqa: E402
from scene_sim_ros.ros.bridge.adapters.camera import CameraAdapter  # noqa: E402
from scene_sim_ros.scene import sensors as model  # noqa: E402

THERMOMETER = Topic('temperature', 'sensor_msgs/msg/Temperature')


@pytest.fixture
def registry() -> Iterator[dict[str, type[SensorAdapter]]]:
    """The registry, restored after the test (a class defined in a test registers itself)."""
    saved = dict(base.REGISTERED)
    yield base.REGISTERED
    base.REGISTERED.clear()
    base.REGISTERED.update(saved)


def test_a_class_that_declares_kinds_registers_itself_for_each(registry):
    class ThermometerAdapter(SensorAdapter):
        kinds = ('thermometer', 'hygrometer')
        topics = (THERMOMETER,)
        rate_key = 'imu'

    assert registry['thermometer'] is registry['hygrometer'] is ThermometerAdapter
    assert adapters.sensor_topics([ThermometerAdapter]) == {
        'thermometer': (('temperature', 'sensor_msgs/msg/Temperature'),),
        'hygrometer': (('temperature', 'sensor_msgs/msg/Temperature'),)}


def test_a_subclass_that_declares_no_kinds_registers_nothing(registry):
    before = dict(registry)

    class TintedCameraAdapter(CameraAdapter):
        pass

    assert registry == before
    assert TintedCameraAdapter.kinds == ('camera',)


@pytest.mark.parametrize(('declared', 'error'), [
    ({'kinds': ('camera',), 'rate_key': 'camera', 'default_rate': 30.0}, "serves 'camera', which"),
    ({'kinds': ('thermometer',)}, 'declares no rate_key'),
    ({'kinds': ('thermometer',), 'rate_key': 'camera', 'default_rate': 5.0},
     'publish_rates.camera: '),
])
def test_a_conflicting_declaration_is_an_error_when_the_class_is_created(registry, declared, error):
    before = dict(registry)
    with pytest.raises(TypeError, match=error):
        type('BadAdapter', (SensorAdapter,), dict(declared))
    assert registry == before


def test_a_suffix_subscribed_by_one_adapter_and_published_by_another_is_an_error():
    class Knob(SensorAdapter):  # without kinds: out of the registry
        topic_variants = {'knob': (Topic('value', 'std_msgs/msg/Float64', subscribed=True),)}

    class Dial(SensorAdapter):
        topic_variants = {'dial': (Topic('value', 'std_msgs/msg/Float64'),)}

    with pytest.raises(TypeError, match=r"both subscribed and published: \['value'\]"):
        adapters.subscribed_suffixes([Knob, Dial])
    assert adapters.subscribed_suffixes([Knob]) == ('value',)


def test_publish_rates_keep_the_parameter_order_and_append_new_keys():
    class Thermometer(SensorAdapter):
        rate_key, default_rate = 'temperature', 1.0

    rates = adapters.publish_rates([Thermometer, *adapters.ADAPTERS.values()])
    assert list(rates) == [*adapters.PUBLISH_RATE_ORDER, 'temperature']
    assert rates['temperature'] == 1.0


def test_each_kind_of_the_tables_is_its_adapters_declaration():
    for kind, adapter in adapters.ADAPTERS.items():
        assert kind in adapter.kinds
        assert (kind in adapters.OPTICAL_KINDS) == adapter.optical
        assert adapters.PUBLISH_RATES[adapter.rate_key] == adapter.default_rate
        for key, topics in adapter.topic_table().items():
            assert names.SENSOR_TOPICS[key] == tuple((t.suffix, t.message_type) for t in topics)


def _depth(width: int, height: int, projection: str) -> Any:
    return model.DepthCamera('d', 'base', width, height, 1.0, 0.5, 0.1, 5.0, projection=projection)


@pytest.mark.parametrize(('sensor', 'key'), [
    (_depth(4, 3, 'perspective'), 'depth_camera'),
    (_depth(4, 3, 'spherical'), 'spherical_depth'),
    (_depth(4, 1, 'spherical'), 'laser_scan'),
    (model.Gyroscope('g', 'base'), 'gyroscope'),
    (model.Camera('c', 'base', 4, 3, 1.0, 0.8), 'camera'),
    (model.Camera('c', 'base', 4, 3, 6.3, 4.7, projection='spherical'), 'panoramic_camera'),
    (model.Camera('c', 'base', 4, 3, 3.0, 2.2, projection='cylindrical'), 'panoramic_camera'),
    (model.SegmentationCamera('s', 'base', 4, 3, 1.0, 0.8), 'segmentation_camera'),
])
def test_the_adapter_picks_a_sensors_topic_key(sensor, key):
    assert names.sensor_topic_kind(sensor) == key


@pytest.mark.parametrize(('kinds', 'suffix'), [
    (('accelerometer',), 'data_raw'),
    (('accelerometer', 'gyroscope'), 'data_raw'),
    (('gyroscope', 'inertial_unit'), 'data'),
    (('inertial_unit',), 'data'),
])
def test_an_inertial_group_publishes_data_with_an_orientation(kinds, suffix):
    classes = {'accelerometer': model.Accelerometer, 'gyroscope': model.Gyroscope,
               'inertial_unit': model.InertialUnit}
    group = names.SensorGroup(tuple(classes[k](k, 'base') for k in kinds), 'imu')
    assert group.suffixes == ((suffix, 'sensor_msgs/msg/Imu'),)


def test_a_non_planar_camera_publishes_its_image_and_no_camera_info():
    """No pinhole model, so no CameraInfo (as spherical depth images); the table says so."""
    assert names.SENSOR_TOPICS['panoramic_camera'] == (('image_raw', 'sensor_msgs/msg/Image'),)
    assert ('camera_info', 'sensor_msgs/msg/CameraInfo') in names.SENSOR_TOPICS['camera']
