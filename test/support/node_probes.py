"""What the end-to-end node tests observe from their own process: TF chains, one joint's
trajectory from ``joint_states``, and the node's latched counters."""

from __future__ import annotations

import time
from typing import Any

from scene_sim_ros.scene import Pose

from .ros import qos, spin_until, stamp


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


REJECTED_COMMANDS = '/scene_sim/rejected_commands'


class CounterWatch:
    """One of the node's latched ``std_msgs/UInt64`` counters, followed by one subscription for
    as long as the ``with`` block lasts: every value the node publishes is seen, in order."""

    def __init__(self, client: Any, topic: str, timeout: float = 20.0) -> None:
        from std_msgs.msg import UInt64
        self.client = client
        self.values: list[int] = []
        self.subscription = client.create_subscription(
            UInt64, topic, lambda msg: self.values.append(int(msg.data)), qos(1000, True))
        if not spin_until(client, lambda: bool(self.values), timeout):
            self.close()
            raise TimeoutError(f'no value on {topic} after {timeout} s')

    @property
    def value(self) -> int:
        return self.values[-1]

    def wait_above(self, value: int, timeout: float) -> bool:
        """Spin until the counter exceeds ``value``; False if ``timeout`` passed first."""
        return spin_until(self.client, lambda: self.value > value, timeout)

    def idle(self, seconds: float) -> None:
        """Spin for ``seconds``, taking what arrives."""
        spin_until(self.client, lambda: False, seconds)

    def close(self) -> None:
        self.client.destroy_subscription(self.subscription)

    def __enter__(self) -> CounterWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def count_rejections(client: Any, sends: list[tuple[Any, Any]], timeout: float = 20.0) -> int:
    """By how much the node's rejected-commands counter rises when each of ``sends``
    (publisher, bad message) is published once, one after the other, each waited for (an
    AssertionError names the first that was not counted). Each publisher's path is made sure of
    first, by sending its first message until the counter moves: a new writer's first messages
    may go out before DDS has matched it with the node's reader, and the test must not depend
    on what DDS does with them."""
    with CounterWatch(client, REJECTED_COMMANDS) as counter:
        for publisher in dict.fromkeys(publisher for publisher, _ in sends):
            first = next(msg for p, msg in sends if p is publisher)
            start = counter.value
            deadline = time.monotonic() + timeout
            while counter.value == start and time.monotonic() < deadline:
                publisher.publish(first)
                counter.wait_above(start, 0.2)
            assert counter.value > start, f'{publisher.topic_name}: no message of it was counted'
        counter.idle(0.5)  # a resend still on its way is counted before
        before = counter.value
        for sent, (publisher, msg) in enumerate(sends):
            publisher.publish(msg)
            assert counter.wait_above(before + sent, timeout), (
                f'{publisher.topic_name}: {msg} was not counted in {timeout} s (the counter '
                f'went {counter.values[-sent - 3:]})')
        counter.idle(0.5)  # and none is counted twice
        return counter.value - before
