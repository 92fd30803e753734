"""What every sensor adapter shares: topic, frame and rate defaults, rate limiting, lazy reads.

An adapter bridges one sensor (or one group, e.g. an accelerometer and a gyroscope on one link)
of one entity: ``init(node, entity, sensor, settings)`` creates its publishers, ``step(t)`` runs
after every physics step on the physics thread and publishes when the sensor is due (its own
rate, in sim time) and, for a ``lazy`` adapter, only while someone subscribes: an image nobody
subscribes to is never rendered. The node passes itself as ``node``: adapters use
``node.sim`` (the simulation), ``node.publish(publisher, msg)`` (never raises: DDS errors are
counted) and ``node.frames`` (frame names).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from rclpy.publisher import Publisher

from scene_sim_ros.ros.bridge.conversions import set_stamp
from scene_sim_ros.scene import Entity

ACTIVITY_CHECK_PERIOD = 0.1
"""Wall seconds a lazy adapter trusts its last look at its subscriber count: asking DDS costs
microseconds, and each of a team's 28 cameras nobody watches is due 30 times a simulated second."""


@dataclass(frozen=True)
class AdapterSettings:
    """Resolved parameters of one adapter."""

    topic: str
    """Relative topic base (``robot1/CameraTop``); publishers append ``image_raw`` etc."""
    rate: float
    """Hz in sim time; 0 publishes after every step."""
    frame_id: str
    """The frame of the data (the optical frame for images, else the sensor frame)."""
    sensor_frame: str
    """The body-aligned sensor frame (x forward)."""


class SensorAdapter:
    """Base class: subclasses set ``rate_key``, implement :meth:`setup` and :meth:`publish`."""

    rate_key: ClassVar[str] = ''
    """The ``publish_rates.<key>`` parameter that sets the default rate."""
    lazy: ClassVar[bool] = False
    """Read the sensor only while one of :attr:`publishers` has a subscriber."""

    def init(self, node: Any, entity: Entity, sensor: Any, settings: AdapterSettings) -> None:
        self.node = node
        self.entity = entity
        self.sensor = sensor
        self.settings = settings
        self.publishers: list[Publisher[Any]] = []
        self.subscriptions: list[Any] = []
        self._period = 1.0 / settings.rate if settings.rate > 0.0 else 0.0
        self._next_due = 0.0
        self._active = False  # a lazy adapter reads only while subscribed
        self._activity_checked = -math.inf  # time.monotonic() of the last look
        # half a step of tolerance, so a 50 Hz sensor on 10 ms steps fires every second step
        self._tolerance = 0.5 * node.sim.step_length
        self.setup()

    def setup(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def publish(self, t: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def step(self, t: float) -> None:
        if t + self._tolerance < self._next_due:  # not due (due()'s first test, inlined:
            return  # most adapters of a scene wait for their next publication most steps)
        if not self.due(t):
            return
        if self.lazy and not self._check_active():
            return
        self.publish(t)

    def _check_active(self) -> bool:
        now = time.monotonic()
        if now < self._activity_checked + ACTIVITY_CHECK_PERIOD:
            return self._active
        self._activity_checked = now
        active = self.has_subscribers()
        if active != self._active:
            self._active = active
            rate = f'{self.settings.rate:g} Hz' if self.settings.rate > 0 else 'every step'
            self.node.get_logger().info(
                f'{self.settings.topic}: subscribed, reading at {rate}' if active
                else f'{self.settings.topic}: no subscribers, stopped reading')
        return active

    def due(self, t: float) -> bool:
        if self._period == 0.0:
            return True
        if t + self._tolerance < self._next_due:
            return False
        self._next_due += self._period
        if self._next_due <= t:  # after a pause or a reset: restart the schedule from now
            self._next_due = t + self._period
        return True

    def has_subscribers(self) -> bool:
        return any(p.get_subscription_count() > 0 for p in self.publishers)

    def create_publisher(self, msg_type: Any, suffix: str, qos: Any) -> Publisher[Any]:
        publisher = self.node.create_publisher(msg_type, f'{self.settings.topic}/{suffix}', qos)
        self.publishers.append(publisher)
        return publisher

    def reader(self) -> Any:
        return self.node.sim_reader(self.entity.name, self.sensor.name)

    def read(self) -> Any:
        return self.node.sim.read(self.entity.name, self.sensor.name)

    def stamp(self, header: Any, t: float) -> None:
        set_stamp(header.stamp, t)

    def destroy(self) -> None:
        release_endpoints(self.node, self.publishers, self.subscriptions)


def release_endpoints(node: Any, publishers: list[Any], subscriptions: list[Any]) -> None:
    """Destroy ``publishers`` and ``subscriptions`` of ``node`` and empty both lists (an
    adapter, an entity bridge or a mobile base going away)."""
    for publisher in publishers:
        node.destroy_publisher(publisher)
    for subscription in subscriptions:
        node.destroy_subscription(subscription)
    publishers.clear()
    subscriptions.clear()
