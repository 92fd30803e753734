"""The node on SimRobot's SimpleVehicle.ros2 under a namespace, from a separate process: the
wheels turn on a velocity command and TF shows the car moving; the namespace moves every topic
of the car but not /tf and /clock; a per-sensor parameter renames a topic and sets its rate.
One launch serves the module."""

from __future__ import annotations

import math

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

from support.corpus import CORPUS, missing  # noqa: E402

VEHICLE = CORPUS / 'simrobot' / 'SimRobot' / 'Scenes' / 'SimpleVehicle.ros2'


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    if not VEHICLE.exists():
        pytest.skip(missing(VEHICLE))
    with scene_sim_run(tmp_path_factory.mktemp('vehicle'), str(VEHICLE), '--namespace', 'sim',
                       '--real-time-factor', '2',
                       '--ros-args', '-p', 'sensors.car.LaserRangeFinder.topic:=car/front_laser',
                       '-p', 'sensors.car.LaserRangeFinder.rate:=10.0') as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('vehicle_test_client')


def car_position(client):
    from tf2_msgs.msg import TFMessage
    found = []

    def take(msg):
        found.extend(t.transform.translation for t in msg.transforms
                     # odometry (noise-free): world -> car/odom (identity) -> car/car
                     if (t.header.frame_id, t.child_frame_id) == ('car/odom', 'car/car'))
    subscription = client.create_subscription(TFMessage, '/tf', take, 100)
    try:
        assert spin_until(client, lambda: bool(found), 20.0), 'no car/odom -> car/car on /tf'
    finally:
        client.destroy_subscription(subscription)
    return (found[-1].x, found[-1].y, found[-1].z)


def test_namespace_moves_the_car_topics_but_not_tf_and_clock(client):
    from sensor_msgs.msg import JointState
    (msg,) = wait_for_messages(client, JointState, '/sim/car/joint_states', count=1, timeout=20.0)
    assert list(msg.name) == ['backLeft', 'backRight', 'frontLeft', 'frontRight']
    names = {name for name, _ in client.get_topic_names_and_types()}
    assert '/car/joint_states' not in names
    assert {'/tf', '/tf_static', '/clock', '/sim/scene_sim/rejected_commands'} <= names


def test_velocity_command_drives_the_car(client):
    from std_msgs.msg import Float64MultiArray
    start = car_position(client)
    publisher = client.create_publisher(Float64MultiArray, '/sim/car/velocity_controller/commands',
                                        10)
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 20.0)
        publisher.publish(Float64MultiArray(data=[3.0, 3.0, 3.0, 3.0]))
        moved = []

        def far_enough():
            position = car_position(client)
            moved[:] = [math.dist(position[:2], start[:2])]
            return moved[0] > 0.3
        assert spin_until(client, far_enough, 30.0), f'the car moved only {moved} m'
    finally:
        publisher.publish(Float64MultiArray(data=[0.0, 0.0, 0.0, 0.0]))
        client.destroy_publisher(publisher)


def test_one_row_spherical_depth_sensor_is_a_laser_scan_with_overridden_topic_and_rate(client):
    from sensor_msgs.msg import LaserScan
    scans = wait_for_messages(client, LaserScan, '/sim/car/front_laser/scan', count=3,
                              timeout=20.0)
    stamps = [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in scans]
    assert [b - a for a, b in zip(stamps, stamps[1:])] == pytest.approx([0.1, 0.1], abs=1e-6)
    scan = scans[-1]
    assert len(scan.ranges) == 100
    assert scan.angle_min == pytest.approx(-math.radians(60), abs=1e-6)
    assert scan.angle_max == pytest.approx(math.radians(60), abs=1e-6)
    assert (scan.range_min, scan.range_max) == pytest.approx((0.03, 3.0))
    assert scan.header.frame_id == 'car/LaserRangeFinder'
