"""Mobile bases from a separate process, as Nav2 talks to the node: the default rover driven by
``cmd_vel`` (TwistStamped by default, Twist with ``cmd_vel_stamped:=false``) moves ~2 m in 4 s,
its Odometry and TF ``odom -> base`` agree with the ground truth (the supervisor's
get_entity_state), it stops within the command timeout, and NaN or stale commands are rejected
and counted. A remap puts the laser scan on Nav2's usual ``scan``."""

from __future__ import annotations

import math

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('nav_msgs.msg')

from support.node_probes import count_rejections  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node, qos, spin_until, stamp  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

DRIVE_SPEED = 0.5  # m/s
DRIVE_TIME = 4.0  # s of sim time
TIMEOUT = 0.5  # cmd_vel_timeout default
BRAKING = 0.3  # s the rover may take to stand still once the wheels are told to stop
POSITION_TOLERANCE = 0.01  # m
ANGLE_TOLERANCE = math.radians(0.5)


def yaw(q) -> float:
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def angle_between(a, b) -> float:
    dot = abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w)
    return 2.0 * math.acos(min(1.0, dot))


class Recorder:
    """Everything the client hears while driving: /clock, the rover's odom, odom TF."""

    def __init__(self, client):
        from nav_msgs.msg import Odometry
        from rosgraph_msgs.msg import Clock
        from tf2_msgs.msg import TFMessage
        self.client = client
        self.clock = 0.0
        self.odom: list = []
        self.tf: dict[float, object] = {}  # stamp -> odom -> rover/rover transform
        self.world_odom: list = []
        self.subscriptions = [
            client.create_subscription(Clock, '/clock', self._on_clock, 10),
            client.create_subscription(Odometry, '/rover/odom', self.odom.append, qos(200)),
            client.create_subscription(TFMessage, '/tf', self._on_tf, qos(200)),
        ]

    def _on_clock(self, msg):
        self.clock = msg.clock.sec + msg.clock.nanosec * 1e-9

    def _on_tf(self, msg):
        for t in msg.transforms:
            if (t.header.frame_id, t.child_frame_id) == ('rover/odom', 'rover/rover'):
                self.tf[stamp(t.header)] = t.transform
            elif (t.header.frame_id, t.child_frame_id) == ('world', 'rover/odom'):
                self.world_odom.append(t.transform)
            assert t.child_frame_id != 'rover/rover' or t.header.frame_id == 'rover/odom', \
                'rover/rover has a second parent'

    def close(self):
        for subscription in self.subscriptions:
            self.client.destroy_subscription(subscription)


def ground_truth(client):
    from simulation_interfaces.srv import GetEntityState
    response = call_service(client, GetEntityState, '/get_entity_state',
                            GetEntityState.Request(entity='rover'), timeout=20.0)
    assert response.result.result == 1, response.result.error_message
    return response.state.pose


def drive(client, stamped: bool):
    """Drive straight at DRIVE_SPEED for DRIVE_TIME s of sim time (commands at ~20 Hz), then
    stop sending; returns the recorder and the sim time of the last command."""
    from geometry_msgs.msg import Twist, TwistStamped
    from nav_msgs.msg import Odometry
    recorder = Recorder(client)
    publisher = client.create_publisher(TwistStamped if stamped else Twist, '/rover/cmd_vel', 10)
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0
                          and recorder.clock > 0.0 and recorder.odom, 30.0)
        start_odom: Odometry = recorder.odom[-1]
        start = recorder.clock
        last_command = start
        while recorder.clock < start + DRIVE_TIME:
            twist = Twist()
            twist.linear.x = DRIVE_SPEED
            if stamped:
                msg = TwistStamped(twist=twist)
                sec = int(recorder.clock)
                msg.header.stamp.sec, msg.header.stamp.nanosec = sec, int(
                    (recorder.clock - sec) * 1e9)
                msg.header.frame_id = 'rover/rover'
                publisher.publish(msg)
            else:
                publisher.publish(twist)
            last_command = recorder.clock
            spin_until(client, lambda: False, 0.05)
        # wait until it has stood still for a while
        assert spin_until(client, lambda: recorder.clock > last_command + TIMEOUT + 1.0, 30.0)
        return recorder, start_odom, last_command
    finally:
        client.destroy_publisher(publisher)
        recorder.close()


def check_drive(client, recorder, start_odom, last_command):
    odom = recorder.odom
    start = start_odom.pose.pose.position
    end_msg = odom[-1]
    end = end_msg.pose.pose.position
    distance = math.hypot(end.x - start.x, end.y - start.y)
    # commanded for DRIVE_TIME s; the last command holds until the timeout
    driven = last_command - stamp(start_odom.header) + TIMEOUT
    assert distance == pytest.approx(DRIVE_SPEED * driven, rel=0.1), distance
    assert distance > 0.95 * DRIVE_SPEED * DRIVE_TIME
    assert abs(end.y - start.y) < 0.05 and abs(yaw(end_msg.pose.pose.orientation)) < 0.05

    # frames and covariances as Nav2 expects them
    assert (end_msg.header.frame_id, end_msg.child_frame_id) == ('rover/odom', 'rover/rover')
    assert all(end_msg.pose.covariance[i * 7] > 0.0 for i in range(6))
    assert all(end_msg.twist.covariance[i * 7] > 0.0 for i in range(6))

    # while driving: twist in the base frame, ~0.5 m/s along x
    moving = [m for m in odom if stamp(m.header) < last_command - 0.2
              and m.twist.twist.linear.x > 0.4]
    assert moving, 'no odometry while driving'
    assert moving[-1].twist.twist.linear.x == pytest.approx(DRIVE_SPEED, abs=0.05)

    # stops within the timeout (plus braking) after the last command
    still = [stamp(m.header) for m in odom
             if stamp(m.header) > last_command and abs(m.twist.twist.linear.x) < 0.01]
    assert still, 'the rover did not stop'
    stop_after = still[0] - last_command
    print(f'stood still {stop_after:.3f} s after the last command')
    assert stop_after <= TIMEOUT + BRAKING
    # and stays stopped
    after = [m for m in odom if stamp(m.header) > still[0] + 0.2]
    assert after and all(abs(m.twist.twist.linear.x) < 0.01 for m in after)

    # odometry = TF odom -> base at equal stamps; world -> odom is identity (noise-free)
    matched = [(m, recorder.tf[stamp(m.header)]) for m in odom if stamp(m.header) in recorder.tf]
    assert len(matched) > 10
    for m, t in matched:
        p = m.pose.pose.position
        assert math.dist((p.x, p.y, p.z), (t.translation.x, t.translation.y,
                                           t.translation.z)) < 1e-6
    assert recorder.world_odom and all(
        abs(t.translation.x) < 1e-9 and t.rotation.w == 1.0 for t in recorder.world_odom)

    # against the supervisor's ground truth, now that it stands still
    truth = ground_truth(client)
    last = recorder.odom[-1].pose.pose
    error = math.dist((last.position.x, last.position.y, last.position.z),
                      (truth.position.x, truth.position.y, truth.position.z))
    angle = angle_between(last.orientation, truth.orientation)
    last_tf = recorder.tf[max(recorder.tf)]
    tf_error = math.dist((last_tf.translation.x, last_tf.translation.y,
                          last_tf.translation.z),
                         (truth.position.x, truth.position.y, truth.position.z))
    print(f'drove {distance:.3f} m; odom vs ground truth {error * 1000:.2f} mm, '
          f'{math.degrees(angle):.3f} deg; TF vs ground truth {tf_error * 1000:.2f} mm')
    assert error < POSITION_TOLERANCE and angle < ANGLE_TOLERANCE
    assert tf_error < POSITION_TOLERANCE
    assert angle_between(last_tf.rotation, truth.orientation) < ANGLE_TOLERANCE


# --- TwistStamped (the default) -------------------------------------------------------------------

class StampedNode:
    """The module's node with the default parameters. test_drive_with_twist stops it (one node
    at a time on this domain); the next test that needs it starts it again, whatever the order."""

    def __init__(self, folder):
        self.folder = folder
        self.proc = None

    def running(self):
        if self.proc is None or not self.proc.is_running():
            self.stop()
            self.proc = scene_sim_run(self.folder, '--ros-args',
                                      '-r', '/rover/laser/scan:=/scan').start()
        return self.proc

    def stop(self):
        if self.proc is not None:
            self.proc.stop()


@pytest.fixture(scope='module')
def stamped_node(tmp_path_factory):
    node = StampedNode(tmp_path_factory.mktemp('mobile_stamped'))
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope='module')
def module_client():
    yield from client_node('mobile_base_test_client')


@pytest.fixture
def client(stamped_node, module_client):
    """The module's client, with the default node running."""
    stamped_node.running()
    return module_client


def test_drive_with_twist_stamped(client):
    recorder, start_odom, last_command = drive(client, stamped=True)
    check_drive(client, recorder, start_odom, last_command)


def test_nan_and_stale_commands_are_rejected_and_counted(client):
    from geometry_msgs.msg import TwistStamped
    from rosgraph_msgs.msg import Clock
    publisher = client.create_publisher(TwistStamped, '/rover/cmd_vel', 10)
    clock = []
    subscription = client.create_subscription(Clock, '/clock', clock.append, 10)
    try:
        # a stamp 2 s old needs a node that has run for more than 2 s of sim time (a zero
        # stamp means unstamped, never stale)
        assert spin_until(client, lambda: clock and clock[-1].clock.sec >= 3, 30.0)
        nan = TwistStamped()
        nan.twist.linear.x = math.nan
        stale = TwistStamped()
        stale.twist.linear.x = 0.3
        stale.header.stamp.sec = clock[-1].clock.sec - 2  # older than the 0.5 s timeout
        assert count_rejections(client, [(publisher, nan), (publisher, stale)]) == 2
    finally:
        client.destroy_publisher(publisher)
        client.destroy_subscription(subscription)


def test_laser_scan_remapped_to_scan(client):
    from sensor_msgs.msg import LaserScan
    received = []
    subscription = client.create_subscription(LaserScan, '/scan', received.append, 10)
    try:
        assert spin_until(client, lambda: bool(received), 20.0), 'no LaserScan on /scan'
    finally:
        client.destroy_subscription(subscription)
    scan = received[-1]
    assert scan.header.frame_id == 'rover/laser' and scan.angle_increment > 0
    assert scan.range_min == pytest.approx(0.05) and scan.range_max == pytest.approx(6.0)


def test_odometry_topic_types(client):
    names: dict = {}

    def discovered():  # the graph as it stands now: all of the node's topics seen
        names.clear()
        names.update(client.get_topic_names_and_types())
        return {'/rover/odom', '/rover/cmd_vel', '/scan'} <= set(names)
    assert spin_until(client, discovered, 20.0), sorted(names)
    assert names['/rover/odom'] == ['nav_msgs/msg/Odometry']
    assert names['/rover/cmd_vel'] == ['geometry_msgs/msg/TwistStamped']
    assert '/ball/odom' not in names  # an object, not a robot
    assert '/wall_north/center_of_mass' not in names  # supervisor topics only on request


# --- Twist (Jazzy) ---------------------------------------------------------------------------

def test_drive_with_twist(tmp_path_factory, stamped_node):
    stamped_node.stop()  # one node at a time on this domain; a later test starts it again
    with scene_sim_run(tmp_path_factory.mktemp('mobile_twist'),
                       '--ros-args', '-p', 'cmd_vel_stamped:=false'):
        clients = client_node('mobile_base_twist_client')
        twist_client = next(clients)
        try:
            def twist_type():
                return dict(twist_client.get_topic_names_and_types()).get('/rover/cmd_vel')
            assert spin_until(twist_client, lambda: twist_type() == ['geometry_msgs/msg/Twist'],
                              20.0)
            recorder, start_odom, last_command = drive(twist_client, stamped=False)
            check_drive(twist_client, recorder, start_odom, last_command)
        finally:
            clients.close()
