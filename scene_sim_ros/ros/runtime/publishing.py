"""Publishing that never raises, and the node's two counters (``~/publish_errors``,
``~/rejected_commands``: ``std_msgs/UInt64``, transient-local) with throttled warnings.

Publishing runs on the physics thread: a DDS error must not stop the simulation, so it is
counted and warned about (at most every :data:`WARNING_PERIOD` per topic); errors while the
context shuts down are no errors. Rejected commands (executor thread) are counted the same way.

What a step publishes can be handed to DDS while the next step runs: between :meth:`hold` and
:meth:`send` the physics thread's messages are collected, and :class:`Outbox` publishes them on
its own thread, while PyBullet steps without the GIL (:meth:`open_window`). Serialized messages
are written without the GIL (:mod:`.native_publish`).
:meth:`publish_built` goes further: the physics thread reads the simulation, and
the outbox thread builds the message from what was read (filling and serializing a template).
That only pays where PyBullet steps without the GIL (``sim.release_gil``); otherwise the two
threads would just take turns. At most one step's messages are in flight: :meth:`hold` and
:meth:`settle` publish what is left of the previous ones first.
"""

from __future__ import annotations

import collections
import math
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from rclpy.node import Node
from std_msgs.msg import UInt64

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.runtime.frame_lane import FrameLane
from scene_sim_ros.ros.runtime.native_publish import publish_serialized

WARNING_PERIOD = 2.0
"""Wall seconds between two warnings about one topic (rejected commands, failed publishing)."""

WINDOW_SHARE = 0.8
"""The share of a GIL-free PyBullet step the outbox may publish in: it hands the GIL back
before the physics thread wants it."""


class Publishing:
    def __init__(self, node: Node):
        self._node = node
        self.rejected_commands = 0
        self.publish_errors = 0
        self._lock = threading.Lock()
        self._last_warning: dict[str, float] = {}
        self._rejected = node.create_publisher(UInt64, '~/rejected_commands', qos.LATCHED)
        self._errors = node.create_publisher(UInt64, '~/publish_errors', qos.LATCHED)
        _publish_counter(self._rejected, 0)
        _publish_counter(self._errors, 0)
        self._outbox: Outbox | None = None
        self._frames: FrameLane | None = None
        self._held: list[tuple[Any, Any]] | None = None
        self._holder = 0  # the thread whose messages are held

    def publish(self, publisher: Any, msg: Any) -> None:
        """Publish, never raise: DDS errors are counted; errors while the context shuts down
        are not errors. Between :meth:`hold` and :meth:`send`, the holding thread's messages
        are collected instead."""
        held = self._held
        if held is not None and threading.get_ident() == self._holder:
            held.append((publisher, msg))
            return
        self._publish_now(publisher, msg)

    def publish_frame(self, publisher: Any, build: Callable[..., Any], *args: Any) -> None:
        """Publish the camera frame ``build(*args)`` builds (reading it back, serializing it)
        on the frame lane's thread (:mod:`.frame_lane`), in order with the other frames, while
        the physics thread goes on; ``build`` may use only ``args`` and objects only it
        writes."""
        if self._frames is None:
            self._frames = FrameLane(self._publish_now)
        self._frames.post(publisher, _Build(build, args))

    def finish(self) -> None:
        """:meth:`settle`, and wait for the frame lane too: everything published so far is
        out."""
        self.settle()
        self.drain_frames()

    def drain_frames(self) -> None:
        """Wait until the frame lane has published every frame posted so far (before the
        publishers of a removed entity are destroyed)."""
        if self._frames is not None:
            self._frames.drain()

    def publish_built(self, publisher: Any, build: Callable[..., Any], *args: Any) -> None:
        """Publish ``build(*args)``. While this thread's messages are held, ``build`` runs on
        the outbox thread during the next step: it may use only ``args`` (values nobody changes
        afterwards) and objects of its own that only it writes (a message template)."""
        self.publish(publisher, _Build(build, args))

    def hold(self) -> None:
        """Collect what this thread publishes until :meth:`send` (after publishing what is
        left of the previous collection)."""
        self.settle()
        self._held = []
        self._holder = threading.get_ident()

    def send(self) -> None:
        """Hand the collected messages to the outbox (its thread starts on first use): they go
        out in order, in the next windows (:meth:`open_window`) or at :meth:`settle`."""
        held, self._held = self._held, None
        if not held:
            return
        if self._outbox is None:
            self._outbox = Outbox(self._publish_now, self._build)
        self._outbox.post(held)

    def settle(self) -> None:
        """Publish now what the outbox still holds (after its item in hand)."""
        if self._outbox is not None:
            self._outbox.drain()

    def open_window(self, step_seconds: float) -> None:
        """The physics thread releases the GIL for about ``step_seconds``: the outbox may
        publish for :data:`WINDOW_SHARE` of it (``sim.on_gil_release``)."""
        if self._outbox is not None:
            self._outbox.open_window(WINDOW_SHARE * step_seconds)

    def close(self) -> None:
        """Publish what is still in the outbox and the frame lane and end their threads."""
        if self._outbox is not None:
            self._outbox.close()
            self._outbox = None
        if self._frames is not None:
            self._frames.close()
            self._frames = None

    def _build(self, publisher: Any, msg: Any) -> Any:
        """``msg``, built where it is still to be built; None where building failed (counted
        as a publishing error)."""
        if type(msg) is not _Build:
            return msg
        try:
            return msg.build(*msg.args)
        except Exception as err:  # noqa: BLE001 - a bad builder must not stop the others
            if self._node.context.ok():
                self.count_publish_error(getattr(publisher, 'topic_name', '?'), err)
            return None

    def _publish_now(self, publisher: Any, msg: Any) -> None:
        if type(msg) is _Build:
            msg = self._build(publisher, msg)
        if msg is None:
            return
        try:
            if type(msg) is bytes:
                publish_serialized(publisher, msg)  # without the GIL while DDS takes it
            else:
                publisher.publish(msg)
        except Exception as err:  # noqa: BLE001 - RCLError, InvalidHandle during shutdown
            if self._node.context.ok():
                self.count_publish_error(getattr(publisher, 'topic_name', '?'), err)

    def count_publish_error(self, topic: str, err: BaseException) -> None:
        with self._lock:  # counted and published in one go: the latched value never goes back
            self.publish_errors += 1
            count = self.publish_errors
            _publish_counter(self._errors, count)
        self.warn_throttled(f'publish {topic}',
                            f'publishing on {topic} failed ({count} so far): {err}')

    def reject(self, source: str, reason: str) -> None:
        """Count a rejected command and warn (throttled per source)."""
        with self._lock:  # the executor and the physics thread reject: publish in count order
            self.rejected_commands += 1
            count = self.rejected_commands
            _publish_counter(self._rejected, count)
        self.warn_throttled(source, f'rejected a command on {source}: {reason} '
                                    f'({count} rejected so far)')

    def warn_throttled(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warning.get(key, -1e9) >= WARNING_PERIOD:
            self._last_warning[key] = now
            self._node.get_logger().warning(text)


class _Build(NamedTuple):
    """A message still to be built: ``build(*args)`` (see :meth:`Publishing.publish_built`)."""

    build: Callable[..., Any]
    args: tuple[Any, ...]


class Outbox:
    """A thread that publishes ``(publisher, message)`` items, but only inside windows: while
    the physics thread steps PyBullet without the GIL (:meth:`open_window`, for about as long
    as a step takes). Outside them it leaves the GIL to the physics thread, which would
    otherwise wait for it; :meth:`drain` publishes what is left on the calling thread.

    In a window the thread first builds every queued message that is still to be built
    (``prepare``), then publishes them in order: what a window leaves for :meth:`drain` is
    then only the DDS write, not the building as well."""

    def __init__(self, publish: Callable[[Any, Any], None],
                 prepare: Callable[[Any, Any], Any] | None = None):
        self._publish = publish
        self._prepare = prepare
        self._wake = threading.Condition()
        self._items: collections.deque[tuple[Any, Any]] = collections.deque()
        self._window_end = 0.0  # perf_counter() until which this thread may publish
        self._busy = False  # this thread holds items taken from the queue
        self._closed = False
        self._thread = threading.Thread(target=self._run, name='publishing', daemon=True)
        self._thread.start()

    def post(self, batch: list[tuple[Any, Any]]) -> None:
        """Queue ``batch``; it goes out in the next windows, or with :meth:`drain`."""
        with self._wake:
            if self._closed:
                raise RuntimeError('the outbox is closed')
            self._items.extend(batch)

    def open_window(self, seconds: float) -> None:
        """Let the thread publish for ``seconds`` from now (the caller releases the GIL)."""
        if not self._items:
            return
        with self._wake:
            self._window_end = time.perf_counter() + seconds
            self._wake.notify()

    def drain(self) -> None:
        """Close the window, wait for the items in the thread's hands, then publish the rest
        here, in order."""
        with self._wake:
            self._window_end = 0.0
            while self._busy and self._thread.is_alive():
                self._wake.wait(0.1)
            rest = list(self._items)
            self._items.clear()
        for publisher, msg in rest:
            self._publish(publisher, msg)

    def close(self) -> None:
        """Publish what is left and end the thread."""
        with self._wake:
            self._closed = True
            self._window_end = math.inf
            self._wake.notify_all()
        self._thread.join(5.0)

    def _run(self) -> None:
        wake = self._wake
        while True:
            with wake:
                while not (self._items and time.perf_counter() < self._window_end):
                    if self._closed and not self._items:
                        return
                    wake.wait()
                batch = list(self._items)
                self._items.clear()
                self._busy = True
            left: list[tuple[Any, Any]] = []
            try:
                left = self._work(batch)
            finally:
                with wake:
                    self._items.extendleft(reversed(left))  # before anything posted since
                    self._busy = False
                    wake.notify_all()

    def _work(self, batch: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """Prepare, then publish ``batch`` while the window lasts; returns what is left."""
        prepare = self._prepare
        if prepare is not None:
            for k, (publisher, msg) in enumerate(batch):
                if time.perf_counter() >= self._window_end:
                    break
                batch[k] = (publisher, prepare(publisher, msg))
        for k, (publisher, msg) in enumerate(batch):
            if time.perf_counter() >= self._window_end:
                return batch[k:]
            self._publish(publisher, msg)  # never raises (Publishing counts errors)
        return []


def _publish_counter(publisher: Any, count: int) -> None:
    try:
        publisher.publish(UInt64(data=count))
    except Exception:  # noqa: BLE001 - a counter must never take the node down
        pass
