"""What the end-to-end node tests observe from their own process: TF chains, one joint's
trajectory from ``joint_states``, and the node's latched counters."""

from __future__ import annotations

import time
from typing import Any

from scene_sim_ros.scene import Pose

from .ros import qos, spin_until, stamp, wait_for_messages


class TfBuffer:
    """The semantics of a tf2 buffer that matter here: the latest transform per child frame,
    chained from a frame up to the root."""

    def __init__(self) -> None:
        self.parent: dict[str, tuple[str, Pose]] = {}

    def add(self, msg: Any) -> None:
        for t in msg.transforms:
            tr, rot = t.transform.translation, t.transform.rotation
            self.parent[t.child_frame_id] = (t.header.frame_id, Pose(
                (tr.x, tr.y, tr.z), (rot.x, rot.y, rot.z, rot.w)))

    def lookup(self, target: str, source: str) -> Pose:
        """Pose of ``source`` in ``target`` (``target`` must be an ancestor)."""
        pose, frame = Pose(), source
        while frame != target:
            if frame not in self.parent:
                raise LookupError(f'{source} does not chain up to {target}: {frame} has no parent')
            parent, transform = self.parent[frame]
            pose = transform * pose
            frame = parent
        return pose


class JointRecorder:
    """Records (stamp, position) of one joint from a ``joint_states`` topic."""

    def __init__(self, client: Any, topic: str, joint: str) -> None:
        from sensor_msgs.msg import JointState
        self.client = client
        self.samples: list[tuple[float, float]] = []

        def record(msg: Any) -> None:
            self.samples.append((stamp(msg.header), msg.position[list(msg.name).index(joint)]))
        self.subscription = client.create_subscription(JointState, topic, record, qos(200))

    def wait_until_time(self, sim_time: float, timeout: float = 60.0) -> None:
        assert spin_until(self.client, lambda: bool(self.samples)
                          and self.samples[-1][0] >= sim_time,
                          timeout), f'sim time did not reach {sim_time}'

    def after(self, sim_time: float) -> list[tuple[float, float]]:
        return [(t, q) for t, q in self.samples if t > sim_time]

    def at(self, sim_time: float, window: float = 0.05) -> float:
        """Mean position within ``window`` around ``sim_time`` (a holding servo may dither)."""
        near = [q for t, q in self.samples if abs(t - sim_time) <= window / 2 + 1e-9]
        assert near, f'no sample near {sim_time}'
        return sum(near) / len(near)

    def close(self) -> None:
        self.client.destroy_subscription(self.subscription)


def latest_counter(client: Any, topic: str) -> int:
    """The latest value of one of the node's latched ``std_msgs/UInt64`` counters."""
    from std_msgs.msg import UInt64
    (msg,) = wait_for_messages(client, UInt64, topic, count=1, timeout=20.0, qos=qos(1, True))
    return int(msg.data)


REJECTED_COMMANDS = '/scene_sim/rejected_commands'


def count_rejections(client: Any, sends: list[tuple[Any, Any]], timeout: float = 20.0) -> int:
    """By how much the node's rejected-commands counter rises when each of ``sends``
    (publisher, bad message) is published once. Each publisher's path is made sure of first, by
    sending its first message until the counter moves: the node's reader may match a new writer
    after the writer matched it (``get_subscription_count``), and the test must not depend on
    what DDS does with a message sent in between."""
    for publisher in dict.fromkeys(publisher for publisher, _ in sends):
        first = next(msg for p, msg in sends if p is publisher)
        start = count = latest_counter(client, REJECTED_COMMANDS)
        deadline = time.monotonic() + timeout
        while count == start and time.monotonic() < deadline:
            publisher.publish(first)
            spin_until(client, lambda: False, 0.2)
            count = latest_counter(client, REJECTED_COMMANDS)
        assert count > start, f'{publisher.topic_name}: no message of it was counted'
    spin_until(client, lambda: False, 0.5)  # a resend still on its way is counted before
    before = latest_counter(client, REJECTED_COMMANDS)
    for publisher, msg in sends:
        publisher.publish(msg)
    deadline, count = time.monotonic() + timeout, before
    while count < before + len(sends) and time.monotonic() < deadline:
        count = latest_counter(client, REJECTED_COMMANDS)
    spin_until(client, lambda: False, 0.5)  # and none is counted twice
    return latest_counter(client, REJECTED_COMMANDS) - before
