"""A Webots world whose PROTOs, meshes and textures are remote, end to end without the internet:
``scene-sim-ros fetch`` fills a cache from a PROTO tree served on localhost, the server stops,
and ``scene-sim-ros run --offline`` simulates the world from that cache; a separate ROS process
checks that every device of both robots publishes (the wheel joint of the nested relative
PROTO, the lidar of the PROTO nested by URL)."""

from __future__ import annotations

import pytest

pytest.importorskip('rclpy')

from scene_sim_ros.cli.main import main as cli  # noqa: E402
from support.formats_e2e import assert_every_device_topic_publishes, launch  # noqa: E402
from support.ros import client_node  # noqa: E402
from support.webots_tree import serve_rover_tree, write_rover_world  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]


@pytest.fixture(scope='module')
def client():
    yield from client_node('webots_remote_e2e_client')


@pytest.fixture(scope='module')
def cached_world(tmp_path_factory):
    """The world, with everything it names fetched into a cache and the server stopped."""
    root = tmp_path_factory.mktemp('remote')
    server = serve_rover_tree(root / 'srv')
    try:
        world = write_rover_world(root / 'project', server.url)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv('SCENE_SIM_ROS_CACHE_DIR', str(root / 'cache'))
            assert cli(['fetch', str(world)]) == 0
            asked = len(server.requests)
            server.stop()
            yield world, asked
    finally:
        server.stop()


def test_world_from_the_cache_runs_offline_and_every_device_publishes(
        cached_world, client, tmp_path_factory):
    world, asked = cached_world
    with launch(tmp_path_factory, world, '--offline', '--real-time-factor', '0'):
        received = assert_every_device_topic_publishes(client, world)
    assert {'/r1/scanner/scan', '/r2/scanner/scan', '/r1/joint_states'} <= received.keys()
    assert any('wheel motor' in msg.name for msg in received['/r1/joint_states'])
    assert asked == 6  # each remote file asked for once (by fetch); the node ran without a server
