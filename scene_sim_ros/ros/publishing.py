"""Publishing that never raises, and the node's two counters (``~/publish_errors``,
``~/rejected_commands``: ``std_msgs/UInt64``, transient-local) with throttled warnings.

Publishing runs on the physics thread: a DDS error must not stop the simulation, so it is
counted and warned about (at most every :data:`WARNING_PERIOD` per topic); errors while the
context shuts down are no errors. Rejected commands (executor thread) are counted the same way.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from rclpy.node import Node
from std_msgs.msg import UInt64

from . import qos

WARNING_PERIOD = 2.0
"""Wall seconds between two warnings about one topic (rejected commands, failed publishing)."""


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

    def publish(self, publisher: Any, msg: Any) -> None:
        """Publish, never raise: DDS errors are counted; errors while the context shuts down
        are not errors."""
        try:
            publisher.publish(msg)
        except Exception as err:  # noqa: BLE001 - RCLError, InvalidHandle during shutdown
            if self._node.context.ok():
                self.count_publish_error(getattr(publisher, 'topic_name', '?'), err)

    def count_publish_error(self, topic: str, err: BaseException) -> None:
        with self._lock:
            self.publish_errors += 1
            count = self.publish_errors
        self.warn_throttled(f'publish {topic}',
                            f'publishing on {topic} failed ({count} so far): {err}')
        _publish_counter(self._errors, count)

    def reject(self, source: str, reason: str) -> None:
        """Count a rejected command and warn (throttled per source)."""
        with self._lock:
            self.rejected_commands += 1
            count = self.rejected_commands
        self.warn_throttled(source, f'rejected a command on {source}: {reason} '
                                    f'({count} rejected so far)')
        _publish_counter(self._rejected, count)

    def warn_throttled(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warning.get(key, -1e9) >= WARNING_PERIOD:
            self._last_warning[key] = now
            self._node.get_logger().warning(text)


def _publish_counter(publisher: Any, count: int) -> None:
    try:
        publisher.publish(UInt64(data=count))
    except Exception:  # noqa: BLE001 - a counter must never take the node down
        pass
