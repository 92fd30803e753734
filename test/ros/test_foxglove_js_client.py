"""The live view against Foxglove's own client library, @foxglove/ws-protocol (npm), run with
node in another process as a viewer: Teleop with a ROS 1 style Twist, a service call, the
Parameters capability, fetchAsset refusals (test/ros/nodes/foxglove_js_client.cjs).

The library is not on PyPI: .ci/run installs it with npm where node is present, into
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


def _node_and_library() -> str:
    node = shutil.which('node')
    if node is None or not (LIBRARY / 'node_modules' / '@foxglove' / 'ws-protocol').is_dir():
        pytest.skip(f"Foxglove's JS client (@foxglove/ws-protocol) is not installed here: needs "
                    f'node and npm (.ci/run installs it into {LIBRARY})')
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
