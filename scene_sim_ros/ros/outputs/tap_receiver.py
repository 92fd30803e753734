"""The tap's subscriptions, taken in batches on a thread of their own, outside any executor.

rclpy's Python executors rebuild a wait set of every entity of the node and walk it in Python
on each wakeup, and wake once per message or two: with every topic of a simulation tapped
(a recording, a viewer watching all) that cost the simulation's thread its GIL for more time
than the messages themselves. Here the raw subscriptions belong to a hidden node of their own
(``_scene_sim_tap_receiver``, made with rclpy's public API) that no executor spins; one thread
waits on all of them at once (a wait set, as ``rclpy.wait_for_message`` makes one: the same
on Jazzy and Kilted), takes every message each one holds, and waits again after
:data:`BATCH_S`, so that a burst (a physics step publishes a dozen topics) costs one wakeup.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

BATCH_S = 0.002
WAIT_NS = 500_000_000


RECEIVER_NODE_NAME = '_scene_sim_tap_receiver'   # hidden: ros2 node list shows it with -a


@dataclass
class _Entry:
    subscription: Any
    deliver: Callable[[bytes], None]

    @property
    def handle(self) -> Any:
        return self.subscription.handle


class Receiver:
    """Raw subscriptions in ``context`` (an rclpy Context), each handing its CDR bytes to its
    ``deliver``; :meth:`add` and :meth:`remove` from any thread."""

    def __init__(self, context: Any, *, namespace: str = '/',
                 on_error: Callable[[BaseException], object]):
        from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
        from rclpy.node import Node
        self._rclpy = _rclpy
        self._node = Node(RECEIVER_NODE_NAME, namespace=namespace, context=context,
                          start_parameter_services=False, enable_rosout=False)
        self._context = context
        self._on_error = on_error
        self._entries: dict[str, _Entry] = {}
        self._retired: list[Any] = []
        self._lock = threading.Lock()
        self._changed = self._node.create_guard_condition(lambda: None)
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name='scene_sim_tap_receiver',
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def add(self, topic: str, msg_type: Any, qos: Any, deliver: Callable[[bytes], None]) -> None:
        subscription = self._node.create_subscription(msg_type, topic, _never_called, qos,
                                                      raw=True)
        with self._lock:
            old = self._entries.pop(topic, None)
            if old is not None:
                self._retired.append(old.subscription)
            self._entries[topic] = _Entry(subscription, deliver)
        self._changed.trigger()

    def remove(self, topic: str) -> None:
        with self._lock:
            entry = self._entries.pop(topic, None)
            if entry is not None:
                self._retired.append(entry.subscription)
        self._changed.trigger()

    def __contains__(self, topic: str) -> bool:
        return topic in self._entries

    def stop(self) -> None:
        self._stopping = True
        try:
            self._changed.trigger()
        except Exception:  # noqa: BLE001 - the context is gone already
            pass
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        with self._lock:
            subscriptions = [e.subscription for e in self._entries.values()] + self._retired
            self._entries.clear()
            self._retired.clear()
        for subscription in subscriptions:
            self._destroy(subscription)
        try:
            self._node.destroy_node()
        except Exception:  # noqa: BLE001 - the context is gone already
            pass

    def _destroy(self, subscription: Any) -> None:
        try:
            self._node.destroy_subscription(subscription)
        except Exception:  # noqa: BLE001 - the context is gone already
            pass

    # --- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping and self._context.ok():
                with self._lock:
                    entries = list(self._entries.values())
                    retired, self._retired = self._retired, []
                for subscription in retired:
                    self._destroy(subscription)
                self._serve(entries)
        except Exception as err:  # noqa: BLE001 - the context shut down under the wait
            if self._context.ok() and not self._stopping:
                self._on_error(err)

    def _serve(self, entries: list[_Entry]) -> None:
        """Wait on ``entries`` and take their messages until the set changes."""
        with ExitStack() as held:
            for entry in entries:
                held.enter_context(entry.handle)
            held.enter_context(self._changed.handle)
            wait_set = self._rclpy.WaitSet(len(entries), 1, 0, 0, 0, 0, self._context.handle)
            held.enter_context(wait_set)
            while not self._stopping:
                wait_set.clear_entities()
                indexes = [wait_set.add_subscription(entry.handle) for entry in entries]
                changed = wait_set.add_guard_condition(self._changed.handle)
                wait_set.wait(WAIT_NS)
                if wait_set.is_ready('guard_condition', changed):
                    return
                for entry, index in zip(entries, indexes, strict=True):
                    if wait_set.is_ready('subscription', index):
                        self._drain(entry)
                time.sleep(BATCH_S)

    @staticmethod
    def _drain(entry: _Entry) -> None:
        while True:
            taken = entry.handle.take_message(entry.subscription.msg_type, True)
            if taken is None:
                return
            entry.deliver(taken[0])


def _never_called(_message: bytes) -> None:
    """The receiver's node is never spun: its thread takes the messages itself."""
