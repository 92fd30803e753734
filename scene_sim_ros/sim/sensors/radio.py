"""Emitters and receivers (Webots' Emitter / Receiver): text packets between robots.

A packet handed to an :class:`EmitterReader` (``send``) is delivered after the next physics
step to every :class:`ReceiverReader` of the same simulation that hears it, as Webots delivers
"in the next step": the same ``medium``, the emitter's channel (-1: every channel) equal to the
receiver's (-1: hears every channel), the receiver within the emitter's ``range`` (< 0:
unlimited) and inside both apertures (a cone of that full angle about each device's +x; < 0:
every direction). An emitter never hears itself. Infra-red is treated as radio: no line of sight
is checked.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.scene.transforms import Pose
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.simulator import Simulator

MAX_QUEUED = 1000
"""Packets a receiver keeps unread (the oldest go first), as Webots' bufferSize bounds it."""


class EmitterReader(Reader):
    """``send(text)`` queues a packet; ``read()`` the number sent so far."""

    reads = model.Emitter

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.outbox: list[str] = []
        self.sent = 0

    def send(self, text: str) -> None:
        self.outbox.append(str(text))

    def read(self) -> int:
        return self.sent

    def reset(self) -> None:
        self.outbox.clear()

    def after_step(self) -> None:
        if not self.outbox:
            return
        packets, self.outbox = self.outbox, []
        here = self.sensor_pose()
        for reader in self.sim.sensor_readers():
            if isinstance(reader, ReceiverReader) and reader is not self:
                there = reader.sensor_pose()
                if hears(self.sensor, here, reader.sensor, there):
                    for packet in packets:
                        reader.inbox.append(packet)
        self.sent += len(packets)


class ReceiverReader(Reader):
    """``read()`` returns the packets received since the last read, oldest first."""

    reads = model.Receiver

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.inbox: deque[str] = deque(maxlen=MAX_QUEUED)

    def read(self) -> list[str]:
        packets = list(self.inbox)
        self.inbox.clear()
        return packets

    def reset(self) -> None:
        self.inbox.clear()


def hears(emitter: Any, emitter_pose: Pose, receiver: Any, receiver_pose: Pose) -> bool:
    """Whether ``receiver`` at ``receiver_pose`` gets what ``emitter`` at ``emitter_pose`` sends
    (both world frames)."""
    if emitter.medium != receiver.medium:
        return False
    if -1 not in (emitter.channel, receiver.channel) and emitter.channel != receiver.channel:
        return False
    offset = [b - a for a, b in zip(emitter_pose.position, receiver_pose.position)]
    distance = math.sqrt(sum(v * v for v in offset))
    if emitter.range >= 0.0 and distance > emitter.range:
        return False
    if distance == 0.0:
        return True
    return (_within(emitter.aperture, emitter_pose, offset, distance)
            and _within(receiver.aperture, receiver_pose, [-v for v in offset], distance))


def _within(aperture: float, pose: Pose, direction: list[float], distance: float) -> bool:
    """``direction`` (length ``distance``) inside the cone of full angle ``aperture`` about
    the +x axis of ``pose``; every direction where the aperture is negative."""
    if aperture < 0.0:
        return True
    axis = pose.rotate((1.0, 0.0, 0.0))
    cosine = sum(a * d for a, d in zip(axis, direction)) / distance
    return math.acos(max(-1.0, min(1.0, cosine))) <= aperture / 2.0
