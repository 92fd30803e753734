"""The node on the bundled default scene (a rover with every sensor type), from a separate
process: every listed topic exists with its type, sensors publish what they measure, a
trajectory runs in sim time, a user input is set and read back, and the node paces at the
requested real-time factor. One launch serves the module."""

from __future__ import annotations

import contextlib
import math
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros import load_scene  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, qos, spin_until, stamp, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
SCENE = REPO / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'


@pytest.fixture(scope='module')
def scene():
    return load_scene(SCENE)


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    # no SCENE argument: the bundled default scene; real-time factor 1 (the default)
    with scene_sim_run(tmp_path_factory.mktemp('default_scene')) as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('default_scene_test_client')


def clock_seconds(client):
    from rosgraph_msgs.msg import Clock
    (msg,) = wait_for_messages(client, Clock, '/clock', count=1, timeout=20.0)
    return msg.clock.sec + msg.clock.nanosec * 1e-9


def test_every_listed_topic_is_on_the_graph_with_its_type(client, scene):
    from rclpy.action import get_action_names_and_types

    from scene_sim_ros.ros.runtime.interface_list import interface_rows
    rows = interface_rows(scene)
    expected = {(topic, msg_type) for direction, topic, msg_type in rows if direction != 'action'}
    actions = {(name, msg_type) for direction, name, msg_type in rows if direction == 'action'}
    assert actions  # the trajectory action of the rover

    def graph():
        return {(name, t) for name, types in client.get_topic_names_and_types() for t in types}

    def action_graph():
        return {(name, t) for name, types in get_action_names_and_types(client) for t in types}
    spin_until(client, lambda: expected <= graph() and actions <= action_graph(), 20.0)
    assert expected - graph() == set()
    assert actions - action_graph() == set()
    for direction, topic, _ in rows:
        if direction == 'sub':
            assert client.count_subscribers(topic) >= 1, topic


def clock_messages(client, count):
    """The sim times of the next ``count`` /clock messages."""
    from rosgraph_msgs.msg import Clock
    return [m.clock.sec + m.clock.nanosec * 1e-9
            for m in wait_for_messages(client, Clock, '/clock', count=count, timeout=30.0)]


def test_real_time_factor_is_one_by_default_and_sim_time_advances(client):
    """The default pacing reads back as 1 and /clock advances; the pacing law itself (never
    ahead of r x the wall clock, catching up a lag) is exact on a virtual clock in
    test_node_stepper.py, and what a loaded machine reaches is bench/node_rtf.py's question."""
    from rcl_interfaces.srv import GetParameters

    from support.ros import call_service
    response = call_service(client, GetParameters, '/scene_sim/get_parameters',
                            GetParameters.Request(names=['real_time_factor', 'paused']))
    rtf, paused = response.values
    assert (rtf.double_value or rtf.integer_value) == 1.0 and not paused.bool_value
    times = clock_messages(client, 5)
    assert times == sorted(times) and times[-1] > times[0]


def test_laser_scan_is_counter_clockwise_and_in_range(client, scene):
    from sensor_msgs.msg import LaserScan
    laser = scene.entity('rover').sensor('laser')
    (scan,) = wait_for_messages(client, LaserScan, '/rover/laser/scan', count=1, timeout=20.0)
    assert len(scan.ranges) == laser.width == 181
    assert scan.angle_min == pytest.approx(-laser.fov_x / 2, abs=1e-6)
    assert scan.angle_max == pytest.approx(laser.fov_x / 2, abs=1e-6)
    assert scan.angle_increment > 0
    assert scan.header.frame_id == 'rover/laser'
    finite = [r for r in scan.ranges if math.isfinite(r)]
    assert finite and all(laser.min_range <= r <= laser.max_range for r in finite)
    # the crate at (2, -0.6) is to the right (negative angles), nearer than the wall ahead
    ahead = scan.ranges[90]
    right = min(scan.ranges[40:80])
    assert right < ahead


def test_depth_and_segmentation_images(client):
    from sensor_msgs.msg import CameraInfo, Image
    (depth,) = wait_for_messages(client, Image, '/rover/depth_camera/image_raw', count=1,
                                 timeout=20.0, qos=qos(2))
    assert (depth.encoding, depth.width, depth.height, depth.step) == ('32FC1', 160, 120, 640)
    import numpy as np
    values = np.frombuffer(bytes(depth.data), dtype=np.float32).reshape(120, 160)
    assert np.isfinite(values).any() and np.nanmin(values) > 0.0
    # REP-118: the top rows see the sky above the 0.4 m walls, nothing within 8 m: +inf (the
    # Python API reads max_range there, as SimRobot does)
    assert np.isposinf(values[0]).all()
    finite = values[np.isfinite(values)]
    assert (finite >= 0.1).all() and (finite < 8.0).all()
    (info,) = wait_for_messages(client, CameraInfo, '/rover/depth_camera/camera_info', count=1,
                                timeout=20.0, qos=qos(2))
    assert info.header.frame_id == depth.header.frame_id == 'rover/depth_camera_optical_frame'
    (segmentation,) = wait_for_messages(client, Image, '/rover/segmentation/image_raw', count=1,
                                        timeout=20.0, qos=qos(2))
    assert (segmentation.encoding, segmentation.width) == ('rgb8', 160)
    colours = np.frombuffer(bytes(segmentation.data), np.uint8).reshape(-1, 3)
    assert len(np.unique(colours, axis=0)) >= 2  # floor and at least one other thing


def test_range_sensors_and_bumper(client):
    from sensor_msgs.msg import Range
    from std_msgs.msg import Bool
    (sonar,) = wait_for_messages(client, Range, '/rover/sonar/range', count=1, timeout=20.0)
    assert sonar.radiation_type == Range.ULTRASOUND
    assert sonar.field_of_view == pytest.approx(math.radians(30), abs=1e-6)
    assert sonar.header.frame_id == 'rover/sonar'
    (rear,) = wait_for_messages(client, Range, '/rover/rear_range/range', count=1, timeout=20.0)
    assert rear.radiation_type == Range.INFRARED
    # REP-117: the west wall is 2.8 m behind the resting rover, beyond max 2 m: no return, +inf
    # (the Python API reads max_range, as SimRobot does)
    assert rear.range == math.inf and rear.max_range == pytest.approx(2.0)
    (contact,) = wait_for_messages(client, Bool, '/rover/bumper/contact', count=1, timeout=20.0)
    assert isinstance(contact.data, bool)


def test_user_input_is_set_and_read_back(client):
    from std_msgs.msg import Float64
    (value,) = wait_for_messages(client, Float64, '/rover/speed_scale/value', count=1,
                                 timeout=20.0, qos=qos(1, True))
    assert value.data == pytest.approx(0.5)  # the scene's default
    publisher = client.create_publisher(Float64, '/rover/speed_scale/set', 10)
    seen = []
    subscription = client.create_subscription(Float64, '/rover/speed_scale/value',
                                              lambda m: seen.append(m.data), qos(1, True))
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 20.0)
        publisher.publish(Float64(data=0.8))
        publisher.publish(Float64(data=7.0))  # outside [0, 1]: rejected, the value stays
        assert spin_until(client, lambda: seen and seen[-1] == pytest.approx(0.8), 20.0)
    finally:
        client.destroy_subscription(subscription)
        client.destroy_publisher(publisher)


def test_trajectory_turns_the_pan_joint_in_sim_time(client):
    from builtin_interfaces.msg import Duration
    from sensor_msgs.msg import JointState
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    publisher = client.create_publisher(JointTrajectory, '/rover/joint_trajectory', 10)
    samples = []

    def record(msg):
        samples.append((stamp(msg.header), msg.position[list(msg.name).index('pan_joint')]))
    subscription = client.create_subscription(JointState, '/rover/joint_states', record, qos(200))
    plan = JointTrajectory(joint_names=['pan_joint'], points=[
        JointTrajectoryPoint(positions=[0.8], time_from_start=Duration(sec=1)),
        JointTrajectoryPoint(positions=[-0.4], time_from_start=Duration(sec=2))])
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0 and samples,
                          20.0)
        publisher.publish(plan)
        assert spin_until(client, lambda: any(q > 0.75 for _, q in samples), 20.0)
        peak = next(t for t, q in samples if q > 0.75)
        assert spin_until(client, lambda: samples[-1][0] > peak + 1.5, 20.0)
    finally:
        client.destroy_subscription(subscription)
        client.destroy_publisher(publisher)
    start = next(t for t, q in samples if q > 0.02)
    # linear from 0 to 0.8 rad over 1 s: 0.75 rad after ~0.94 s (the servo lags a little)
    assert peak - start == pytest.approx(0.94, abs=0.15)
    assert samples[-1][1] == pytest.approx(-0.4, abs=0.02)


def test_robot_description_is_latched(client):
    from std_msgs.msg import String
    (msg,) = wait_for_messages(client, String, '/rover/robot_description', count=1,
                               timeout=20.0, qos=qos(1, True))
    assert '<robot' in msg.data and 'pan_joint' in msg.data


def test_clock_has_one_publisher_and_the_node_does_not_listen_to_itself(client):
    """The node publishes /clock and, with use_sim_time (the CLI's default), takes its own ROS
    time from the physics thread: a /clock subscription of its own would wake its executor
    every step."""
    def clock_publishers() -> list[str]:
        return [p.node_name for p in client.get_publishers_info_by_topic('/clock')]
    # an endpoint's node name arrives apart from the endpoint (ros_discovery_info): until then
    # it reads _NODE_NAME_UNKNOWN_
    assert spin_until(client, lambda: clock_publishers() == ['scene_sim'], 10.0), \
        clock_publishers()
    subscribers = client.get_subscriptions_info_by_topic('/clock')
    assert 'scene_sim' not in [s.node_name for s in subscribers]


@contextlib.contextmanager
def node_log(client):
    """The texts the node logs on /rosout while the block runs."""
    from rcl_interfaces.msg import Log
    texts: list[str] = []

    def take(msg):
        if msg.name == 'scene_sim':
            texts.append(msg.msg)
    subscription = client.create_subscription(Log, '/rosout', take, qos(depth=100))
    try:
        yield texts
    finally:
        client.destroy_subscription(subscription)


def test_paused_and_real_time_factor_parameters_apply_while_running(client):
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
    from rcl_interfaces.srv import SetParameters

    from support.ros import call_service

    def set_parameter(name, value):
        if isinstance(value, bool):
            kind = ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=value)
        else:
            kind = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
        request = SetParameters.Request(parameters=[Parameter(name=name, value=kind)])
        response = call_service(client, SetParameters, '/scene_sim/set_parameters', request)
        return response.results[0].successful

    assert set_parameter('paused', True)
    # paused: /clock goes on (repeated, for late joiners) but stands still; a step that was
    # running when the parameter arrived may end first
    times = clock_messages(client, 12)
    assert len(set(times[2:])) == 1, times
    # the stepper confirms the factor it paces at (its pacing law: test_node_stepper.py)
    with node_log(client) as log:
        assert set_parameter('real_time_factor', 0.25)
        assert spin_until(client, lambda: 'real-time factor 0.25' in log, 10.0), log
        assert not set_parameter('real_time_factor', -1.0)
        assert set_parameter('paused', False)
        start_sim = clock_seconds(client)
        assert spin_until(client, lambda: clock_seconds(client) > start_sim, 10.0)
        assert set_parameter('real_time_factor', 1.0)
        assert spin_until(client, lambda: 'real-time factor 1' in log, 10.0), log
