"""The node on a SimRobot car under a namespace, from a separate process: the wheels turn on a
velocity command and TF shows the car moving; the namespace moves every topic of the car but not
/tf and /clock; a per-sensor parameter renames the laser's topic and sets its rate. Runs on the
car example that ships (no corpus needed) and on SimRobot's SimpleVehicle.ros2 where the corpus
is present; what is expected (joints, the laser's size and angles) is read from each scene.
One launch per scene serves the module."""

from __future__ import annotations

import math

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

from scene_sim_ros import load_scene  # noqa: E402
from scene_sim_ros.resources import example_path  # noqa: E402
from support.corpus import CORPUS  # noqa: E402
from support.examples import shipped_ids  # noqa: E402

VEHICLE = CORPUS / 'simrobot' / 'SimRobot' / 'Scenes' / 'SimpleVehicle.ros2'
# the car example always, SimpleVehicle where the corpus is present
SCENES = [example_path('car')] + [VEHICLE] * VEHICLE.exists()


@pytest.fixture(scope='module', params=SCENES, ids=shipped_ids(SCENES, CORPUS))
def car(request):
    """(scene file, its car entity)."""
    return request.param, load_scene(request.param).entity('car')


def laser_of(entity):
    """The car's one-row spherical depth sensor (a laser range finder)."""
    (laser,) = [s for s in entity.sensors if s.kind == 'depth_camera'
                and s.projection == 'spherical' and s.height == 1]
    return laser


def laser_in_file(path):
    """(name, width, angleX in degrees, min m, max m) of the one-row spherical
    DepthImageSensor, as the scene file writes it."""
    import re
    for element in re.findall(r'<DepthImageSensor\b[^>]*>', path.read_text()):
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', element))
        if attributes.get('projection') == 'spherical' and attributes['imageHeight'] == '1':
            return (attributes['name'], int(attributes['imageWidth']),
                    float(attributes['angleX'].removesuffix('degree')),
                    float(attributes['min'].removesuffix('m')),
                    float(attributes['max'].removesuffix('m')))
    raise AssertionError(f'no one-row spherical DepthImageSensor in {path}')


@pytest.fixture(scope='module')
def sim_node(car, tmp_path_factory):
    path, entity = car
    laser = laser_of(entity).name
    with scene_sim_run(tmp_path_factory.mktemp('vehicle'), str(path), '--namespace', 'sim',
                       '--real-time-factor', '2',
                       '--ros-args', '-p', f'sensors.car.{laser}.topic:=car/front_laser',
                       '-p', f'sensors.car.{laser}.rate:=10.0') as proc:
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


def test_namespace_moves_the_car_topics_but_not_tf_and_clock(client, car):
    from sensor_msgs.msg import JointState
    path, entity = car
    (msg,) = wait_for_messages(client, JointState, '/sim/car/joint_states', count=1, timeout=20.0)
    assert list(msg.name) == [j.name for j in entity.movable_joints]
    if path == VEHICLE:
        assert list(msg.name) == ['backLeft', 'backRight', 'frontLeft', 'frontRight']
    names = {name for name, _ in client.get_topic_names_and_types()}
    assert '/car/joint_states' not in names
    assert {'/tf', '/tf_static', '/clock', '/sim/scene_sim/rejected_commands'} <= names


def test_velocity_command_drives_the_car(client, car):
    from std_msgs.msg import Float64MultiArray
    _, entity = car
    # the controller's data layout is the movable joints; the velocity-motor wheels get 3 rad/s
    layout = [j.motor.kind if j.motor else None for j in entity.movable_joints]
    assert 'velocity' in layout
    drive = [3.0 if kind == 'velocity' else 0.0 for kind in layout]
    start = car_position(client)
    publisher = client.create_publisher(Float64MultiArray, '/sim/car/velocity_controller/commands',
                                        10)
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 20.0)
        publisher.publish(Float64MultiArray(data=drive))
        moved = []

        def far_enough():
            position = car_position(client)
            moved[:] = [math.dist(position[:2], start[:2])]
            return moved[0] > 0.3
        assert spin_until(client, far_enough, 30.0), f'the car moved only {moved} m'
    finally:
        publisher.publish(Float64MultiArray(data=[0.0] * len(drive)))
        client.destroy_publisher(publisher)


def test_one_row_spherical_depth_sensor_is_a_laser_scan_with_overridden_topic_and_rate(client,
                                                                                     car):
    from sensor_msgs.msg import LaserScan
    path, entity = car
    laser = laser_of(entity)
    scans = wait_for_messages(client, LaserScan, '/sim/car/front_laser/scan', count=3,
                              timeout=20.0)
    stamps = [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in scans]
    assert [b - a for a, b in zip(stamps, stamps[1:])] == pytest.approx([0.1, 0.1], abs=1e-6)
    scan = scans[-1]
    assert len(scan.ranges) == laser.width
    assert scan.angle_min == pytest.approx(-laser.fov_x / 2, abs=1e-6)
    assert scan.angle_max == pytest.approx(laser.fov_x / 2, abs=1e-6)
    assert (scan.range_min, scan.range_max) == pytest.approx((laser.min_range, laser.max_range))
    assert scan.header.frame_id == f'car/{laser.name}'
    if path == example_path('car'):   # the example's laser as its file writes it
        name, width, degrees, low, high = laser_in_file(path)
        assert (laser.name, len(scan.ranges)) == (name, width)
        assert scan.angle_max == pytest.approx(math.radians(degrees) / 2, abs=1e-6)
        assert (scan.range_min, scan.range_max) == pytest.approx((low, high))
    if path == VEHICLE:
        assert len(scan.ranges) == 100
        assert scan.angle_min == pytest.approx(-math.radians(60), abs=1e-6)
        assert scan.angle_max == pytest.approx(math.radians(60), abs=1e-6)
        assert (scan.range_min, scan.range_max) == pytest.approx((0.03, 3.0))
        assert scan.header.frame_id == 'car/LaserRangeFinder'
