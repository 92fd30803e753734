"""ros2_control through topics, from a separate process speaking exactly what PickNik's
``topic_based_ros2_control`` TopicBasedSystem (0.3.0, src/topic_based_system.cpp) speaks: its
commands are built from the ``urdf --ros2-control`` tag as its ``write()`` builds them (every
joint of the tag by name; per interface one value for each joint having it, in tag order) and
published reliable with depth 1; joint states are read best effort (SensorDataQoS) as its
``read()`` does."""

from __future__ import annotations

import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip('rclpy')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until, stamp  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

STATE_RATE = 50.0  # Hz: publish_rates.joint_states, the controller_manager's update rate here
WHEELS = ('left_wheel_joint', 'right_wheel_joint')


def tag_joints(*args: str) -> list[tuple[str, str]]:
    """(joint, command interface) of the tag ``scene-sim-ros urdf --ros2-control`` prints."""
    text = subprocess.run([sys.executable, '-m', 'scene_sim_ros.cli', 'urdf',
                           'scene_sim_ros/data/scenes/default.ros2', '--entity', 'rover',
                           '--ros2-control', *args],
                          check=True, capture_output=True, text=True).stdout
    tag = ET.fromstring(text).find('ros2_control')
    return [(j.get('name'), j.find('command_interface').get('name'))
            for j in tag.findall('joint')]


def plugin_message(joints: list[tuple[str, str]], commands: dict[str, float]):
    """TopicBasedSystem::write(): names in tag order, each value in its interface's array."""
    from sensor_msgs.msg import JointState
    msg = JointState()
    for name, interface in joints:
        msg.name.append(name)
        getattr(msg, interface).append(commands[name])
    return msg


class Plugin:
    """The hardware interface's two endpoints, with its QoS."""

    def __init__(self, client):
        from rclpy.qos import QoSProfile, qos_profile_sensor_data
        from sensor_msgs.msg import JointState
        self.client = client
        self.states: list = []
        self.publisher = client.create_publisher(JointState, '/rover/joint_commands',
                                                 QoSProfile(depth=1))
        self.subscription = client.create_subscription(
            JointState, '/rover/joint_states', self.states.append, qos_profile_sensor_data)

    def latest(self) -> dict[str, tuple[float, float]]:
        msg = self.states[-1]
        return {n: (p, v) for n, p, v in zip(msg.name, msg.position, msg.velocity)}

    def run_for(self, seconds: float) -> None:
        """Let ``seconds`` of sim time pass (by the joint states' stamps)."""
        assert spin_until(self.client, lambda: bool(self.states), 30.0)
        end = stamp(self.states[-1].header) + seconds
        assert spin_until(self.client, lambda: stamp(self.states[-1].header) >= end, 60.0)

    def send(self, msg) -> None:
        assert spin_until(self.client, lambda: self.publisher.get_subscription_count() > 0, 30.0)
        self.publisher.publish(msg)


@pytest.fixture(scope='module')
def plugin(tmp_path_factory):
    folder = tmp_path_factory.mktemp('topic_based_system')
    with scene_sim_run(folder, '--ros-args', '-p',
                       f'publish_rates.joint_states:={STATE_RATE}'):
        for client in client_node('topic_based_system_client'):
            yield Plugin(client)


def test_joint_states_arrive_at_the_configured_rate(plugin):
    plugin.run_for(2.0)
    stamps = [stamp(m.header) for m in plugin.states[-60:]]
    period = statistics.median(b - a for a, b in zip(stamps, stamps[1:]))
    assert period == pytest.approx(1.0 / STATE_RATE, abs=1e-6)
    assert set(plugin.states[-1].name) >= {'pan_joint', 'tilt_joint', 'mast_joint', *WHEELS}


def test_commands_for_every_joint_in_the_plugins_layout_move_every_joint(plugin):
    joints = tag_joints()
    assert dict(joints) == {'left_wheel_joint': 'velocity', 'right_wheel_joint': 'velocity',
                            'mast_joint': 'position', 'pan_joint': 'position',
                            'tilt_joint': 'position'}
    targets = {'left_wheel_joint': 2.0, 'right_wheel_joint': -2.0, 'mast_joint': 0.1,
               'pan_joint': 0.6, 'tilt_joint': -0.3}
    msg = plugin_message(joints, targets)
    assert len(msg.position) == 3 and len(msg.velocity) == 2  # shorter than name: the layout
    plugin.send(msg)
    plugin.run_for(2.0)
    state = plugin.latest()
    for joint in ('mast_joint', 'pan_joint', 'tilt_joint'):
        assert state[joint][0] == pytest.approx(targets[joint], abs=0.01), joint
    for wheel in WHEELS:  # turning on the spot: each wheel at its commanded speed
        assert state[wheel][1] == pytest.approx(targets[wheel], abs=0.1), wheel


def test_a_tag_with_a_subset_of_joints_moves_exactly_those(plugin):
    everything = tag_joints()
    plugin.send(plugin_message(everything, {'left_wheel_joint': 0.0, 'right_wheel_joint': 0.0,
                                            'mast_joint': 0.08, 'pan_joint': 0.0,
                                            'tilt_joint': 0.0}))
    plugin.run_for(1.5)
    before = plugin.latest()
    subset = [(n, i) for n, i in everything if n in ('pan_joint', 'tilt_joint')]
    plugin.send(plugin_message(subset, {'pan_joint': -0.4, 'tilt_joint': 0.25}))
    plugin.run_for(2.0)
    after = plugin.latest()
    assert after['pan_joint'][0] == pytest.approx(-0.4, abs=0.01)
    assert after['tilt_joint'][0] == pytest.approx(0.25, abs=0.01)
    assert after['mast_joint'][0] == pytest.approx(before['mast_joint'][0], abs=1e-3)
    for wheel in WHEELS:  # still held at zero speed, not moved by the subset
        assert after[wheel][0] == pytest.approx(before[wheel][0], abs=0.02), wheel
