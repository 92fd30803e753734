"""A 16-layer Webots lidar PROTO on ROS, from a separate process (issue 46, Done-when 2).

The PROTO declares the numbers of Webots' VLP-16 (cyberbotics/webots
projects/devices/velodyne/protos/VelodyneVLP-16.proto is VelodynePuck.proto's version "Puck":
horizontalResolution 3600, fieldOfView 6.28318, verticalFieldOfView 0.5236, numberOfLayers 16,
minRange 1, maxRange 100, type "fixed", noise 0.003 (relative to maxRange: 0.3 m), frequencies 5
/ 5 / 20). It stands in a closed room, so every ray returns: ``<lidar>/points`` has 16 rings of
3600 points, each ring at Webots' elevation, each range the closed-form distance to a wall plus
the declared noise; ``scan`` is ring 8's ranges.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip('rclpy')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until, stamp  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

LAYERS, COLUMNS, VFOV, FOV = 16, 3600, 0.5236, 6.28318
NOISE = 0.003 * 100.0  # m: Webots' noise is a fraction of maxRange (docs/reference/lidar.md)
ROOM = {'x': (-3.0, 4.0), 'y': (-3.5, 3.0)}  # inner wall faces around the lidar (m)
ELEVATION_TOLERANCE = 1e-5  # rad: float32 coordinates at 3-6 m
MESSAGE_TIMEOUT = 60.0

PROTO = f"""#VRML_SIM R2023b utf8
PROTO TestVLP16 [
  field SFVec3f translation 0 0 0
  field SFString name "velodyne"
]
{{
  Lidar {{
    translation IS translation
    name IS name
    horizontalResolution {COLUMNS}
    fieldOfView {FOV}
    verticalFieldOfView {VFOV}
    numberOfLayers {LAYERS}
    minRange 1
    maxRange 100
    type "fixed"
    noise 0.003
    defaultFrequency 5
    minFrequency 5
    maxFrequency 20
  }}
}}
"""


def wall(name: str, centre: tuple[float, float], size: tuple[float, float]) -> str:
    x, y = centre
    sx, sy = size
    return (f'Solid {{ name "{name}" translation {x} {y} 1 children [ Shape {{ geometry Box '
            f'{{ size {sx} {sy} 8 }} }} ] boundingObject Box {{ size {sx} {sy} 8 }} }}\n')


def world() -> str:
    (x0, x1), (y0, y1) = ROOM['x'], ROOM['y']
    cx, cy, sx, sy = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0 + 1, y1 - y0 + 1
    return ('#VRML_SIM R2023b utf8\nEXTERNPROTO "TestVLP16.proto"\n'
            'WorldInfo { basicTimeStep 10 }\n'
            'Robot { name "car" translation 0 0 1 children [ TestVLP16 { } ] }\n'
            + wall('west', (x0 - 0.25, cy), (0.5, sy)) + wall('east', (x1 + 0.25, cy), (0.5, sy))
            + wall('south', (cx, y0 - 0.25), (sx, 0.5)) + wall('north', (cx, y1 + 0.25), (sx, 0.5)))


def distance_to_room(directions: np.ndarray) -> np.ndarray:
    """Closed form: along each unit ray from the lidar, the nearest wall plane ahead."""
    best = np.full(len(directions), np.inf)
    for axis, (low, high) in enumerate((ROOM['x'], ROOM['y'])):
        d = directions[:, axis]
        with np.errstate(divide='ignore'):
            best = np.minimum(best, np.where(d > 0, high / d, np.where(d < 0, low / d, np.inf)))
    return best


@pytest.fixture(scope='module')
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp('lidar3d')
    (folder / 'TestVLP16.proto').write_text(PROTO)
    (folder / 'room.wbt').write_text(world())
    with scene_sim_run(folder, str(folder / 'room.wbt'), '--real-time-factor', '0'):
        yield from client_node('lidar3d_test_client')


@pytest.fixture(scope='module')
def cloud_and_scan(client):
    """A cloud and a scan of the same step, both subscribed at once."""
    from sensor_msgs.msg import LaserScan, PointCloud2
    clouds: list[PointCloud2] = []
    scans: list[LaserScan] = []
    subs = [client.create_subscription(PointCloud2, '/car/velodyne/points', clouds.append, 10),
            client.create_subscription(LaserScan, '/car/velodyne/scan', scans.append, 10)]
    def paired() -> bool:
        return bool({stamp(c.header) for c in clouds} & {stamp(s.header) for s in scans})
    try:
        assert spin_until(client, paired, MESSAGE_TIMEOUT), (len(clouds), len(scans))
    finally:
        for sub in subs:
            client.destroy_subscription(sub)
    by_stamp = {stamp(s.header): s for s in scans}
    cloud = next(c for c in clouds if stamp(c.header) in by_stamp)
    return cloud, by_stamp[stamp(cloud.header)]


def test_the_cloud_has_the_velodyne_xyzirt_layout_in_the_sensor_frame(cloud_and_scan):
    from sensor_msgs.msg import PointField
    cloud, _ = cloud_and_scan
    layout = [(f.name, f.offset, f.datatype) for f in cloud.fields]
    assert layout == [('x', 0, PointField.FLOAT32), ('y', 4, PointField.FLOAT32),
                      ('z', 8, PointField.FLOAT32), ('intensity', 12, PointField.FLOAT32),
                      ('ring', 16, PointField.UINT16), ('time', 18, PointField.FLOAT32)]
    assert cloud.point_step == 22 and cloud.height == 1 and cloud.is_dense
    assert cloud.header.frame_id.endswith('velodyne')


def test_16_rings_at_the_declared_elevations_with_every_ray_returned(cloud_and_scan):
    from scene_sim_ros.ros.bridge.point_cloud import read_point_cloud
    points = read_point_cloud(cloud_and_scan[0])[0]
    assert np.isfinite(points['x']).all()
    rings, counts = np.unique(points['ring'], return_counts=True)
    assert rings.tolist() == list(range(LAYERS))
    assert counts.tolist() == [COLUMNS] * LAYERS
    elevation = np.arctan2(points['z'], np.hypot(points['x'], points['y']))
    declared = -VFOV / 2 + points['ring'] * VFOV / (LAYERS - 1)  # ring 0 lowest (Velodyne)
    np.testing.assert_allclose(elevation, declared, atol=ELEVATION_TOLERANCE)
    assert (points['time'] == 0.0).all()  # a fixed head measures every column at once


def test_ranges_are_the_walls_distances_within_the_declared_noise(cloud_and_scan):
    from scene_sim_ros.ros.bridge.point_cloud import read_point_cloud
    points = read_point_cloud(cloud_and_scan[0])[0]
    xyz = np.stack([points['x'], points['y'], points['z']], axis=1).astype(np.float64)
    ranges = np.linalg.norm(xyz, axis=1)
    error = ranges - distance_to_room(xyz / ranges[:, None])
    for ring in range(LAYERS):  # per ring: mean within 4 standard errors, spread within 10 %
        ring_error = error[points['ring'] == ring]
        assert abs(ring_error.mean()) < 4 * NOISE / math.sqrt(COLUMNS), ring
        assert ring_error.std() == pytest.approx(NOISE, rel=0.1), ring
    assert np.abs(error).max() < 6 * NOISE


def test_the_scan_is_the_middle_ring(cloud_and_scan):
    from scene_sim_ros.ros.bridge.point_cloud import read_point_cloud
    cloud, scan = cloud_and_scan
    points = read_point_cloud(cloud)[0]
    ring = points[points['ring'] == LAYERS // 2]
    ranges = np.linalg.norm(np.stack([ring['x'], ring['y'], ring['z']], axis=1), axis=1)
    assert len(scan.ranges) == COLUMNS
    np.testing.assert_allclose(np.asarray(scan.ranges)[::-1], ranges, rtol=1e-5)
    azimuth = np.arctan2(ring['y'], ring['x'])[::-1]  # the scan runs counter-clockwise
    angles = scan.angle_min + np.arange(COLUMNS) * scan.angle_increment
    np.testing.assert_allclose(np.angle(np.exp(1j * (azimuth - angles))), 0.0, atol=1e-5)
