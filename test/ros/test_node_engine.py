"""The node on the MuJoCo engine, chosen by the parameter ``engine`` (what ``engine:=mujoco`` of
the launch file and ``run --engine mujoco`` give it), seen from this separate process: it builds
the MuJoCo world, publishes /clock and the joint states of the arm example, a position command
moves a servo there, and load_world swaps the world within the same simulation. The node's other
features on both engines are the engine tests' question; this is the path from the option to the
engine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.processes import console_script, scene_sim_run
from support.ros import spin_until, wait_for_messages

EXAMPLES = Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'examples'
ARM_JOINTS = ['waist_joint', 'shoulder_joint', 'elbow_joint', 'wrist_joint']  # arm.ros2
WAIST_TARGET = 0.5  # rad
WAIST_TOLERANCE = 0.05  # rad: a servo at its set-point within 3 s, as test_run_command's pan joint


def test_the_node_names_every_engine_in_its_log():
    from scene_sim_ros.ros.runtime.node import ENGINE_TITLES
    from scene_sim_ros.sim.engines import ENGINES
    assert tuple(ENGINE_TITLES) == ENGINES


@pytest.fixture(scope='module')
def sim(tmp_path_factory):
    with scene_sim_run(tmp_path_factory.mktemp('mujoco'), 'arm', '--worlds', str(EXAMPLES),
                       '--ros-args', '-p', 'engine:=mujoco') as process:
        yield process


def test_the_parameter_engine_builds_the_mujoco_world(sim):
    log = sim.output()
    assert 'building the MuJoCo world' in log
    assert 'arm.ros2: 4 entities, step 5 ms, MuJoCo, real-time factor 1' in log


def test_the_mujoco_node_publishes_the_clock_and_moves_a_commanded_joint(sim, ros_node):
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    stamps = [m.clock.sec + m.clock.nanosec * 1e-9
              for m in wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0]
    states = wait_for_messages(ros_node, JointState, '/arm/joint_states', count=5, timeout=30.0)
    assert all(list(m.name) == ARM_JOINTS for m in states)

    waist: list[float] = []
    ros_node.create_subscription(
        JointState, '/arm/joint_states', lambda m: waist.append(m.position[0]), 100)
    forward = ros_node.create_publisher(Float64MultiArray, '/arm/position_controller/commands', 10)
    assert spin_until(ros_node, lambda: forward.get_subscription_count() > 0, 20.0)
    forward.publish(Float64MultiArray(data=[WAIST_TARGET, 0.0, 0.0, 0.0]))
    assert spin_until(
        ros_node, lambda: bool(waist) and abs(waist[-1] - WAIST_TARGET) < WAIST_TOLERANCE, 30.0), \
        f'waist_joint at {waist[-1] if waist else None} rad, commanded {WAIST_TARGET}'


def _load(world: str) -> None:
    loaded = subprocess.run([console_script('scene-sim-ros'), 'load', world], capture_output=True,
                            text=True, timeout=60)
    assert loaded.returncode == 0, loaded.stderr


def test_load_world_swaps_the_world_in_the_mujoco_simulation(sim, ros_node):
    """The arm comes back afterwards, for the module's other tests in any order."""
    from sensor_msgs.msg import JointState
    try:
        _load('car')
        states = wait_for_messages(ros_node, JointState, '/car/joint_states', count=5,
                                   timeout=30.0)
        assert 'rear_left_joint' in states[-1].name
        assert sim.output().count('building the') == 1  # the simulation was not built again
    finally:
        _load('arm')
        wait_for_messages(ros_node, JointState, '/arm/joint_states', count=1, timeout=30.0)
