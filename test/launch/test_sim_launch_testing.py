"""launch_testing test of launch/sim.launch.py: the real ROS 2 launch stack starts the simulation.

launch_testing is not on PyPI: this module runs where it is importable (a ROS 2 distribution, or
the tools environment the closing notes of issue 39 describe) and is skipped elsewhere.

    launch_test test/launch/test_sim_launch_testing.py      # launch_testing's runner
    python -m pytest test/launch/test_sim_launch_testing.py # the same through its pytest plugin

Active test: a separate rclpy node (this test process) sees /clock advance, receives
/rover/joint_states and finds the world of the ``worlds`` launch argument's folder among the
available worlds. Post-shutdown test: every process launched exited cleanly (0, or SIGINT's
code when launch's SIGINT on shutdown is reported as such).

Run with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST, a ROS_DOMAIN_ID of its own and ROS_LOG_DIR set;
SCENE_SIM_LAUNCH_FILE overrides the launch file (default: the checkout's launch/sim.launch.py).
"""

import os
import shutil
import signal
import tempfile
import time
import unittest
from pathlib import Path

import pytest

pytest.importorskip('launch_testing', reason='launch_testing is not on PyPI: runs on a ROS 2 '
                                             'distribution or a tools environment')

import launch_testing  # noqa: E402
import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
import rclpy  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from launch import LaunchDescription  # noqa: E402

LAUNCH_FILE = Path(os.environ.get(
    'SCENE_SIM_LAUNCH_FILE',
    Path(__file__).resolve().parents[2] / 'launch' / 'sim.launch.py'))
# Best effort matches both reliable and best-effort publishers.
QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
STARTUP_TIMEOUT = 60.0  # s: PyBullet world + first messages on a loaded 2-core machine
WORLDS = Path(tempfile.mkdtemp(prefix='scene_sim_launch_worlds_'))
shutil.copy(Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'examples' / 'car.ros2',
            WORLDS / 'launch_car.ros2')


@pytest.mark.launch_test
def generate_test_description():
    sim = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(LAUNCH_FILE)),
        launch_arguments={'gui': 'false', 'real_time_factor': '1.0',
                          'worlds': str(WORLDS)}.items())
    return LaunchDescription([sim, launch_testing.actions.ReadyToTest()])


def _stamp_ns(clock: Clock) -> int:
    return clock.clock.sec * 1_000_000_000 + clock.clock.nanosec


class TestSimulationRuns(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        rclpy.init()
        cls.node = rclpy.create_node('test_sim_launch_probe')

    @classmethod
    def tearDownClass(cls):
        cls.node.destroy_node()
        rclpy.shutdown()

    def _spin_until(self, condition, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not condition():
            rclpy.spin_once(self.node, timeout_sec=0.1)
        return condition()

    def test_clock_advances(self, proc_output):
        stamps = []
        sub = self.node.create_subscription(Clock, '/clock',
                                            lambda m: stamps.append(_stamp_ns(m)), QOS)
        try:
            self.assertTrue(self._spin_until(lambda: len(stamps) >= 1, STARTUP_TIMEOUT),
                            'no /clock message')
            first = stamps[0]
            self.assertTrue(self._spin_until(lambda: stamps[-1] >= first + 200_000_000, 20.0),
                            f'/clock did not advance by 0.2 s: {stamps[0]} .. {stamps[-1]} ns')
            self.assertEqual(stamps, sorted(stamps), '/clock went backwards')
            # ours, not another simulation's on the same domain
            publishers = {f'{i.node_namespace.rstrip("/")}/{i.node_name}'
                          for i in self.node.get_publishers_info_by_topic('/clock')}
            self.assertIn('/scene_sim', publishers)
            self.assertEqual(len(publishers), 1, f'/clock has several publishers: {publishers}')
        finally:
            self.node.destroy_subscription(sub)

    def test_rover_joint_states_arrive(self, proc_output):
        messages = []
        sub = self.node.create_subscription(JointState, '/rover/joint_states',
                                            messages.append, QOS)
        try:
            self.assertTrue(self._spin_until(lambda: len(messages) >= 3, STARTUP_TIMEOUT),
                            'fewer than 3 /rover/joint_states messages')
            last = messages[-1]
            self.assertGreater(len(last.name), 0)
            self.assertEqual(len(last.name), len(last.position))
        finally:
            self.node.destroy_subscription(sub)

    def test_worlds_argument_offers_its_folder(self, proc_output):
        from simulation_interfaces.srv import GetAvailableWorlds
        client = self.node.create_client(GetAvailableWorlds, '/get_available_worlds')
        try:
            self.assertTrue(self._spin_until(client.service_is_ready, STARTUP_TIMEOUT))
            future = client.call_async(GetAvailableWorlds.Request())
            self.assertTrue(self._spin_until(future.done, 30.0))
            worlds = {w.name: list(w.tags) for w in future.result().worlds}
            self.assertIn('launch_car', worlds)
            self.assertIn('folder', worlds['launch_car'])
        finally:
            self.node.destroy_client(client)


@launch_testing.post_shutdown_test()
class TestSimulationExit(unittest.TestCase):

    def test_exit_codes(self, proc_info):
        # launch stops the node with SIGINT: a clean exit is 0; -SIGINT if the signal
        # itself ended it.
        launch_testing.asserts.assertExitCodes(
            proc_info, allowable_exit_codes=[launch_testing.asserts.EXIT_OK, -signal.SIGINT])
