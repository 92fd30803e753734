"""foxglove-sdk's own log (Rust, handed to Python ``logging`` by pyo3-log) in the node's log.

The SDK keeps a bounded outbox per viewer and drops its oldest message when a new one does not
fit: a slow or stalled viewer never holds up ``channel.log``. It reports that a viewer's
outbox was full (at most every 30 s, for all viewers together: it counts no drops), and once
per unsent message when a viewer vanished. Left alone, the latter land on stderr unformatted,
one line per message. Here they are counted per viewer and said once in the node's log: a
viewer connected, a viewer fell behind (its oldest messages dropped), a viewer left and how
many messages it was not sent.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from typing import Any

SDK_LOGGER = 'foxglove'
_CLIENT = re.compile(r'client (\S+?):?(?:\s|$)')


class SdkLog(logging.Handler):
    """Install with :meth:`install` before the server starts (pyo3-log caches each logger's
    level on first use); :meth:`uninstall` at the end."""

    def __init__(self, logger: Any, backlog: int):
        super().__init__(logging.INFO)
        self.ros_logger = logger
        self.backlog = backlog
        self.behind: Counter[str] = Counter()   # outbox-full reports per viewer
        self.unsent: Counter[str] = Counter()   # messages that failed to go to a vanished viewer
        self._lock = threading.Lock()

    def install(self) -> None:
        sdk = logging.getLogger(SDK_LOGGER)
        sdk.setLevel(logging.INFO)
        sdk.addHandler(self)
        sdk.propagate = False

    def uninstall(self) -> None:
        logging.getLogger(SDK_LOGGER).removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._route(record.getMessage(), record.levelno)
        except Exception:  # noqa: BLE001 - a log line must never break the server's thread
            pass

    def _route(self, text: str, level: int) -> None:
        found = _CLIENT.search(text)
        viewer = found.group(1) if found else '?'
        if text.startswith('outbox for client'):
            with self._lock:
                self.behind[viewer] += 1
            self.ros_logger.warning(
                f'Foxglove: viewer {viewer} does not keep up; it gets the newest '
                f'{self.backlog} messages, older ones are dropped', throttle_duration_sec=30.0)
        elif text.startswith(('Error sending message to client', 'Error receiving from client')):
            with self._lock:
                self.unsent[viewer] += text.startswith('Error sending')
        elif text.startswith('Registered client'):
            self.ros_logger.info(f'Foxglove: viewer {viewer} connected')
        elif text.startswith('Unregistered client'):
            self._left(viewer)
        elif level >= logging.WARNING:
            self.ros_logger.warning(f'Foxglove: {text}', throttle_duration_sec=10.0)

    def _left(self, viewer: str) -> None:
        with self._lock:
            unsent = self.unsent.pop(viewer, 0)
            behind = self.behind.pop(viewer, 0)
        text = f'Foxglove: viewer {viewer} left'
        if behind:
            text += ' (it had fallen behind: oldest messages dropped)'
        if unsent:
            text += f'; {unsent} queued messages could not be sent to it'
        self.ros_logger.info(text)

    def finish(self) -> None:
        """At the end: what is still counted (viewers that never said goodbye)."""
        self.uninstall()
        with self._lock:
            behind, unsent = sum(self.behind.values()), sum(self.unsent.values())
        if behind or unsent:
            self.ros_logger.warning(f'Foxglove: at the end, viewers had fallen behind {behind} '
                                    f'times (oldest messages dropped), {unsent} messages '
                                    'could not be sent')
