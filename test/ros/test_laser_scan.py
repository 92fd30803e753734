"""LaserScan of a one-row spherical depth sensor per REP-117 / sensor_msgs: counter-clockwise
angles with a positive increment, +inf for no return, the sensor's range limits."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('sensor_msgs.msg')

from scene_sim_ros.ros.adapters.depth import scan_angles  # noqa: E402
from scene_sim_ros.ros.conversions import fill_scan, laser_scan  # noqa: E402
from scene_sim_ros.sim.sensors.rays import column_angles  # noqa: E402


def reader_for(fov: float, width: int):
    yaw = column_angles(fov, width)
    return SimpleNamespace(angle_min=float(yaw[0]), angle_max=float(yaw[-1]),
                           angle_increment=float(yaw[1] - yaw[0])), yaw


@pytest.mark.parametrize('fov, width', [(math.pi, 181), (2 * math.pi, 360), (math.radians(90), 4)])
def test_scan_angles_are_the_reversed_columns_counter_clockwise(fov, width):
    reader, yaw = reader_for(fov, width)
    angle_min, increment = scan_angles(reader)
    assert increment > 0
    angles = angle_min + increment * np.arange(width)
    assert angles == pytest.approx(yaw[::-1])  # ranges = row[::-1]
    msg = laser_scan(angle_min, increment, width, 0.05, 6.0, 0.1)
    assert msg.angle_max == pytest.approx(yaw[0])
    assert (msg.range_min, msg.range_max) == (0.05, 6.0)


def test_no_return_is_plus_inf_and_too_close_minus_inf():
    msg = laser_scan(-1.0, 1.0, 3, 0.05, 6.0, 0.0)
    fill_scan(msg, np.array([np.inf, 2.5, -np.inf], dtype=np.float32))
    assert math.isinf(msg.ranges[0]) and msg.ranges[0] > 0
    assert msg.ranges[1] == pytest.approx(2.5)
    assert math.isinf(msg.ranges[2]) and msg.ranges[2] < 0
