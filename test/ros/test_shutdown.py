"""Ctrl-C in a terminal (SIGINT to the whole process group) ends `scene-sim-ros run` and
`ros2 launch` cleanly at any moment: while the node is still starting, just after, and while
it runs: exit code 0, no traceback (support/interrupts.py; run it with 50 rounds by hand)."""

from __future__ import annotations

import pytest

from support.installs import ros2_launch
from support.interrupts import DELAYS, interrupt_once
from support.processes import console_script

pytestmark = [pytest.mark.ros, pytest.mark.slow]


@pytest.mark.parametrize('delay', DELAYS)
def test_ctrl_c_ends_run_cleanly(delay):
    result = interrupt_once([console_script('scene-sim-ros'), 'run'], delay)
    assert (result.returncode, result.clean) == (0, True), result.output[-3000:]
    assert 'real-time factor' in result.output


@pytest.mark.parametrize('delay', DELAYS[::2])
def test_ctrl_c_ends_ros2_launch_cleanly(delay):
    ros2 = ros2_launch()
    result = interrupt_once([ros2, 'launch', 'scene_sim_ros', 'sim.launch.py'], delay)
    assert (result.returncode, result.clean) == (0, True), result.output[-3000:]
    assert 'process has finished cleanly' in result.output


def test_a_ctrl_c_inside_an_rclpy_native_call_is_told_from_a_bug():
    """pybind11 reports a KeyboardInterrupt that arrived inside a native call (rclpy's deserialize
    in a callback) as this TypeError; the node ends cleanly on it, any other TypeError is a bug."""
    from scene_sim_ros.ros.runtime.node import interrupted_native_call
    assert interrupted_native_call(TypeError(
        'Unable to convert function return value to a Python type! The signature was\n\t'
        '(arg0: bytes, arg1: object) -> object'))
    assert not interrupted_native_call(TypeError('unsupported operand type(s)'))
    assert not interrupted_native_call(ValueError('Unable to convert function return value'))
