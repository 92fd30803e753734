"""Every non-SimRobot format end to end: ``scene-sim-ros run`` on a real corpus world, checked
from a separate ROS process. Webots device worlds publish their devices (camera image of the
device's size, distance sensors as Range, wheel joints, the inertial unit's orientation);
RaiSim's laikago starts at its ``qpos`` beside its moving kinematic treadmill; Simox ArmarIII
publishes all its joints. The Webots world that ships (``webots_scout.wbt``) checks the same
Webots devices without the corpus: camera, lidar, distance sensor, wheel joints, inertial unit.
One launch per world, one world at a time (class-scoped fixtures, so a node is stopped before
the next starts and /tf is never shared)."""

from __future__ import annotations

import importlib
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.ros.interface_list import interface_rows  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

from scene_sim_ros.resources import example_path  # noqa: E402
from support.corpus import CORPUS, missing  # noqa: E402

WEBOTS_WORLDS = CORPUS / 'webots' / 'webots' / 'projects' / 'samples' / 'devices' / 'worlds'
CAMERA_WORLD = WEBOTS_WORLDS / 'camera.wbt'
INERTIAL_UNIT_WORLD = WEBOTS_WORLDS / 'inertial_unit.wbt'
LAIKAGO_WORLD = CORPUS / 'raisim' / 'raisim2Lib' / 'rsc' / 'laikago.xml'
RANGE_FINDER_WORLD = WEBOTS_WORLDS / 'range_finder.wbt'
ACCELEROMETER_WORLD = WEBOTS_WORLDS / 'accelerometer.wbt'
ARMAR = CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data' / 'robots' / 'ArmarIII' / 'ArmarIII.xml'

MESSAGE_TIMEOUT = 20.0


def launch(tmp_path_factory, world: Path, *options: str):
    """``scene-sim-ros run WORLD OPTIONS`` until it reports its real-time factor."""
    if not world.exists():
        pytest.skip(missing(world))
    return scene_sim_run(tmp_path_factory.mktemp(world.stem), str(world.resolve()), *options)


@pytest.fixture(scope='module')
def client():
    yield from client_node('formats_e2e_test_client')


def seconds(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def world_transforms(client, child_frame: str, count: int, timeout: float = MESSAGE_TIMEOUT):
    """The first ``count`` transforms world -> ``child_frame`` on /tf."""
    from tf2_msgs.msg import TFMessage
    found = []

    def take(msg):
        found.extend(t for t in msg.transforms
                     if (t.header.frame_id, t.child_frame_id) == ('world', child_frame))
    subscription = client.create_subscription(TFMessage, '/tf', take, 100)
    try:
        assert spin_until(client, lambda: len(found) >= count, timeout), \
            f'{len(found)}/{count} transforms world -> {child_frame} on /tf'
    finally:
        client.destroy_subscription(subscription)
    return found


def message_class(type_name: str):
    """``sensor_msgs/msg/Image`` -> the Image class."""
    package, _, name = type_name.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def assert_every_device_topic_publishes(client, world: Path) -> dict[str, list]:
    """Each robot topic the node lists for ``world`` (joint states, every sensor; not the latched
    robot_description) delivers a message; returns them by topic."""
    rows = [(topic, msg_type) for direction, topic, msg_type in interface_rows(load_scene(world))
            if direction == 'pub' and topic.count('/') >= 2 and not topic.startswith('/scene_sim/')
            and not topic.endswith('/robot_description')]
    assert rows, f'no device topics listed for {world.name}'
    received: dict[str, list] = {topic: [] for topic, _ in rows}
    subscriptions = [client.create_subscription(message_class(msg_type), topic,
                                                received[topic].append, 10)
                     for topic, msg_type in rows]
    try:
        spin_until(client, lambda: all(received.values()), MESSAGE_TIMEOUT)
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)
    silent = [topic for topic, messages in received.items() if not messages]
    assert not silent, f'{world.name}: no message on {silent}'
    return received


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


# -- Webots camera.wbt: camera, distance sensors, wheels ----------------------------------------

def webots_camera_device() -> tuple[int, int]:
    """(width, height) of the Camera node of camera.wbt, read from the world text."""
    text = CAMERA_WORLD.read_text()
    camera = text[text.index('Camera {'):]   # its first integer width/height fields are its own
    width = int(re.search(r'\n\s*width\s+(\d+)\s*\n', camera)[1])
    height = int(re.search(r'\n\s*height\s+(\d+)\s*\n', camera)[1])
    return width, height


class TestWebotsCameraWorld:
    @pytest.fixture(scope='class', autouse=True)
    @classmethod
    def sim_node(cls, tmp_path_factory):
        with launch(tmp_path_factory, CAMERA_WORLD, '--real-time-factor', '0') as proc:
            yield proc

    def test_every_device_publishes(self, client):
        assert_every_device_topic_publishes(client, CAMERA_WORLD)

    def test_camera_image_has_the_size_of_the_device(self, client):
        from sensor_msgs.msg import Image
        width, height = webots_camera_device()
        (image,) = wait_for_messages(client, Image, '/MyBot/camera/image_raw', count=1,
                                     timeout=MESSAGE_TIMEOUT)
        assert (image.width, image.height) == (width, height)
        assert len(image.data) == image.step * image.height
        assert image.step >= 3 * image.width
        assert len(set(image.data)) > 1, 'a uniform image: nothing rendered'

    def test_distance_sensors_publish_ranges(self, client):
        from sensor_msgs.msg import Range
        for sensor in ('ds0', 'ds1'):
            (msg,) = wait_for_messages(client, Range, f'/MyBot/{sensor}/range', count=1,
                                       timeout=MESSAGE_TIMEOUT)
            assert msg.max_range == pytest.approx(0.15)
            assert msg.min_range <= msg.range <= msg.max_range or math.isinf(msg.range)
            assert msg.header.frame_id.startswith('MyBot/')

    def test_joint_states_carry_the_wheel_joints(self, client):
        from sensor_msgs.msg import JointState
        (msg,) = wait_for_messages(client, JointState, '/MyBot/joint_states', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        assert sorted(msg.name) == ['left wheel motor', 'right wheel motor']
        assert len(msg.position) == 2 and all(map(math.isfinite, msg.position))


# -- Webots inertial_unit.wbt: the IMU carries an orientation -------------------------------------

class TestWebotsInertialUnitWorld:
    @pytest.fixture(scope='class', autouse=True)
    @classmethod
    def sim_node(cls, tmp_path_factory):
        with launch(tmp_path_factory, INERTIAL_UNIT_WORLD, '--real-time-factor', '0') as proc:
            yield proc

    def test_every_device_publishes(self, client):
        assert_every_device_topic_publishes(client, INERTIAL_UNIT_WORLD)

    def test_imu_message_carries_an_orientation(self, client):
        from sensor_msgs.msg import Imu
        (msg,) = wait_for_messages(client, Imu, '/robot/inertial_unit/data', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        q = msg.orientation
        assert math.hypot(q.x, q.y, q.z, q.w) == pytest.approx(1.0, abs=1e-3)
        # REP 145: orientation_covariance[0] == -1 would mean "no orientation estimate"
        assert msg.orientation_covariance[0] != -1.0


# -- Webots range_finder.wbt and accelerometer.wbt: every device on its topic ------------------

@pytest.fixture(scope='class', params=[RANGE_FINDER_WORLD, ACCELEROMETER_WORLD],
                ids=lambda world: world.stem)
def device_world(request, tmp_path_factory):
    with launch(tmp_path_factory, request.param, '--real-time-factor', '0'):
        yield request.param


class TestWebotsDeviceWorlds:
    def test_every_device_publishes(self, client, device_world):
        received = assert_every_device_topic_publishes(client, device_world)
        for topic, messages in received.items():
            if topic.endswith('/range_finder/image_raw'):
                depth = messages[0]
                assert depth.encoding == '32FC1' and depth.width > 0 and depth.height > 0
            if topic.endswith('/accelerometer/data_raw'):
                # accelerometer.wbt puts MyBot on a frictionless slope (the SLOPE solid is tilted
                # 1.970795 - pi/2 rad): sliding down it, the specific force is the normal force
                # per mass, g cos(slope), not g. Contacts make single readings jump (wheels hit
                # the slope's edge), so the median of a second of readings is compared.
                from sensor_msgs.msg import Imu
                readings = wait_for_messages(client, Imu, topic, count=100, timeout=30.0)
                magnitudes = sorted(math.hypot(m.linear_acceleration.x, m.linear_acceleration.y,
                                               m.linear_acceleration.z) for m in readings)
                slope = 1.970795 - math.pi / 2
                assert magnitudes[len(magnitudes) // 2] == pytest.approx(
                    9.81 * math.cos(slope), abs=1.0)


# -- RaiSim laikago.xml: qpos at start, kinematic treadmill moving ------------------------------

def laikago_initial_positions() -> dict[str, float]:
    """Joint -> initial position: qpos[7:] of laikago.xml in the order of the URDF's movable joints."""
    world = ET.parse(LAIKAGO_WORLD).getroot()
    system = world.find('objects/articulatedSystem')
    qpos = [float(v) for v in system.find('state').get('qpos').replace(',', ' ').split()]
    urdf_path = system.get('urdfPath').replace('[THIS_DIR]', str(LAIKAGO_WORLD.parent))
    movable = [j.get('name') for j in ET.parse(urdf_path).getroot().findall('joint')
               if j.get('type') in ('revolute', 'continuous', 'prismatic')]
    assert len(qpos) == 7 + len(movable)
    return dict(zip(movable, qpos[7:]))


def treadmill_velocity() -> float:
    box = ET.parse(LAIKAGO_WORLD).getroot().find("objects/box[@name='treadmill']")
    return float(box.find('state').get('linVel').split()[0])


class TestRaisimLaikagoWorld:
    @pytest.fixture(scope='class', autouse=True)
    @classmethod
    def sim_node(cls, tmp_path_factory):
        with launch(tmp_path_factory, LAIKAGO_WORLD) as proc:
            yield proc

    def test_joint_states_start_at_qpos(self, client):
        from sensor_msgs.msg import JointState
        expected = laikago_initial_positions()
        (msg,) = wait_for_messages(client, JointState, '/laikago0/joint_states', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        assert len(msg.name) == 12 and set(msg.name) == set(expected)
        actual = dict(zip(msg.name, msg.position))
        far = {name: (actual[name], q) for name, q in expected.items()
               if abs(actual[name] - q) > 0.1}
        assert not far, f'at t={seconds(msg.header.stamp):.3f} s, joints away from qpos: {far}'
        assert seconds(msg.header.stamp) < 5.0   # shortly after start (real time, default rate)

    def test_treadmill_moves_at_its_velocity(self, client):
        first = world_transforms(client, 'treadmill/treadmill', count=1)[0]
        spin_until(client, lambda: False, 0.5)
        last = world_transforms(client, 'treadmill/treadmill', count=1)[0]
        elapsed = seconds(last.header.stamp) - seconds(first.header.stamp)
        assert elapsed > 0.1
        moved = last.transform.translation.x - first.transform.translation.x
        assert moved / elapsed == pytest.approx(treadmill_velocity(), rel=0.1)
        assert last.transform.translation.y == pytest.approx(first.transform.translation.y, abs=1e-3)


# -- Simox ArmarIII: all 53 joints --------------------------------------------------------------

class TestSimoxArmar3:
    @pytest.fixture(scope='class', autouse=True)
    @classmethod
    def sim_node(cls, tmp_path_factory):
        with launch(tmp_path_factory, ARMAR, '--real-time-factor', '0') as proc:
            yield proc

    def test_joint_states_carry_53_joints(self, client):
        from sensor_msgs.msg import JointState
        (msg,) = wait_for_messages(client, JointState, '/Armar3/joint_states', count=1,
                                   timeout=MESSAGE_TIMEOUT)
        assert len(msg.name) == len(set(msg.name)) == 53
        assert len(msg.position) == 53 and all(map(math.isfinite, msg.position))
        assert 'Yaw_Platform' in msg.name
