"""Robots over PyBullet's per-body limits (built in parts, see scene_sim_ros.sim.engines.pybullet.builder) on
ROS: ``scene-sim-ros run`` on a generated 200-link URDF and a 150-link humanoid publishes
every joint on joint_states and every link frame on /tf, chaining to the simulated poses."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

from scene_sim_ros.scene import Pose  # noqa: E402
from support.large_robots import humanoid_urdf, serial_urdf  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]
TIMEOUT = 30.0


@pytest.fixture(scope='module')
def client():
    yield from client_node('large_robot_tf_test_client')


def collect_tf(client, frames: set[str]) -> dict[str, tuple[str, Pose]]:
    """child -> (parent, transform) from /tf and /tf_static until every frame in ``frames``
    was seen."""
    from tf2_msgs.msg import TFMessage

    from support.ros import qos
    seen: dict[str, tuple[str, Pose]] = {}

    def take(msg):
        for t in msg.transforms:
            r, q = t.transform.translation, t.transform.rotation
            seen[t.child_frame_id] = (t.header.frame_id,
                                      Pose((r.x, r.y, r.z), (q.x, q.y, q.z, q.w)))
    subscriptions = [client.create_subscription(TFMessage, '/tf', take, 100),
                     client.create_subscription(TFMessage, '/tf_static', take,
                                                qos(100, latched=True))]
    try:
        assert spin_until(client, lambda: frames <= seen.keys(), TIMEOUT), \
            f'missing frames: {sorted(frames - seen.keys())[:10]}'
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)
    return seen


def chained(tree: dict[str, tuple[str, Pose]], frame: str) -> Pose:
    pose = Pose()
    while frame in tree:
        parent, transform = tree[frame]
        pose = transform * pose
        frame = parent
    assert frame == 'world'
    return pose


def run_and_collect(tmp_path: Path, client, name: str, text: str, robot: str,
                    links: list[str]) -> dict[str, tuple[str, Pose]]:
    path = tmp_path / f'{name}.urdf'
    path.write_text(f'<?xml version="1.0"?>\n{text}\n')
    with scene_sim_run(tmp_path, str(path), '--real-time-factor', '0'):
        return collect_tf(client, {f'{robot}/{link}' for link in links})


def test_a_200_link_serial_robot_publishes_every_link_frame(tmp_path, client):
    links = ['base'] + [f'l{i}' for i in range(200)]
    tree = run_and_collect(tmp_path, client, 'snake', serial_urdf(200), 'snake', links)
    # the chain hangs straight down 5 cm per link below the base (its joints hold 0)
    tip = chained(tree, 'snake/l199')
    base = chained(tree, 'snake/base')
    assert math.dist(tip.position, base.position) == pytest.approx(200 * 0.05, abs=0.01)


def test_a_150_link_humanoid_publishes_every_link_frame(tmp_path, client):
    text = humanoid_urdf(150)
    links = [line.split('"')[1] for line in text.splitlines() if line.startswith('<link name=')]
    assert len(links) == 150
    tree = run_and_collect(tmp_path, client, 'humanoid', text, 'humanoid', links)
    pelvis, skin = chained(tree, 'humanoid/pelvis'), chained(tree, 'humanoid/skin149')
    assert math.dist(pelvis.position, skin.position) < 1.0  # the skin chain sits on the torso
