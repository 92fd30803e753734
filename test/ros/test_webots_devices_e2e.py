"""Webots devices on ROS, from a separate process. Emitter -> Receiver: a packet published on
``sender/radio/send`` comes out of ``listener/radio/receive`` after exactly one step
(``step_simulation`` of 1 on a paused node), and not before (who hears what:
test/sim/sensors/test_radio.py). LED: ``listener/led/set`` switches it, ``state`` says so, a value
that is no colour of the LED is rejected and counted."""

from __future__ import annotations

import time

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

WORLD = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 10 }
Robot { name "sender" translation 0 0 0.1 children [ Emitter { name "radio" channel 3 } ] }
Robot { name "listener" translation 3 0 0.1 children [ Receiver { name "radio" channel 3 }
  LED { name "led" color [ 1 0 0, 0 1 0, 0 0 1 ] } ] }
"""


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    folder = tmp_path_factory.mktemp('radio')
    (folder / 'radio.wbt').write_text(WORLD)
    with scene_sim_run(folder, str(folder / 'radio.wbt'), '--paused',
                       '--real-time-factor', '0') as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('radio_test_client')


def test_a_packet_sent_is_received_after_one_step(client):
    from simulation_interfaces.srv import StepSimulation
    from std_msgs.msg import String
    received: list[str] = []
    subscription = client.create_subscription(String, '/listener/radio/receive',
                                              lambda m: received.append(m.data), 10)
    publisher = client.create_publisher(String, '/sender/radio/send', 10)
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() == 1
                          and subscription.get_publisher_count() == 1, 20.0)
        publisher.publish(String(data='hello listener'))
        deadline = time.monotonic() + 1.0   # the node takes it in; paused: nothing delivered
        spin_until(client, lambda: time.monotonic() > deadline, 2.0)
        assert received == []
        response = call_service(client, StepSimulation, '/step_simulation',
                                StepSimulation.Request(steps=1), timeout=20.0)
        assert response.result.result == 1, response.result.error_message
        assert spin_until(client, lambda: received == ['hello listener'], 10.0), received
    finally:
        client.destroy_subscription(subscription)
        client.destroy_publisher(publisher)


def test_an_led_is_switched_and_says_its_state_and_refuses_other_values(client):
    from simulation_interfaces.srv import StepSimulation
    from std_msgs.msg import Int32, UInt64

    from support.ros import qos
    states: list[int] = []
    rejected: list[int] = []
    state = client.create_subscription(Int32, '/listener/led/state',
                                       lambda m: states.append(m.data), qos(latched=True))
    counter = client.create_subscription(UInt64, '/scene_sim/rejected_commands',
                                         lambda m: rejected.append(m.data), qos(latched=True))
    publisher = client.create_publisher(Int32, '/listener/led/set', 10)
    try:
        assert spin_until(client, lambda: states == [0] and rejected
                          and publisher.get_subscription_count() == 1, 20.0), states
        before = rejected[-1]

        def step():
            deadline = time.monotonic() + 0.5
            spin_until(client, lambda: time.monotonic() > deadline, 1.0)
            call_service(client, StepSimulation, '/step_simulation',
                         StepSimulation.Request(steps=1), timeout=20.0)
        publisher.publish(Int32(data=2))   # the second colour (green)
        step()
        assert spin_until(client, lambda: states[-1:] == [2], 10.0), states
        publisher.publish(Int32(data=9))   # no ninth colour: refused, the LED stays green
        step()
        assert spin_until(client, lambda: rejected[-1] == before + 1, 10.0), rejected
        assert states[-1] == 2
    finally:
        for entity in (state, counter):
            client.destroy_subscription(entity)
        client.destroy_publisher(publisher)
