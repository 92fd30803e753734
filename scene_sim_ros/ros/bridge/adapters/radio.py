"""Emitters and receivers on ROS: ``Emitter`` -> ``<topic>/send`` (in, ``std_msgs/String``: each
message is one packet, sent at the next step boundary) and ``Receiver`` -> ``<topic>/receive``
(``std_msgs/String``, reliable: one message per packet, published after the step that delivered
it, i.e. one step after it was sent; who hears what: :mod:`scene_sim_ros.sim.sensors.radio`)."""

from __future__ import annotations

from std_msgs.msg import String

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic


class EmitterAdapter(SensorAdapter):
    kinds = ('emitter',)
    topics = (Topic('send', 'std_msgs/msg/String', subscribed=True),)
    rate_key = 'radio'
    default_rate = 0.0

    def setup(self) -> None:
        self.subscriptions.append(self.node.create_subscription(
            String, f'{self.settings.topic}/send', self._on_send, qos.SENSOR))

    def _on_send(self, msg: String) -> None:
        text = msg.data

        def send() -> None:  # on the physics thread: the reader of the current world
            self.reader().send(text)
        self.node.stepper.submit(send, want_result=False)

    def publish(self, t: float) -> None:
        """An emitter publishes nothing."""


class ReceiverAdapter(SensorAdapter):
    kinds = ('receiver',)
    topics = (Topic('receive', 'std_msgs/msg/String'),)
    rate_key = 'radio'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = String()
        self.publisher = self.create_publisher(String, 'receive', qos.SENSOR)

    def publish(self, t: float) -> None:
        for packet in self.read():
            self.msg.data = packet
            self.node.publish(self.publisher, self.msg)
