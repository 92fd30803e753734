"""What every sensor adapter shares: topic, frame and rate defaults, rate limiting, lazy reads.

An adapter bridges one sensor (or one group, e.g. an accelerometer and a gyroscope on one link)
of one entity: ``init(node, entity, sensor, settings)`` creates its publishers, ``step(t)`` runs
after every physics step on the physics thread and publishes when the sensor is due (its own
rate, in sim time) and, for a ``lazy`` adapter, only while someone subscribes: an image nobody
subscribes to is never rendered. The node passes itself as ``node``: adapters use
``node.sim`` (the simulation), ``node.publish(publisher, msg)`` (never raises: DDS errors are
counted) and ``node.frames`` (frame names).

An adapter class also declares what it serves: its sensor kinds, its topics, its rate parameter
with the default and whether its data is in an optical frame (see :class:`SensorAdapter`). A class
that sets ``kinds`` registers itself for them (:data:`REGISTERED`) when its module is imported;
the package's tables (``ADAPTERS``, ``SENSOR_TOPICS``, ``PUBLISH_RATES`` ...) are derived from that.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

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


class Topic(NamedTuple):
    """One topic of an adapter, ``<topic base>/<suffix>``."""

    suffix: str
    """``image_raw``"""
    message_type: str
    """``sensor_msgs/msg/Image``"""
    subscribed: bool = False
    """The node subscribes to it (a value set from outside) instead of publishing it."""


class SensorAdapter:
    """Base class: subclasses declare what they serve (the class attributes below: ``kinds``,
    ``topics``, ``rate_key``, ``default_rate``, ``optical``, ``lazy``) and implement :meth:`setup`
    and :meth:`publish`. Setting ``kinds`` registers the class for those kinds."""

    kinds: ClassVar[tuple[str, ...]] = ()
    """The sensor kinds it bridges (``scene.sensors``' ``kind``)."""
    topics: ClassVar[tuple[Topic, ...]] = ()
    """Its topics, in the order it publishes them (for every kind, unless a variant says else)."""
    topic_variants: ClassVar[Mapping[str, tuple[Topic, ...]]] = {}
    """Topics by key where ``topics`` do not apply: a key :meth:`topic_key` returns for sensors
    whose parameters change their topics (``laser_scan``), or a kind whose topics differ."""
    rate_key: ClassVar[str] = ''
    """The ``publish_rates.<key>`` parameter that sets the default rate."""
    default_rate: ClassVar[float] = 0.0
    """That parameter's default: Hz of sim time, 0 = after every step. Adapters sharing a key
    declare the same default."""
    optical: ClassVar[bool] = False
    """Its data are expressed in the sensor's optical frame (images): ``settings.frame_id`` is it."""
    lazy: ClassVar[bool] = False
    """Read the sensor only while one of :attr:`publishers` has a subscriber."""
    rendered: ClassVar[bool] = False
    """Its reads are rendered images: a due frame is rendered only when the node's frame budget
    admits it (``ros/runtime/frame_budget.py``: dropped, not stalling /clock, when behind)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if 'kinds' in cls.__dict__:
            register(cls)

    @classmethod
    def topic_key(cls, sensor: Any) -> str:
        """The key of :meth:`topic_table` for ``sensor``: its kind, unless its parameters change
        its topics."""
        return str(sensor.kind)

    @classmethod
    def topic_table(cls) -> dict[str, tuple[Topic, ...]]:
        """Topic key -> topics: one key per kind, then the variants."""
        return {**{kind: cls.topics for kind in cls.kinds}, **cls.topic_variants}

    @classmethod
    def scene_rate(cls, sensor: Any) -> float:
        """The rate (Hz) the scene gives this sensor, used instead of ``publish_rates.<key>``
        unless the sensor's own rate is set; 0: none given."""
        return 0.0

    @classmethod
    def group_topics(cls, sensors: Sequence[Any]) -> tuple[Topic, ...]:
        """The topics of one adapter bridging ``sensors`` (usually one; see ``names.sensor_groups``)."""
        return cls.topic_table()[cls.topic_key(sensors[0])]

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
        self._claimed_at: float | None = None  # claim_frame's sim time and decision
        self._claimed = False
        self._render_share = 0.0
        self.setup()
        self._frame_budget, self.frame_slot = self._join_frame_budget()

    def uses_frame_budget(self) -> bool:
        """Whether this adapter's frames go through the frame budget (:attr:`rendered`)."""
        return self.rendered

    def _join_frame_budget(self) -> tuple[Any, Any]:
        """The node's frame budget and this adapter's slot in it (its counts of frames
        published and dropped); (None, None) where it renders no frames."""
        if not self.uses_frame_budget():
            return None, None
        budget = self.node.frame_budget
        return budget, budget.join(self.settings.topic, self.settings.rate, self._tolerance)

    def setup(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def publish(self, t: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def step(self, t: float) -> None:
        if self._claimed_at == t:  # decided before the step loop rendered this step's frames
            self._claimed_at = None
            if self._claimed:
                self._publish(t)
            return
        if t + self._tolerance < self._next_due:  # not due (due()'s first test, inlined:
            return  # most adapters of a scene wait for their next publication most steps)
        if self._takes_frame(t):
            self._publish(t)

    def claim_frame(self, t: float) -> bool:
        """Decide now whether :meth:`step` at sim time ``t`` publishes a frame (due, read: a lazy
        adapter is subscribed, and admitted by the frame budget, which counts it), so that the
        step loop can render the frames of every camera that will publish in one pass first;
        :meth:`step` then follows this decision."""
        if t + self._tolerance < self._next_due:
            return False
        self._claimed_at, self._claimed = t, self._takes_frame(t)
        return self._claimed

    def frame_reader(self) -> Any | None:
        """The reader whose colour image a claimed frame will read (for the step loop's batched
        render), or None."""
        return None

    def charge_render(self, seconds: float) -> None:
        """Wall seconds of a batched render spent on this adapter's claimed frame, added to
        what the frame budget learns it costs."""
        self._render_share = seconds

    def _takes_frame(self, t: float) -> bool:
        """Due (the schedule moves on), read, and admitted by the frame budget (if any)."""
        if not self.due(t):
            return False
        if self.lazy and not self._check_active():
            return False
        slot = self.frame_slot
        if slot is None:
            return True
        slot.next_due = self._next_due if self._period else t + self.node.sim.step_length
        return bool(self._frame_budget.admit(slot, t))

    def _publish(self, t: float) -> None:
        """Publish, telling the frame budget (if any) what the frame cost."""
        slot = self.frame_slot
        if slot is None:
            self.publish(t)
            return
        started = time.perf_counter()
        self.publish(t)
        cost = time.perf_counter() - started + self._render_share
        self._render_share = 0.0
        self._frame_budget.rendered(slot, cost)

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
            if not active and self.frame_slot is not None:
                self._frame_budget.leave(self.frame_slot)
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
        if self.frame_slot is not None:
            self._frame_budget.leave(self.frame_slot)
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


REGISTERED: dict[str, type[SensorAdapter]] = {}
"""Sensor kind -> the adapter class that declared it (``SensorAdapter.kinds``), in import order."""


def register(adapter: type[SensorAdapter]) -> None:
    """Enter ``adapter`` for each of its kinds; a kind served twice, a missing ``rate_key`` or two
    defaults for one rate key are errors (raised when the class is created)."""
    if not adapter.rate_key:
        raise TypeError(f'{_name(adapter)} serves {adapter.kinds} but declares no rate_key')
    for kind in adapter.kinds:
        known = REGISTERED.get(kind)
        if known is not None and _name(known) != _name(adapter):  # the same class again: a re-import
            raise TypeError(f'{_name(adapter)} serves {kind!r}, which {_name(known)} serves already')
    for other in REGISTERED.values():
        if other.rate_key == adapter.rate_key and other.default_rate != adapter.default_rate:
            raise TypeError(f'publish_rates.{adapter.rate_key}: {_name(adapter)} declares '
                            f'{adapter.default_rate} Hz, {_name(other)} {other.default_rate} Hz')
    REGISTERED.update(dict.fromkeys(adapter.kinds, adapter))


def _name(cls: type) -> str:
    return f'{cls.__module__}.{cls.__qualname__}'
