"""The other formats end to end on real corpus worlds: ``scene-sim-ros run``, checked from a
separate ROS process. Webots device worlds publish their devices (camera image of the device's
size, distance sensors as Range, wheel joints, the inertial unit's orientation); RaiSim's laikago
starts at its ``qpos`` beside its moving kinematic treadmill; Simox ArmarIII publishes all its
joints. Skipped whole without the corpus; ``test_formats_e2e.py`` checks the same devices on the
Webots world that ships. One launch per world, one world at a time (class-scoped fixtures)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.corpus import CORPUS, skip_module_without  # noqa: E402
from support.formats_e2e import (  # noqa: E402
    MESSAGE_TIMEOUT,
    assert_every_device_topic_publishes,
    launch,
    seconds,
    world_transforms,
)
from support.ros import client_node, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]
skip_module_without(CORPUS)

WEBOTS_WORLDS = CORPUS / 'webots' / 'webots' / 'projects' / 'samples' / 'devices' / 'worlds'
CAMERA_WORLD = WEBOTS_WORLDS / 'camera.wbt'
INERTIAL_UNIT_WORLD = WEBOTS_WORLDS / 'inertial_unit.wbt'
LAIKAGO_WORLD = CORPUS / 'raisim' / 'raisim2Lib' / 'rsc' / 'laikago.xml'
RANGE_FINDER_WORLD = WEBOTS_WORLDS / 'range_finder.wbt'
ACCELEROMETER_WORLD = WEBOTS_WORLDS / 'accelerometer.wbt'
ARMAR = CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data' / 'robots' / 'ArmarIII' / 'ArmarIII.xml'


@pytest.fixture(scope='module')
def client():
    yield from client_node('formats_corpus_e2e_test_client')


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
                # after the first second MyBot is at rest (on its slope: test_webots_simulation
                # checks where), and at rest an accelerometer reads the specific force g
                from sensor_msgs.msg import Imu
                readings: list = []
                while len(readings) < 100:  # sim time after 1.5 s, when it has come to rest
                    readings += [m for m in wait_for_messages(client, Imu, topic, count=100,
                                                              timeout=30.0)
                                 if m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 > 1.5]
                magnitudes = sorted(math.hypot(m.linear_acceleration.x, m.linear_acceleration.y,
                                               m.linear_acceleration.z) for m in readings)
                assert magnitudes[len(magnitudes) // 2] == pytest.approx(9.81, abs=0.05)


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
