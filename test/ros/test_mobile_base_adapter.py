"""The ROS adapter of mobile bases without DDS: a stand-in node with a real Simulation checks
cmd_vel handling (NaN, stale stamps, the Twist/TwistStamped choice), the holonomic drive and the
odometry message and TF poses, with and without noise."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip('nav_msgs.msg')

from geometry_msgs.msg import Twist, TwistStamped  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402

from scene_sim_ros import Simulation, load_scene  # noqa: E402
from scene_sim_ros.ros.bridge.mobile_base import GLOBAL_PARAMETERS, MobileBase  # noqa: E402
from scene_sim_ros.ros.bridge.tf import FrameNames  # noqa: E402
from scene_sim_ros.ros.rate import RateLimiter  # noqa: E402

SCENE = Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'scenes' / 'default.ros2'


class FakeNode:
    def __init__(self, sim, **parameters):
        self.sim = sim
        self.frames = FrameNames()
        self.parameters = {name: value for name, (value, _) in GLOBAL_PARAMETERS.items()}
        self.parameters['seed'] = 3
        self.parameters.update(parameters)
        self.rejected: list[str] = []
        self.published: list = []
        self.published_on: dict[str, list] = {}
        self.subscribers: dict[str, int] = {}  # topic -> subscriber count
        self.subscriptions: list = []
        self.stepper = SimpleNamespace(time=0.0, time_offset=0.0,
                                       submit=lambda task, want_result=False: task())

    def has_parameter(self, name):
        return name in self.parameters

    def get_parameter(self, name):
        return Parameter(name, value=self.parameters[name])

    def create_publisher(self, msg_type, topic, qos):
        return SimpleNamespace(topic=topic, msg_type=msg_type,
                               get_subscription_count=lambda: self.subscribers.get(topic, 0))

    def create_subscription(self, msg_type, topic, callback, qos):
        subscription = SimpleNamespace(msg_type=msg_type, topic=topic, callback=callback)
        self.subscriptions.append(subscription)
        return subscription

    def rate_limiter(self, rate):
        return RateLimiter(rate, self.sim.step_length)

    def reject(self, source, reason):
        self.rejected.append(f'{source}: {reason}')

    def publish(self, publisher, msg):
        if isinstance(msg, bytes):  # a message serialized once and patched (ros/serialized.py)
            msg = deserialize_message(msg, publisher.msg_type)
        self.published.append(msg)
        self.published_on.setdefault(publisher.topic, []).append(msg)

    def publish_built(self, publisher, build, *args):
        self.publish(publisher, build(*args))

    def get_logger(self):
        return SimpleNamespace(info=lambda text: None, warning=lambda text: None)


@pytest.fixture
def sim():
    with Simulation(load_scene(SCENE)) as simulation:
        yield simulation


def base_for(node, name):
    entity = load_scene(SCENE).entity(name)
    return MobileBase(node, entity, name)


def run(node, base, steps):
    for _ in range(steps):
        base.before_step(node.stepper.time)
        node.sim.step(1)
        node.stepper.time = node.sim.time
        base.after_step(node.stepper.time)


def test_stamped_cmd_vel_rejects_nan_and_stale_and_drives(sim):
    node = FakeNode(sim)
    base = base_for(node, 'rover')
    (subscription,) = node.subscriptions
    assert subscription.msg_type is TwistStamped and subscription.topic == 'rover/cmd_vel'
    node.stepper.time = 2.0
    bad = TwistStamped()
    bad.twist.angular.z = math.inf
    subscription.callback(bad)
    stale = TwistStamped()
    stale.header.stamp.sec = 1  # 1 s old, timeout 0.5 s
    subscription.callback(stale)
    assert len(node.rejected) == 2 and 'not finite' in node.rejected[0]
    assert 'stale' in node.rejected[1]
    node.stepper.time = sim.time
    good = TwistStamped()  # zero stamp: now
    good.twist.linear.x = 0.4
    subscription.callback(good)
    run(node, base, 40)  # within the 0.5 s timeout
    odom = node.published[-1]
    assert odom.header.frame_id == 'rover/odom' and odom.child_frame_id == 'rover/rover'
    assert odom.twist.twist.linear.x == pytest.approx(0.4, abs=0.03)
    position, orientation = sim.get_pose('rover')
    assert odom.pose.pose.position.x == pytest.approx(position[0], abs=1e-9)
    (odom_root, world_odom) = base.tf_poses(sim.get_pose('rover'))
    assert world_odom == ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def test_unstamped_cmd_vel_and_holonomic_drive_of_a_ball(sim):
    node = FakeNode(sim, cmd_vel_stamped=False, **{'mobile_bases.ball.drive': 'holonomic'})
    base = base_for(node, 'ball')
    (subscription,) = node.subscriptions
    assert subscription.msg_type is Twist
    run(node, base, 20)  # settle on the floor
    start = sim.get_pose('ball')[0]
    command = Twist()
    command.linear.y = 0.3  # sideways: only a holonomic base can
    subscription.callback(command)
    run(node, base, 50)  # 0.5 s: then the timeout stops it
    run(node, base, 50)
    end = sim.get_pose('ball')[0]
    assert end[1] - start[1] == pytest.approx(0.15, abs=0.03)
    assert abs(end[0] - start[0]) < 0.02


def test_noisy_odometry_moves_the_odom_frame_and_keeps_the_chain(sim):
    node = FakeNode(sim, **{'odometry.noise.linear': 0.05, 'odometry.drift.linear': 0.2})
    base = base_for(node, 'rover')
    (subscription,) = node.subscriptions
    command = TwistStamped()
    command.twist.linear.x = 0.5
    for _ in range(3):
        subscription.callback(command)
        run(node, base, 45)
    truth = sim.get_pose('rover')
    (p, q), (wp, wq) = base.tf_poses(truth)
    assert p[0] > truth[0][0] + 0.05  # the estimate reads long (20 % drift)
    from scene_sim_ros.scene import Pose
    chained = Pose(tuple(wp), tuple(wq)) * Pose(tuple(p), tuple(q))
    assert chained.is_close(Pose(tuple(truth[0]), tuple(truth[1])), 1e-9, 1e-9)
    odom = node.published[-1]
    assert odom.pose.covariance[0] > 1e-6  # grows with the distance


def test_a_supervisor_reset_forgets_the_command(sim):
    node = FakeNode(sim)
    base = base_for(node, 'rover')
    (subscription,) = node.subscriptions
    command = TwistStamped()
    command.twist.linear.x = 0.5
    subscription.callback(command)
    run(node, base, 10)
    assert base.controller.active
    node.stepper.time_offset = 0.1  # what Supervisor.reset does to keep /clock increasing
    sim.reset()
    run(node, base, 1)
    assert not base.controller.active


def test_covariances_are_the_parameters_plus_the_noise_model(sim):
    node = FakeNode(sim, **{'odometry.pose_covariance_diagonal': [0.01, 0.02, 0.03, 0.04, 0.05,
                                                                  0.06]})
    base = base_for(node, 'rover')
    run(node, base, 3)
    odom = node.published_on['rover/odom'][-1]
    diagonal = [odom.pose.covariance[7 * i] for i in range(6)]
    assert diagonal == pytest.approx([0.01, 0.02, 0.03, 0.04, 0.05, 0.06], abs=1e-12)
    twist = [odom.twist.covariance[7 * i] for i in range(6)]
    assert twist == pytest.approx([0.001, 0.001, 0.001, 0.001, 0.001, 0.01], abs=1e-12)
    assert sum(abs(v) for i, v in enumerate(odom.pose.covariance) if i % 7) == 0.0


@pytest.mark.parametrize('value', [[0.1] * 5, [0.1, 0.1, 0.1, 0.1, 0.1, -1.0],
                                   [0.1, 0.1, 0.1, 0.1, 0.1, math.nan]])
def test_a_bad_covariance_diagonal_is_an_error_naming_the_parameter(sim, value):
    node = FakeNode(sim, **{'odometry.twist_covariance_diagonal': value})
    with pytest.raises(ValueError, match='odometry.twist_covariance_diagonal'):
        base_for(node, 'rover')


def test_ground_truth_is_the_true_pose_in_the_world_frame_while_subscribed(sim):
    node = FakeNode(sim, **{'odometry.noise.linear': 0.05, 'odometry.drift.linear': 0.2})
    base = base_for(node, 'rover')
    (subscription,) = node.subscriptions
    command = TwistStamped()
    command.twist.linear.x = 0.5
    command.twist.angular.z = 0.8
    subscription.callback(command)
    run(node, base, 30)
    assert 'rover/ground_truth' not in node.published_on  # nobody subscribes: not published
    node.subscribers['rover/ground_truth'] = 1
    base.ground_truth._checked = -math.inf  # look at the (fake) graph again now
    subscription.callback(command)
    run(node, base, 30)
    truth = node.published_on['rover/ground_truth']
    assert len(truth) == 15  # 50 Hz for 0.3 s
    last = truth[-1]
    assert last.header.frame_id == 'world' and last.child_frame_id == 'rover/rover'
    position, orientation = sim.get_pose('rover')
    p = last.pose.pose.position
    assert (p.x, p.y, p.z) == pytest.approx(position, abs=1e-9)
    odom = node.published_on['rover/odom'][-1]
    assert odom.pose.pose.position.x != pytest.approx(p.x, abs=1e-3)  # the odometry drifts
    # the twist in the base frame: forward speed and yaw rate as commanded, no sideways slip
    assert last.twist.twist.linear.x == pytest.approx(0.5, abs=0.05)
    assert last.twist.twist.linear.y == pytest.approx(0.0, abs=0.02)
    assert last.twist.twist.angular.z == pytest.approx(0.8, abs=0.08)
