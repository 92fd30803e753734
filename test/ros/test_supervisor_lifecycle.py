"""A node started with ``--paused`` reports it and quits cleanly on STATE_QUITTING, called from a
separate process. A node of its own: quitting ends it (test_supervisor.py shares one node)."""

from __future__ import annotations

import textwrap
import time

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

SCENE = """
<Simulation>
  <Scene name="LifecycleTest" stepLength="0.01s">
    <Body name="ball">
      <Translation z="0.5"/>
      <SphereGeometry radius="0.1"/>
      <SphereMass value="1kg" radius="0.1"/>
    </Body>
  </Scene>
</Simulation>"""


@pytest.fixture
def paused_node(tmp_path):
    scene = tmp_path / 'scene.ros2'
    scene.write_text(textwrap.dedent(SCENE))
    with scene_sim_run(tmp_path, str(scene), '--paused') as proc:
        yield proc


@pytest.fixture
def client(paused_node):
    yield from client_node('lifecycle_test_client')


def test_started_paused_then_quitting_shuts_the_node_down_cleanly(paused_node, client):
    from simulation_interfaces.msg import SimulationState
    from simulation_interfaces.srv import GetSimulationState, SetSimulationState
    state = call_service(client, GetSimulationState, '/get_simulation_state',
                         GetSimulationState.Request(), timeout=20.0).state.state
    assert state == SimulationState.STATE_PAUSED
    quit_request = SetSimulationState.Request(
        state=SimulationState(state=SimulationState.STATE_QUITTING))
    result = call_service(client, SetSimulationState, '/set_simulation_state', quit_request,
                          timeout=20.0).result
    assert result.result == 1, result.error_message
    deadline = time.monotonic() + 15.0
    while paused_node.is_running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not paused_node.is_running()
    assert paused_node.returncode == 0
