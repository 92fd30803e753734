"""``UserInput`` -> ``<topic>/value`` (``std_msgs/Float64``, transient-local: late subscribers get
the current value) and ``<topic>/set`` in: a value outside ``minimum..maximum`` or not finite is
rejected and counted like a bad joint command. ``Led`` -> ``<topic>/state`` and ``<topic>/set``
(``std_msgs/Int32``, Webots' ``wb_led_set`` value), the same way."""

from __future__ import annotations

import math

from std_msgs.msg import Float64, Int32

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter, Topic


class UserInputAdapter(SensorAdapter):
    kinds = ('user_input',)
    topics = (Topic('value', 'std_msgs/msg/Float64'),
              Topic('set', 'std_msgs/msg/Float64', subscribed=True))
    rate_key = 'user_input'
    default_rate = 10.0

    def setup(self) -> None:
        self.msg = Float64()
        self.publisher = self.create_publisher(Float64, 'value', qos.LATCHED)
        self.subscriptions.append(self.node.create_subscription(
            Float64, f'{self.settings.topic}/set', self._on_set, qos.COMMAND))
        self._last: float | None = None
        self.publish(0.0)   # the default from the start (latched), also on a node started paused

    def _on_set(self, msg: Float64) -> None:
        s = self.sensor
        where = f'{self.settings.topic}/set'
        value = msg.data
        if not math.isfinite(value) or not s.minimum <= value <= s.maximum:
            self.node.reject(where, f'{value} is outside [{s.minimum}, {s.maximum}]')
            return

        def apply() -> None:  # on the physics thread: the reader of the current world
            try:
                self.reader().set(value)
            except ValueError as err:
                self.node.reject(where, str(err))
        self.node.stepper.submit(apply, want_result=False)

    def publish(self, t: float) -> None:
        value = float(self.read())
        if value == self._last and self._period == 0.0:
            return  # every-step rate: publish changes only (the topic is latched)
        self._last = value
        self.msg.data = value
        self.node.publish(self.publisher, self.msg)


class LedAdapter(SensorAdapter):
    kinds = ('led',)
    topics = (Topic('state', 'std_msgs/msg/Int32'),
              Topic('set', 'std_msgs/msg/Int32', subscribed=True))
    rate_key = 'led'
    default_rate = 0.0

    def setup(self) -> None:
        self.msg = Int32()
        self.publisher = self.create_publisher(Int32, 'state', qos.LATCHED)
        self.subscriptions.append(self.node.create_subscription(
            Int32, f'{self.settings.topic}/set', self._on_set, qos.COMMAND))
        self._last: int | None = None
        self.publish(0.0)   # off from the start (latched), also on a node started paused

    def _on_set(self, msg: Int32) -> None:
        where = f'{self.settings.topic}/set'
        value = int(msg.data)

        def apply() -> None:  # on the physics thread: the reader of the current world
            try:
                self.reader().set(value)
            except ValueError as err:
                self.node.reject(where, str(err))
        self.node.stepper.submit(apply, want_result=False)

    def publish(self, t: float) -> None:
        value = int(self.read())
        if value == self._last:
            return  # the topic is latched: publish changes only
        self._last = value
        self.msg.data = value
        self.node.publish(self.publisher, self.msg)
