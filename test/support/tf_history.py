"""A tf2-like view of /tf and /tf_static built from plain rclpy subscriptions (tf2_ros is not on
PyPI): every transform with its stamp and the wall time it arrived, the parents each frame had,
and lookups as tf2 resolves them (the parent of a frame is that of its newest transform; a
dynamic transform must reach the requested stamp, a static one holds at every time), and the
newest transform of each frame as a matrix (:meth:`TfHistory.matrix`: latest-time lookups)."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from typing import Any

from .ros import qos, stamp


def _finite(t: Any) -> bool:
    v, r = t.transform.translation, t.transform.rotation
    return all(math.isfinite(x) for x in (v.x, v.y, v.z, r.x, r.y, r.z, r.w))


class TfHistory:
    def __init__(self, node: Any, tf_topic: str = '/tf', static_topic: str = '/tf_static'):
        from tf2_msgs.msg import TFMessage
        self.node = node
        # child -> [(arrival wall time, stamp, parent)]
        self.dynamic: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
        self.static: dict[str, str] = {}
        self.newest: dict[str, Any] = {}  # child -> its newest TransformStamped (either topic)
        self.subscriptions = [
            node.create_subscription(TFMessage, tf_topic, self._on_tf, qos(200)),
            node.create_subscription(TFMessage, static_topic, self._on_static, qos(1, True))]

    def _on_tf(self, msg: Any) -> None:
        now = time.monotonic()
        for t in msg.transforms:
            if _finite(t):  # tf2 refuses NaN transforms (TF_NAN_INPUT) instead of storing them
                self.dynamic[t.child_frame_id].append((now, stamp(t.header), t.header.frame_id))
                self.newest[t.child_frame_id] = t

    def _on_static(self, msg: Any) -> None:
        for t in msg.transforms:
            self.static[t.child_frame_id] = t.header.frame_id
            self.newest.setdefault(t.child_frame_id, t)

    def parents_since(self, wall_time: float) -> dict[str, set[str]]:
        """Every parent each frame had in the transforms that arrived after ``wall_time``
        (/tf_static's count as always present)."""
        parents: dict[str, set[str]] = defaultdict(set)
        for child, samples in self.dynamic.items():
            parents[child].update(parent for arrived, _, parent in samples if arrived > wall_time)
        for child, parent in self.static.items():
            parents[child].add(parent)
        return {child: found for child, found in parents.items() if found}

    def parent(self, frame: str) -> tuple[str, float] | None:
        """(parent, newest stamp) as a tf2 buffer sees it now; stamp inf for a static one."""
        samples = self.dynamic.get(frame)
        if samples:
            return samples[-1][2], max(s for _, s, p in samples[-50:] if p == samples[-1][2])
        if frame in self.static:
            return self.static[frame], float('inf')
        return None

    def can_transform(self, target: str, source: str, at: float | None = None) -> bool:
        """Whether ``source`` chains up to ``target`` with every dynamic transform on the way
        reaching ``at`` (None: tf2's "latest common time", which any connected chain has)."""
        frame, seen = source, set()
        while frame != target:
            if frame in seen:
                return False
            seen.add(frame)
            found = self.parent(frame)
            if found is None:
                return False
            frame, newest = found
            if at is not None and newest < at - 1e-9:
                return False
        return True

    def matrix(self, target: str, source: str) -> Any:
        """4x4 numpy matrix taking points in ``source`` to ``target`` (an ancestor of it), from
        the newest transform of each frame on the way: tf2's lookup at time 0 for frames that
        do not move."""
        import numpy as np
        result, frame = np.eye(4), source
        while frame != target:
            t = self.newest.get(frame)
            if t is None:
                raise LookupError(f'{frame} has no parent on the way to {target}')
            x, y, z, w = (t.transform.rotation.x, t.transform.rotation.y,
                          t.transform.rotation.z, t.transform.rotation.w)
            step = np.eye(4)
            step[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
            v = t.transform.translation
            step[:3, 3] = (v.x, v.y, v.z)
            result = step @ result
            frame = t.header.frame_id
        return result

    def close(self) -> None:
        for subscription in self.subscriptions:
            self.node.destroy_subscription(subscription)
