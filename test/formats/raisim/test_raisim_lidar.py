"""RaiSim ``spinning_lidar`` fields that no ray could be cast for are ``file:line`` errors (RaiSim
documents no resets for them); a good one keeps its single-row behaviour (tilted frame) and a
multi-row one its rows in the sensor's own frame, rotating at its ``spin rate``."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.raisim import load_sensor_set

SET = """<?xml version="1.0"?>
<sensor_set name="test"><link>
  <sensor name="lidar" type="spinning_lidar" update_rate="10">
    <yaw samples="{yaw}"/>
    <pitch samples="{rows}" min_angle="{low}" max_angle="{high}"/>
    <spin direction="clockwise" rate="{spin}"/>
    <range min="{near}" max="{far}"/>
  </sensor>
</link></sensor_set>
"""
GOOD = dict(yaw=360, rows=16, low=-0.2, high=0.4, spin=10, near=0.3, far=20)


def write_set(tmp_path, **fields):
    path = tmp_path / 'set.xml'
    path.write_text(SET.format(**{**GOOD, **fields}))
    return path


def test_a_multi_row_lidar_keeps_its_frame_and_spins(tmp_path):
    (lidar,) = load_sensor_set(write_set(tmp_path), link='base').sensors
    assert (lidar.height, lidar.rotating, lidar.frequency) == (16, True, 10.0)
    assert lidar.tilt == pytest.approx(0.1) and lidar.fov_y == pytest.approx(0.6)
    assert lidar.pose.orientation == pytest.approx((0.0, 0.0, 0.0, 1.0))


def test_a_one_row_lidar_is_still_tilted_by_its_pose(tmp_path):
    (lidar,) = load_sensor_set(write_set(tmp_path, rows=1), link='base').sensors
    assert lidar.tilt == 0.0
    assert lidar.pose.orientation == pytest.approx((0.0, -math.sin(0.05), 0.0, math.cos(0.05)))


@pytest.mark.parametrize(('fields', 'message'), [
    (dict(rows=0), r'yaw and pitch samples \(360, 0\) must be >= 1'),
    (dict(yaw=0), r'yaw and pitch samples \(0, 16\) must be >= 1'),
    (dict(low=0.4, high=-0.2), r'pitch max_angle - min_angle \(-0.6\) must be in \(0, pi\]'),
    (dict(low=-2, high=2), r'pitch max_angle - min_angle \(4\) must be in \(0, pi\]'),
    (dict(near=20, far=20), r'range min \(20\) must be >= 0 and < max \(20\)'),
    (dict(near=-1), r'range min \(-1\) must be >= 0'),
    (dict(spin=-5), r'spin rate \(-5\) must not be negative'),
    (dict(far='nan'), 'pitch, range and spin must be finite'),
    (dict(high='inf'), 'pitch, range and spin must be finite'),
])
def test_a_bad_field_is_an_error_at_the_sensor_line(tmp_path, fields, message):
    path = write_set(tmp_path, **fields)
    with pytest.raises(SceneLoadError, match=rf'{path}:3: spinning_lidar: {message}'):
        load_sensor_set(path, link='base')
