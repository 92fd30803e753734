"""Webots lens distortion as a ROS consumer sees it, from a separate process (issue 46, Done-when
item 3): a 240x240 camera behind ``Lens { radialCoefficients -0.3 0 }`` faces a 5x5 grid of dark
boxes; the blob centres of the received ``image_raw``, undistorted by ``cv2.undistortPoints``
with the *received* CameraInfo (K, D, P), lie on straight rows and columns. A RangeFinder with
the same lens, size and field of view publishes the same camera model."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('rclpy')
cv2 = pytest.importorskip('cv2', reason='opencv-python-headless is in requirements/dev.txt')

from support.lens_target import blob_centres, lens_world, rows_of, straightness  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, paired, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

LENS = 'radialCoefficients -0.3 0'
STRAIGHT_PX = 0.5
"""Issue 46's Done-when bound on a row's (column's) distance from a line after undistortion."""
BENT_PX = 1.5
"""The raw rows must bend more than this, or the straightness check could not fail."""
MESSAGE_TIMEOUT = 60.0


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    folder = tmp_path_factory.mktemp('lens')
    depth = (f'RangeFinder {{ name "depth" width 240 height 240 fieldOfView 0.7854 maxRange 5 '
             f'lens Lens {{ {LENS} }} }}')
    (folder / 'lens.wbt').write_text(lens_world(240, 240, LENS, others=depth))
    with scene_sim_run(folder, str(folder / 'lens.wbt'), '--real-time-factor', '0') as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('lens_test_client')


def received_image_and_info(client):
    """The first image of ``/eye/cam`` with the camera_info of the same stamp."""
    from sensor_msgs.msg import CameraInfo, Image
    images: list = []
    infos: list = []
    subscriptions = [client.create_subscription(Image, '/eye/cam/image_raw', images.append, 10),
                     client.create_subscription(CameraInfo, '/eye/cam/camera_info',
                                                infos.append, 10)]
    try:
        assert spin_until(client, lambda: bool(paired(images, infos)), MESSAGE_TIMEOUT), (
            len(images), len(infos))
        return paired(images, infos)[0]
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)


def rgb(image) -> np.ndarray:
    assert image.encoding == 'rgb8'
    rows = np.frombuffer(bytes(image.data), np.uint8).reshape(image.height, image.step)
    return rows[:, :image.width * 3].reshape(image.height, image.width, 3)


def model(info) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.array(info.k).reshape(3, 3), np.array(info.d),
            np.array(info.p).reshape(3, 4)[:, :3])


def worst_line(points: np.ndarray) -> tuple[float, float]:
    """The largest distance (px) of a centre from its row's line, and from its column's."""
    grid = points.reshape(5, 5, 2)
    return (max(straightness(row) for row in rows_of(grid.reshape(-1, 2))),
            max(straightness(column) for column in grid.transpose(1, 0, 2)))


def test_received_grid_is_straight_after_undistorting_with_the_received_camera_info(client):
    image, info = received_image_and_info(client)
    assert info.distortion_model == 'plumb_bob'
    assert (info.width, info.height) == (image.width, image.height) == (240, 240)
    k, d, p = model(info)
    assert np.abs(d).max() > 0.05, d
    centres = blob_centres(rgb(image))
    assert len(centres) == 25
    raw_rows, raw_columns = worst_line(centres)
    rectified = cv2.undistortPoints(centres.reshape(-1, 1, 2), k, d, P=p).reshape(-1, 2)
    rows, columns = worst_line(rectified)
    print(f'raw rows/columns off a line by {raw_rows:.3f}/{raw_columns:.3f} px; undistorted '
          f'{rows:.3f}/{columns:.3f} px')
    assert raw_rows > BENT_PX and raw_columns > BENT_PX  # the lens bends: the check can fail
    assert rows < STRAIGHT_PX and columns < STRAIGHT_PX, (rows, columns)


def test_range_finder_with_the_same_lens_publishes_the_cameras_model(client):
    from sensor_msgs.msg import CameraInfo
    (camera,) = wait_for_messages(client, CameraInfo, '/eye/cam/camera_info',
                                  timeout=MESSAGE_TIMEOUT)
    (depth,) = wait_for_messages(client, CameraInfo, '/eye/depth/camera_info',
                                 timeout=MESSAGE_TIMEOUT)
    assert depth.distortion_model == camera.distortion_model == 'plumb_bob'
    assert (depth.width, depth.height) == (camera.width, camera.height)
    for field in ('k', 'd', 'r', 'p'):
        assert np.array_equal(np.array(getattr(depth, field)),
                              np.array(getattr(camera, field))), field
