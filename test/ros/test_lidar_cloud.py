"""The XYZIRT cloud of RaiSim's Ouster OS1-64 sensor set from the corpus
(raisim2Lib/rsc/anymal/sensors/ouster1-64.xml: 512 yaw samples, 64 pitch samples from -0.122173
to 0.907571 rad, spin rate 10 Hz), built from its ray cast in a closed room on both engines: 64
rings of 512 points, ring 0 lowest, each ring at its declared elevation in the sensor's own frame
(not tilted to the range's centre), times over one revolution at 10 Hz."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('sensor_msgs')

from scene_sim_ros.formats.raisim import load_sensor_set  # noqa: E402
from scene_sim_ros.ros.bridge.adapters.lidar_points import middle_ring  # noqa: E402
from scene_sim_ros.ros.bridge.conversions import to_rep117  # noqa: E402
from scene_sim_ros.scene import Box, Collision, Entity, Inertial, Link, Pose, Scene  # noqa: E402
from scene_sim_ros.sim.sensors.point_clouds import LidarCloud  # noqa: E402
from support.corpus import CORPUS, skip_if_missing  # noqa: E402
from support.engines import engine, make_sim, pytest_generate_tests  # noqa: E402,F401 (fixtures, hook)

OUSTER = CORPUS / 'raisim' / 'raisim2Lib' / 'rsc' / 'anymal' / 'sensors' / 'ouster1-64.xml'
LOW, HIGH, ROWS, COLUMNS, SPIN = -0.122173, 0.907571, 64, 512, 10.0
ELEVATION_TOLERANCE = 1e-5  # rad, float32 coordinates at a few metres


def box(name: str, size, position, sensors=()) -> Entity:
    link = Link(name='base', inertial=Inertial(), collisions=(Collision(Box(size)),))
    return Entity(name=name, kind='robot' if sensors else 'static', links=(link,),
                  sensors=tuple(sensors), pose=Pose(position), fixed_base=True)


def room_with(sensor) -> Scene:
    """Walls 3 m around and a ceiling 2 m above the sensor: every ray of the set returns."""
    walls = [box('w', (0.2, 6.4, 8), (-3.1, 0, 1)), box('e', (0.2, 6.4, 8), (3.1, 0, 1)),
             box('s', (6.4, 0.2, 8), (0, -3.1, 1)), box('n', (6.4, 0.2, 8), (0, 3.1, 1)),
             box('c', (6.4, 6.4, 0.2), (0, 0, 3.1))]
    return Scene(name='room', entities=(box('host', (0.04, 0.04, 0.04), (0, 0, 1), [sensor]),
                                        *walls))


def test_the_ouster_cloud_has_64_rings_at_the_declared_elevations(make_sim):  # noqa: F811
    skip_if_missing(OUSTER)
    lidar = load_sensor_set(OUSTER, link='base').sensors[0]
    assert (lidar.height, lidar.rotating, lidar.frequency) == (ROWS, True, SPIN)
    assert lidar.pose.orientation == pytest.approx((0.0, 0.0, 0.0, 1.0))  # not tilted
    sim = make_sim(room_with(lidar))
    reader = sim.reader('host', lidar.name)
    depth = to_rep117(np.asarray(sim.read('host', lidar.name)), lidar.min_range, lidar.max_range)
    points = LidarCloud(reader).points(depth)
    rings, counts = np.unique(points['ring'], return_counts=True)
    assert rings.tolist() == list(range(ROWS)) and counts.tolist() == [COLUMNS] * ROWS
    elevation = np.arctan2(points['z'], np.hypot(points['x'], points['y']))
    declared = LOW + points['ring'] * (HIGH - LOW) / (ROWS - 1)
    np.testing.assert_allclose(elevation, declared, atol=ELEVATION_TOLERANCE)
    column = np.tile(np.arange(COLUMNS), ROWS)
    np.testing.assert_allclose(points['time'], column / (COLUMNS * SPIN), rtol=1e-6)
    assert middle_ring(ROWS) == 32


def test_a_rotating_lidar_publishes_once_per_revolution_and_lists_its_cloud():
    """One cloud per turn as a Velodyne driver publishes; a fixed head (Webots' VLP-16 PROTOs are
    ``type "fixed"``) and a one-row laser keep ``publish_rates.depth``."""
    from scene_sim_ros.ros.bridge.adapters.depth import DepthAdapter
    from scene_sim_ros.scene.sensors import DepthCamera

    def lidar(height: int, rotating: bool) -> DepthCamera:
        return DepthCamera('l', 'base', 360, height, 6.28, 0.5, 0.1, 10.0, 'spherical',
                           frequency=12.5, rotating=rotating)
    assert DepthAdapter.scene_rate(lidar(16, True)) == 12.5
    assert DepthAdapter.scene_rate(lidar(16, False)) == 0.0
    assert DepthAdapter.scene_rate(lidar(1, True)) == 0.0
    topics = [t.suffix for t in DepthAdapter.group_topics([lidar(16, False)])]
    assert topics == ['image_raw', 'points', 'scan']
