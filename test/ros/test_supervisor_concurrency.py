"""The supervisor never locks the node: while a huge step_simulation runs, the other services,
/clock and parameter requests answer; setting the simulation state ends the stepping; requests
over the step bound are refused. Called from a separate process, as a user's tool does."""

from __future__ import annotations

import time

import pytest

from support.processes import scene_sim_run
from support.ros import call_service, client_node, spin_until, wait_for_messages

pytest.importorskip('simulation_interfaces.srv')

pytestmark = [pytest.mark.ros]


@pytest.fixture(scope='module')
def client(tmp_path_factory):
    with scene_sim_run(tmp_path_factory.mktemp('concurrency'), '--paused'):
        yield from client_node('supervisor_concurrency_client')


def test_a_billion_steps_leave_the_node_responsive_and_a_pause_ends_them(client):
    from rosgraph_msgs.msg import Clock
    from simulation_interfaces.msg import Result, SimulationState
    from simulation_interfaces.srv import GetSimulationState, SetSimulationState, StepSimulation

    stepper = client.create_client(StepSimulation, '/step_simulation')
    assert spin_until(client, stepper.service_is_ready, 20.0)
    stepping = stepper.call_async(StepSimulation.Request(steps=10**9))
    clocks = wait_for_messages(client, Clock, '/clock', count=20, timeout=20.0)
    assert clocks[-1].clock.sec + clocks[-1].clock.nanosec * 1e-9 > 0.0  # it is stepping

    # answered while the billion steps run (an answer only after them would never come)
    state = call_service(client, GetSimulationState, '/get_simulation_state', timeout=30.0)
    assert state.state.state == SimulationState.STATE_PAUSED
    assert not stepping.done()

    paused = call_service(client, SetSimulationState, '/set_simulation_state',
                          SetSimulationState.Request(
                              state=SimulationState(state=SimulationState.STATE_PAUSED)))
    assert paused.result.result == Result.RESULT_OK, paused.result.error_message
    assert spin_until(client, stepping.done, 10.0)
    outcome = stepping.result().result
    assert outcome.result == Result.RESULT_OPERATION_FAILED
    assert 'interrupted' in outcome.error_message
    client.destroy_client(stepper)

    # the clock stands still again
    before = wait_for_messages(client, Clock, '/clock', count=1, timeout=5.0)[0].clock
    time.sleep(0.5)
    after = wait_for_messages(client, Clock, '/clock', count=1, timeout=5.0)[0].clock
    assert (after.sec, after.nanosec) == (before.sec, before.nanosec)


def test_steps_over_the_bound_are_refused_naming_it(client):
    from simulation_interfaces.msg import Result
    from simulation_interfaces.srv import StepSimulation
    response = call_service(client, StepSimulation, '/step_simulation',
                            StepSimulation.Request(steps=2**63 - 1), timeout=10.0)
    assert response.result.result == Result.RESULT_OPERATION_FAILED
    assert 'max_steps_per_call' in response.result.error_message
