"""The Webots world that ships (``webots_scout.wbt``) end to end: ``scene-sim-ros run``, checked
from a separate ROS process: camera, lidar, distance sensor, wheel joints, inertial unit, with
values from its PROTO. ``test_formats_corpus_e2e.py`` runs the corpus's Webots, RaiSim and Simox
worlds the same way.
One launch per world, one world at a time (class-scoped fixtures, so a node is stopped before
the next starts and /tf is never shared)."""

from __future__ import annotations

import math
import re

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.ros import client_node, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

from scene_sim_ros.resources import example_path  # noqa: E402
from support.formats_e2e import (  # noqa: E402
    MESSAGE_TIMEOUT,
    assert_every_device_topic_publishes,
    launch,
)


@pytest.fixture(scope='module')
def client():
    yield from client_node('formats_e2e_test_client')


# -- Webots example webots_scout.wbt (ships): every device, values from its PROTO --------------

SCOUT_WORLD = example_path('webots_scout')
SCOUT_PROTO = SCOUT_WORLD.parent / 'ScoutRobot.proto'


def proto_node(kind: str) -> dict[str, str]:
    """The fields of the first ``kind { ... }`` node of ScoutRobot.proto (one value each)."""
    text = SCOUT_PROTO.read_text()
    body = text[text.index(f'{kind} {{'):]
    body = body[:body.index('\n      }')] + '\n'
    return dict(re.findall(r'\n\s*(\w+)\s+([^\n\[]+?)\s*(?=\n)', body))


class TestWebotsScoutExample:
    @pytest.fixture(scope='class', autouse=True)
    @classmethod
    def sim_node(cls, tmp_path_factory):
        with launch(tmp_path_factory, SCOUT_WORLD, '--real-time-factor', '0') as proc:
            yield proc

    def test_every_device_publishes(self, client):
        received = assert_every_device_topic_publishes(client, SCOUT_WORLD)
        assert {'/scout/camera/image_raw', '/scout/lidar/scan', '/scout/front_distance/range',
                '/scout/imu/data'} <= received.keys()

    def test_camera_image_has_the_size_of_the_device(self, client):
        from sensor_msgs.msg import Image
        camera = proto_node('Camera')
        (image,) = wait_for_messages(client, Image, '/scout/camera/image_raw', count=1,
                                     timeout=MESSAGE_TIMEOUT)
        assert (image.width, image.height) == (int(camera['width']), int(camera['height']))
        assert len(image.data) == image.step * image.height
        assert len(set(image.data)) > 1, 'a uniform image: nothing rendered'

    def test_lidar_scan_has_the_resolution_and_ranges_of_the_device(self, client):
        from sensor_msgs.msg import LaserScan
        lidar = proto_node('Lidar')
        (scan,) = wait_for_messages(client, LaserScan, '/scout/lidar/scan', count=1,
                                    timeout=MESSAGE_TIMEOUT)
        assert len(scan.ranges) == int(lidar['horizontalResolution'])
        assert (scan.range_min, scan.range_max) == pytest.approx(
            (float(lidar['minRange']), float(lidar['maxRange'])))
        # walls 3 m away in a 6 m yard: some returns within range, none below the minimum
        near = [r for r in scan.ranges if scan.range_min <= r <= scan.range_max]
        assert near and min(near) >= scan.range_min

    def test_distance_sensor_publishes_ranges_up_to_its_lookup_table(self, client):
        from sensor_msgs.msg import Range
        text = SCOUT_PROTO.read_text()
        table = text[text.index('lookupTable ['):]
        rows = re.findall(r'\n\s*([\d.]+)\s+[\d.]+\s+[\d.]+', table[:table.index(']')])
        (msg,) = wait_for_messages(client, Range, '/scout/front_distance/range', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        assert msg.max_range == pytest.approx(max(map(float, rows)))
        assert msg.min_range <= msg.range <= msg.max_range or math.isinf(msg.range)
        assert msg.header.frame_id.startswith('scout/')

    def test_joint_states_carry_the_wheel_joints(self, client):
        from sensor_msgs.msg import JointState
        motors = re.findall(r'RotationalMotor\s*\{\s*name\s+"([^"]+)"', SCOUT_PROTO.read_text())
        (msg,) = wait_for_messages(client, JointState, '/scout/joint_states', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        assert sorted(msg.name) == sorted(motors) and len(motors) == 2
        assert all(map(math.isfinite, msg.position))

    def test_inertial_unit_carries_an_orientation_level_on_the_floor(self, client):
        from sensor_msgs.msg import Imu
        messages = wait_for_messages(client, Imu, '/scout/imu/data', count=5,
                                     timeout=MESSAGE_TIMEOUT)
        q = messages[-1].orientation
        assert math.hypot(q.x, q.y, q.z, q.w) == pytest.approx(1.0, abs=1e-3)
        assert messages[-1].orientation_covariance[0] != -1.0
        # standing on the flat floor: roll and pitch near zero
        assert math.hypot(q.x, q.y) < 0.05


