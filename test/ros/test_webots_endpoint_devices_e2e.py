"""Devices mounted as Webots joint endPoints (a device is a Solid in Webots: a moving body of
its own) publish end to end: ``scene-sim-ros run`` on a world whose Gyro, Accelerometer and
Camera are the endPoints of a HingeJoint, a SliderJoint and a BallJoint, checked from this
process. Before, joint handlers looked only for Solids and these devices vanished silently."""

from __future__ import annotations

import pytest

pytest.importorskip('rclpy')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

WORLD = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 8 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.06
  name "arm"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0 0.1 }
      device RotationalMotor { name "yaw" }
      endPoint Gyro {
        translation 0 0 0.1  name "wrist gyro"
        boundingObject Box { size 0.02 0.02 0.02 }
        physics Physics { density -1 mass 0.05 }
      }
    }
    SliderJoint {
      jointParameters JointParameters { axis 1 0 0 }
      endPoint Accelerometer {
        translation 0.1 0 0  name "slider accelerometer"
        physics Physics { density -1 mass 0.05 }
      }
    }
    BallJoint {
      jointParameters BallJointParameters { anchor -0.1 0 0.05 }
      endPoint Camera {
        translation -0.1 0 0.05  name "head camera"  width 32 height 24
        children [ Shape { geometry Box { size 0.03 0.03 0.03 } } ]
        physics Physics { density -1 mass 0.1 }
      }
    }
  ]
  boundingObject Box { size 0.1 0.1 0.1 }
  physics Physics { density -1 mass 2 }
}
"""
TIMEOUT = 20.0


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    world = tmp_path_factory.mktemp('endpoints') / 'endpoint_devices.wbt'
    world.write_text(WORLD)
    # paced: the passive slider of this world rocks itself unstable after ~20 s of sim time
    # (the explosion guard stops it at 24 s); the readings must come from before, whatever
    # the machine's load
    with scene_sim_run(tmp_path_factory.mktemp('endpoint_logs'), str(world),
                       '--real-time-factor', '1') as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('endpoint_devices_test_client')


def test_gyro_accelerometer_and_camera_end_points_all_publish(client):
    from sensor_msgs.msg import Image, Imu
    topics = {'/arm/wrist_gyro/data_raw': Imu, '/arm/slider_accelerometer/data_raw': Imu,
              '/arm/head_camera/image_raw': Image}
    received: dict[str, list] = {topic: [] for topic in topics}
    subscriptions = [client.create_subscription(kind, topic, received[topic].append, 10)
                     for topic, kind in topics.items()]
    try:
        spin_until(client, lambda: all(received.values()), TIMEOUT)
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)
    assert all(received.values()), f'silent: {[t for t, m in received.items() if not m]}'
    image = received['/arm/head_camera/image_raw'][0]
    assert (image.width, image.height) == (32, 24)


def test_accelerometer_on_its_slider_link_feels_gravity(client):
    from sensor_msgs.msg import Imu
    readings: list = []
    subscription = client.create_subscription(Imu, '/arm/slider_accelerometer/data_raw',
                                              readings.append, 10)
    try:
        assert spin_until(client, lambda: len(readings) >= 200, TIMEOUT)
    finally:
        client.destroy_subscription(subscription)
    # the robot rocks on the floor with its free-swinging camera; its mean proper acceleration
    # there is gravity's, held up through the level slider: +z (one reading depends on when).
    # Only readings of the first 15 s of sim time (stable; see the fixture)
    early = [m for m in readings
             if m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 < 15.0][-200:]
    assert len(early) >= 100, f'{len(early)} readings before 15 s of sim time'
    z = [m.linear_acceleration.z for m in early]
    assert sum(z) / len(z) == pytest.approx(9.81, abs=1.0), (min(z), max(z))
