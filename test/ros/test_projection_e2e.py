"""A Webots spherical camera as a ROS consumer sees it, from a separate process: ``image_raw``
(rgb8, the published size) with a dark box straight behind the camera on the fisheye's rim
(``merge_spherical.frag``: |d| fov_x = pi at the inscribed circle), and no ``camera_info`` (no
pinhole model), while a planar camera beside it publishes both."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip('rclpy')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, wait_for_messages, wait_for_topic  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

WORLD = f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 10 }}
Background {{ skyColor [ 1 1 1 ] }}
DirectionalLight {{ direction -1 -0.3 -0.5 intensity 1 }}
Solid {{ translation -2 0 1 children [ Shape {{ appearance Appearance {{ material Material {{
  diffuseColor 0 0 0 }} }} geometry Box {{ size 0.1 1 1 }} }} ] }}
Robot {{ translation 0 0 1 name "eye" children [
  Camera {{ name "cam" width 64 height 64 fieldOfView {2 * math.pi} projection "spherical" }}
  Camera {{ name "flat" width 8 height 6 }} ] }}
"""
MESSAGE_TIMEOUT = 60.0


@pytest.fixture(scope='module')
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp('projection')
    (folder / 'panorama.wbt').write_text(WORLD)
    with scene_sim_run(folder, str(folder / 'panorama.wbt'), '--real-time-factor', '0'):
        yield from client_node('projection_test_client')


def test_a_spherical_camera_publishes_its_image_and_no_camera_info(client):
    from sensor_msgs.msg import CameraInfo, Image
    image = wait_for_messages(client, Image, '/eye/cam/image_raw', timeout=MESSAGE_TIMEOUT)[0]
    assert (image.encoding, image.width, image.height) == ('rgb8', 64, 64)
    pixels = np.frombuffer(bytes(image.data), np.uint8).reshape(64, image.step)[:, :64 * 3]
    grey = pixels.reshape(64, 64, 3).astype(int).mean(axis=-1)
    # behind the camera: the inscribed circle's rim (a box 1 m wide at 2 m spans +-14 degrees
    # around pi, i.e. the outer 2.5 px of the radius); the centre looks at the white sky
    assert grey[32, 0] < 128 and grey[32, 63] < 128 and grey[0, 32] < 128, grey[32]
    assert grey[32, 32] > 200
    wait_for_messages(client, CameraInfo, '/eye/flat/camera_info', timeout=MESSAGE_TIMEOUT)
    wait_for_topic(client, '/eye/flat/camera_info')
    topics = {name for name, _ in client.get_topic_names_and_types()}
    assert '/eye/cam/image_raw' in topics and '/eye/cam/camera_info' not in topics, topics
