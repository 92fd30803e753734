"""The live view against Foxglove's own client library, @foxglove/ws-protocol (npm), run with
node in another process as a viewer: Teleop with a ROS 1 style Twist, a service call, the
Parameters capability, fetchAsset refusals (test/ros/nodes/foxglove_js_client.cjs); and a
point cloud decoded with Foxglove's ROS 2 message libraries, @foxglove/rosmsg and
@foxglove/rosmsg2-serialization, as their viewers decode a cdr channel
(test/ros/nodes/foxglove_js_cloud.cjs).

The libraries are not on PyPI: .ci/run installs them with npm where node is present, into
``$SCENE_SIM_ROS_FOXGLOVE_JS`` (default ``~/.cache/scene_sim_ros/foxglove-js``)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.processes import console_script, free_tcp_port

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CLIENT = Path(__file__).parent / 'nodes' / 'foxglove_js_client.cjs'
LIBRARY = Path(os.environ.get('SCENE_SIM_ROS_FOXGLOVE_JS')
               or Path.home() / '.cache' / 'scene_sim_ros' / 'foxglove-js')
REFUSED = ['file:///etc/passwd', 'package://scene_sim_ros/../../etc/passwd']


def _node_and_library(*packages: str) -> str:
    node = shutil.which('node')
    missing = [p for p in ('ws-protocol', *packages)
               if not (LIBRARY / 'node_modules' / '@foxglove' / p).is_dir()]
    if node is None or missing:
        names = ', '.join(f'@foxglove/{p}' for p in missing or ['ws-protocol'])
        pytest.skip(f"Foxglove's JS libraries ({names}) are not installed here: need node and "
                    f'npm (.ci/run installs them into {LIBRARY})')
    return node


def test_foxglove_js_client_teleops_calls_sets_parameters_and_is_refused_assets(
        managed_process, tmp_path):
    node = _node_and_library()
    from geometry_msgs.msg import Twist
    from nav_msgs.msg import Odometry
    from rclpy.serialization import deserialize_message, serialize_message
    from simulation_interfaces.srv import GetSimulationState

    port = free_tcp_port()
    managed_process([console_script('scene-sim-ros'), 'run', '--foxglove', str(port)],
                    name='foxglove-js', ready=r'services: get_simulator_features',
                    ready_timeout=120)
    forward = Twist()
    forward.linear.x = 0.5
    done = subprocess.run([node, str(CLIENT), str(port), serialize_message(forward).hex(),
                           *REFUSED], capture_output=True, text=True, timeout=120,
                          env={**os.environ, 'NODE_PATH': str(LIBRARY / 'node_modules')})
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0 and 'error' not in seen, (seen.get('error'), done.stderr)

    assert {'clientPublish', 'services', 'parameters', 'assets'} <= set(
        seen['serverInfo']['capabilities'])
    first, last = (deserialize_message(bytes.fromhex(h), Odometry).pose.pose.position
                   for h in seen['odom'])
    assert math.hypot(last.x - first.x, last.y - first.y) >= 0.5

    state = deserialize_message(bytes.fromhex(seen['serviceResponse']),
                                GetSimulationState.Response)
    assert state.state.state == state.state.STATE_PLAYING

    every = {p['name']: p.get('value') for p in seen['parameters']['all']}
    assert every['/scene_sim.real_time_factor'] == 1.0 and len(every) >= 20
    assert {p['name']: p['value'] for p in seen['parameters']['rtf']} == {
        '/scene_sim.real_time_factor': 0.5}
    assert {p['name']: p['value'] for p in seen['parameters']['seed']} == {'/scene_sim.seed': 0}
    assert any('/scene_sim.seed not set' in s and 'read-only' in s for s in seen['statuses'])

    for uri in REFUSED:
        assert seen['assets'][uri]['status'] == 1 and seen['assets'][uri]['size'] == 0, uri


CLOUD_CLIENT = Path(__file__).parent / 'nodes' / 'foxglove_js_cloud.cjs'


def test_foxglove_js_client_decodes_the_depth_cloud_and_finds_its_frame(managed_process):
    """The default scene's RGB-D cloud as a viewer's 3D panel gets it over the live view:
    decoded by Foxglove's own CDR reader from the channel's ros2msg schema, the points read
    at their fields' offsets give what rclpy reads from the same bytes, and /tf and /tf_static
    carry the cloud's frame up to the world frame."""
    node = _node_and_library('rosmsg', 'rosmsg2-serialization')
    import numpy as np
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import PointCloud2

    from scene_sim_ros.ros.bridge.point_cloud import read_point_cloud

    port = free_tcp_port()
    managed_process([console_script('scene-sim-ros'), 'run', '--foxglove', str(port)],
                    name='foxglove-js-cloud', ready=r'services: get_simulator_features',
                    ready_timeout=120)
    done = subprocess.run([node, str(CLOUD_CLIENT), str(port), '/rover/depth_camera/points'],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, 'NODE_PATH': str(LIBRARY / 'node_modules')})
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0 and 'error' not in seen, (seen.get('error'), done.stderr)
    cloud = seen['cloud']

    msg = deserialize_message(bytes.fromhex(cloud['hex']), PointCloud2)
    assert (cloud['frame_id'], cloud['stamp']) == (
        msg.header.frame_id, [msg.header.stamp.sec, msg.header.stamp.nanosec])
    assert (cloud['width'], cloud['height']) == (160, 120)  # the depth camera's image
    assert cloud['fields'] == [['x', 0, 7, 1], ['y', 4, 7, 1], ['z', 8, 7, 1], ['rgb', 16, 7, 1]]
    assert (cloud['point_step'], cloud['row_step'], cloud['is_bigendian']) == (32, 32 * 160, False)
    points = read_point_cloud(msg).reshape(-1)
    xyz = np.stack([points['x'], points['y'], points['z']], axis=1).astype(np.float64)
    finite = np.isfinite(xyz).all(axis=1)
    assert 0 < cloud['finite'] == finite.sum() < len(points)  # walls, and sky above them
    assert cloud['sums'] == pytest.approx(xyz[finite].sum(axis=0), rel=1e-9)
    rgb = points['rgb'].view(np.uint32)[finite]  # 0x00RRGGBB in a float32
    colours = [(rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF]
    assert cloud['colours'] == [int(c.sum()) for c in colours] != [0, 0, 0]

    parents = {child: parent for parent, child in seen['frames']}
    frame, chain = cloud['frame_id'], [cloud['frame_id']]
    while frame in parents and len(chain) < 20:
        frame = parents[frame]
        chain.append(frame)
    assert chain[-1] == 'world', chain
