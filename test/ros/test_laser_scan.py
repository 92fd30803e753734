"""LaserScan of a one-row spherical depth sensor per REP-117 / sensor_msgs: counter-clockwise
angles with a positive increment, +inf for no return, the sensor's range limits; the conversion
of SimRobot's out-of-range values (``max_range``/``min_range`` from ``Simulation.read``) to
+inf/-inf on the Range, LaserScan and depth image topics."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('sensor_msgs.msg')

from scene_sim_ros.ros.bridge.adapters.depth import scan_angles  # noqa: E402
from scene_sim_ros.ros.bridge.conversions import (  # noqa: E402
    fill_scan,
    laser_scan,
    range_rep117,
    to_rep117,
)
from scene_sim_ros.ros.runtime.frame_budget import FrameBudget  # noqa: E402
from scene_sim_ros.sim.sensors.rays import column_angles  # noqa: E402

DEFAULT_SCENE = Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'scenes' / \
    'default.ros2'


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


# -- out of range: SimRobot's values from Simulation.read, REP-117/118 on the topics ----------

def test_limits_become_plus_and_minus_inf():
    values = np.array([6.0, 2.5, 0.05, 0.01, 7.0, np.inf, -np.inf, np.nan], dtype=np.float32)
    out = to_rep117(values, 0.05, 6.0)
    assert out.dtype == np.float32 and values[0] == 6.0  # a copy
    assert np.isposinf(out[0]) and out[1] == np.float32(2.5)
    assert np.isneginf(out[2]) and np.isneginf(out[3])
    assert np.isposinf(out[4]) and np.isposinf(out[5]) and np.isneginf(out[6])
    assert np.isnan(out[7])


def test_a_limit_matches_in_float32_and_zero_min_range_has_no_too_close():
    # 5.6 is not exact in float32: the clamped float32 reading still counts as max_range
    assert np.isposinf(to_rep117(np.array([np.float32(5.6)]), 0.0, 5.6)[0])
    assert to_rep117(np.array([0.0]), 0.0, 5.6)[0] == 0.0  # min_range 0: a hit at 0 is valid
    assert range_rep117(2.0, 0.02, 2.0) == math.inf
    assert range_rep117(0.02, 0.02, 2.0) == -math.inf
    assert range_rep117(1.25, 0.02, 2.0) == 1.25


class FakeNode:
    """Just what the sensor adapters use, with a real Simulation; every topic has a subscriber;
    a frame budget without pacing (every frame rendered)."""

    def __init__(self, sim):
        self.sim = sim
        self.published = {}
        self.frame_budget = FrameBudget(print)

    def create_publisher(self, msg_type, topic, qos):
        return SimpleNamespace(topic=topic, get_subscription_count=lambda: 1)

    def publish(self, publisher, msg):
        self.published[publisher.topic] = msg

    def publish_built(self, publisher, build, *args):
        self.publish(publisher, build(*args))

    def sim_reader(self, entity, sensor):
        return self.sim.reader(entity, sensor)

    def get_logger(self):
        return SimpleNamespace(info=lambda text: None)


def publish_once(sim, entity, sensor_name):
    from scene_sim_ros.ros.bridge.adapters import ADAPTERS
    from scene_sim_ros.ros.bridge.adapters.base import AdapterSettings
    sensor = entity.sensor(sensor_name)
    node = FakeNode(sim)
    adapter = ADAPTERS[sensor.kind]()
    adapter.init(node, entity, sensor, AdapterSettings(f'rover/{sensor_name}', 0.0,
                                                       f'rover/{sensor_name}', f'rover/{sensor_name}'))
    adapter.step(sim.time)
    return node.published


def test_nothing_in_range_is_max_range_from_the_api_and_plus_inf_on_the_topics():
    """The default scene: the rear range finder (the west wall 2.8 m behind, max 2 m) and the
    depth camera's top rows (above the 0.4 m walls) hit nothing within range, nor does the laser
    once the rover is lifted 2 m above the walls."""
    from scene_sim_ros import Simulation, load_scene
    scene = load_scene(DEFAULT_SCENE)
    rover = scene.entity('rover')
    with Simulation(scene) as sim:
        assert sim.read('rover', 'rear_range') == 2.0
        published = publish_once(sim, rover, 'rear_range')
        assert published['rover/rear_range/range'].range == math.inf
        # the depth camera sees the sky above the walls: max_range there, +inf on image_raw
        depth = sim.read('rover', 'depth_camera')
        assert (depth[0] == np.float32(8.0)).all()
        published = publish_once(sim, rover, 'depth_camera')
        image = published['rover/depth_camera/image_raw']
        values = np.frombuffer(bytes(image.data), np.float32).reshape(depth.shape)
        assert np.isposinf(values[0]).all()
        assert (values == np.where(depth == np.float32(8.0), np.inf, depth)).all()
        assert np.isfinite(values).any()
        position, orientation = sim.get_pose('rover')
        sim.set_pose('rover', (position[0], position[1], position[2] + 2.0), orientation)
        assert (sim.read('rover', 'laser') == np.float32(6.0)).all()
        published = publish_once(sim, rover, 'laser')
        scan = published['rover/laser/scan']
        assert len(scan.ranges) == 181 and all(r == math.inf for r in scan.ranges)
        image = published['rover/laser/image_raw']
        assert np.isposinf(np.frombuffer(bytes(image.data), np.float32)).all()
