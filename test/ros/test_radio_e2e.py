"""Emitter -> Receiver on ROS, from a separate process: a packet published on
``sender/radio/send`` comes out of ``listener/radio/receive`` after exactly one step
(``step_simulation`` of 1 on a paused node), and not before; the quadcopter-free half of issue
43's last Done-when item. Who hears what is tested in test/sim/sensors/test_radio.py."""

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
Robot { name "listener" translation 3 0 0.1 children [ Receiver { name "radio" channel 3 } ] }
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
