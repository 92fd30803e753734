"""``<sensor>/points`` from another process (issue 46, Done-when 1): an RGB-D rig (a SimRobot
Camera and DepthImageSensor at one pose with one field of view) in a room of boxes at 1-5 m.
The cloud, transformed into the world with TF as a consumer does, lies on the boxes' faces
within 1 mm; it has width x height points, NaN exactly where the image has no return, the
image's stamp and frame; its colours are the colour image's pixel for pixel. TF comes from
``support.tf_history`` (tf2's semantics on plain rclpy) and, where importable, tf2_ros' Buffer."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip('rclpy')
pytest.importorskip('sensor_msgs.msg')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros.ros.bridge.point_cloud import read_point_cloud  # noqa: E402
from scene_sim_ros.scene import Pose  # noqa: E402
from scene_sim_ros.scene.transforms import matrix_from_quat  # noqa: E402
from scene_sim_ros.sim.sensors.point_clouds import unpack_rgb  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, qos, spin_until, stamp  # noqa: E402
from support.tf_history import TfHistory  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

TOLERANCE = 1e-3  # metres: issue 46's criterion for points on flat walls at 1-5 m
WIDTH, HEIGHT = 320, 240
MAX_RANGE = 6.0
RIG = (0.0, 0.0, 1.0)
BOXES = {  # name: (size x y z, centre, yaw in degrees, colour)
    'back': ((0.1, 8.0, 1.5), (5.05, 0.0, 0.75), 0.0, '#ff0000'),  # face at x = 5, up to 1.5 m
    'floor': ((8.0, 8.0, 0.1), (3.0, 0.0, -0.05), 0.0, '#00ff00'),
    'slanted': ((0.1, 2.0, 3.0), (3.0, 1.4, 1.0), 35.0, '#0000ff'),
    'near': ((0.3, 0.3, 0.3), (1.2, -0.3, 0.9), 20.0, '#ffff00'),
}


def room_file(folder) -> str:
    compounds = []
    for name, ((dx, dy, dz), (x, y, z), yaw, _) in BOXES.items():
        box = f'depth="{dx}" width="{dy}" height="{dz}"'
        compounds.append(
            f'<Compound name="{name}"><Translation x="{x}" y="{y}" z="{z}"/>'
            f'<Rotation z="{yaw}degree"/><BoxAppearance {box}><Surface ref="{name}"/>'
            f'</BoxAppearance><BoxGeometry {box}/></Compound>')
    surfaces = ''.join(f'<Surface name="{name}" diffuseColor="{colour}"/>'
                       for name, (_, _, _, colour) in BOXES.items())
    view = f'imageWidth="{WIDTH}" imageHeight="{HEIGHT}" angleX="1" angleY="0.78"'
    path = folder / 'room.ros2'
    path.write_text(
        f'<Simulation>{surfaces}<Scene name="room" stepLength="0.01s" color="#336699">'
        '<DirLight x="0.3" y="0.2" z="1"/>' + ''.join(compounds) +
        # a fixed-base robot: only robots' sensors are bridged (a pan joint about z, held at 0)
        f'<Compound name="rig"><Translation x="{RIG[0]}" y="{RIG[1]}" z="{RIG[2]}"/>'
        '<Hinge name="pan"><Axis z="1"><ServoMotor maxVelocity="1" maxForce="10" p="10"/>'
        '</Axis><Body name="head"><BoxMass value="0.1kg" depth="0.05" width="0.05" height="0.05"/>'
        f'<Camera name="rgb" {view}/>'
        f'<DepthImageSensor name="depth" {view} min="0.1m" max="{MAX_RANGE}m"/>'
        '</Body></Hinge></Compound></Scene></Simulation>')
    return str(path)


def box_distance(world: np.ndarray, name: str) -> np.ndarray:
    """Unsigned distance of (N, 3) world points to the surface of box ``name``."""
    size, centre, yaw, _ = BOXES[name]
    pose = Pose.from_xyz_rpy(centre, (0.0, 0.0, math.radians(yaw)))
    local = (world - np.asarray(centre)) @ np.array(matrix_from_quat(pose.orientation))
    q = np.abs(local) - np.asarray(size) / 2
    return np.abs(np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(q.max(axis=1), 0.0))


@pytest.fixture
def client():
    yield from client_node('depth_points_test_client')


def receive_matching(client):
    """(cloud, depth image, colour image) with one stamp, and the TF view of this process."""
    from sensor_msgs.msg import Image, PointCloud2
    history = TfHistory(client)
    received = {'points': [], 'depth': [], 'rgb': []}
    topics = {'points': (PointCloud2, '/rig/depth/points'), 'depth': (Image, '/rig/depth/image_raw'),
              'rgb': (Image, '/rig/rgb/image_raw')}
    for key, (msg_type, topic) in topics.items():
        client.create_subscription(msg_type, topic, received[key].append, qos(5))

    def matching():
        stamps = [{stamp(m.header) for m in received[key]} for key in received]
        common = set.intersection(*stamps)
        return max(common) if common else None

    assert spin_until(client, lambda: matching() is not None and history.newest, 60.0), \
        {key: len(v) for key, v in received.items()}
    at = matching()
    found = [next(m for m in received[key] if stamp(m.header) == at) for key in received]
    return (*found, history)


def test_the_cloud_lies_on_the_walls_with_one_point_per_pixel_and_the_image_s_colours(tmp_path,
                                                                                     client):
    with scene_sim_run(tmp_path, room_file(tmp_path)) as node:
        node.wait_for_output(r"rig/depth/points: RGB-D, coloured from camera 'rgb'", timeout=30.0)
        cloud, depth_image, colour_image, history = receive_matching(client)
        frame = cloud.header.frame_id
        assert spin_until(client, lambda: history.can_transform('world', frame), 30.0)
        to_world = history.matrix('world', frame)
    check_cloud(cloud, depth_image, colour_image, to_world)


def test_tf2_ros_buffer_puts_the_cloud_on_the_walls(tmp_path, client):
    """The same with the consumer's own lookup: tf2_ros' Buffer and TransformListener."""
    tf2_ros = pytest.importorskip('tf2_ros', reason='tf2_ros is not on PyPI: runs on a ROS 2 '
                                                    'distribution or a tools environment')
    from rclpy.time import Time
    buffer = tf2_ros.Buffer()
    listener = tf2_ros.TransformListener(buffer, client, spin_thread=False)
    with scene_sim_run(tmp_path, room_file(tmp_path)):
        cloud, depth_image, colour_image, _ = receive_matching(client)
        frame = cloud.header.frame_id
        assert spin_until(client, lambda: buffer.can_transform('world', frame, Time()), 30.0)
        t = buffer.lookup_transform('world', frame, Time()).transform
    del listener
    to_world = np.eye(4)
    to_world[:3, :3] = matrix_from_quat((t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w))
    to_world[:3, 3] = (t.translation.x, t.translation.y, t.translation.z)
    check_cloud(cloud, depth_image, colour_image, to_world)


def check_cloud(cloud, depth_image, colour_image, to_world: np.ndarray) -> None:
    assert (cloud.width, cloud.height) == (WIDTH, HEIGHT) and not cloud.is_dense
    assert cloud.header.frame_id == depth_image.header.frame_id == 'rig/depth_optical_frame'
    assert cloud.point_step == 32 and [f.name for f in cloud.fields] == ['x', 'y', 'z', 'rgb']
    points = read_point_cloud(cloud)
    assert points.size == WIDTH * HEIGHT
    depth = np.frombuffer(bytes(depth_image.data), np.float32).reshape(HEIGHT, WIDTH)
    no_return = ~np.isfinite(depth)
    xyz = np.stack([points['x'], points['y'], points['z']], axis=-1)
    assert (np.isnan(xyz).all(axis=-1) == no_return).all()  # NaN exactly where the image is ±inf
    assert 0 < no_return.sum() < no_return.size  # the sky above the back wall
    assert (points['z'][~no_return] == depth[~no_return]).all()
    world = xyz[~no_return].astype(np.float64) @ to_world[:3, :3].T + to_world[:3, 3]
    distances = np.stack([box_distance(world, name) for name in BOXES], axis=1)
    error, box = distances.min(axis=1), distances.argmin(axis=1)
    counts = {name: int((box == i).sum()) for i, name in enumerate(BOXES)}
    print(f'{points.size} points, {int(no_return.sum())} without a return, max distance to the '
          f'walls {error.max() * 1e3:.4f} mm at depths {depth[~no_return].min():.2f}-'
          f'{depth[~no_return].max():.2f} m; points per box {counts}')
    assert all(count > 1000 for count in counts.values()), counts
    assert error.max() < TOLERANCE
    colour = np.frombuffer(bytes(colour_image.data), np.uint8).reshape(HEIGHT, WIDTH, 3)
    assert (unpack_rgb(points['rgb']) == colour).all()
