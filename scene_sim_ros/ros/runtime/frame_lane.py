"""Camera frames built and published on a thread of their own.

A frame of the step loop's batched round is read back from the GL atlas and written to DDS
(:func:`.native_publish.publish_serialized`), both without the GIL, and only the serialization
in between holds it briefly. The outbox (:mod:`.publishing`) publishes only inside the windows
in which PyBullet steps without the GIL, so a round's 28 frames did not fit: the next step's
``hold`` then waited for the readback in the outbox's hands and published the rest on the
physics thread (23 % of that thread with all 28 cameras of the game). The lane needs no
windows: it builds and publishes frame after frame, in order, while the physics thread goes
on. At most :data:`MAX_IN_FLIGHT` frames wait: beyond that the poster waits (a lane that falls
behind slows the simulation down instead of piling frames up).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any

MAX_IN_FLIGHT = 64
"""Frames queued or in the lane's hands before :meth:`FrameLane.post` waits (two rounds of the
game's 28 cameras fit)."""


class FrameLane:
    """A thread that calls ``publish(publisher, item)`` for every posted item, in order."""

    def __init__(self, publish: Callable[[Any, Any], None]):
        self._publish = publish
        self._changed = threading.Condition()
        self._items: collections.deque[tuple[Any, Any]] = collections.deque()
        self._busy = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name='frames', daemon=True)
        self._thread.start()

    def post(self, publisher: Any, item: Any) -> None:
        with self._changed:
            if self._closed:
                raise RuntimeError('the frame lane is closed')
            while len(self._items) + self._busy >= MAX_IN_FLIGHT and self._thread.is_alive():
                self._changed.wait(0.1)
            self._items.append((publisher, item))
            self._changed.notify_all()

    def drain(self) -> None:
        """Wait until every posted frame is out."""
        with self._changed:
            while (self._items or self._busy) and self._thread.is_alive():
                self._changed.wait(0.1)

    def close(self) -> None:
        """Publish what is left and end the thread."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(5.0)

    def _run(self) -> None:
        changed = self._changed
        while True:
            with changed:
                while not self._items:
                    if self._closed:
                        return
                    changed.wait()
                publisher, item = self._items.popleft()
                self._busy = True
            try:
                self._publish(publisher, item)  # never raises (Publishing counts errors)
            finally:
                with changed:
                    self._busy = False
                    changed.notify_all()
