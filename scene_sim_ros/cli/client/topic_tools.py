"""``scene-sim-ros echo`` and ``hz``: ``ros2 topic echo`` / ``ros2 topic hz`` without ros2cli.

The topic's type comes from the graph and its publishers' QoS is matched (best effort, transient
local), so sensor streams and latched topics (``robot_description``, counters) both work.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from scene_sim_ros.cli.client.messages import json_safe, select, to_data, to_yaml
from scene_sim_ros.cli.client.session import (
    UserError,
    client_node,
    matching_qos,
    message_class,
    spin_until,
    wait_for_topic_type,
)


def echo(topic: str, *, once: bool = False, count: int | None = None, rate: float | None = None,
         field: str | None = None, full: bool = False, as_json: bool = False,
         timeout: float | None = None, discovery_timeout: float | None = None) -> int:
    """Print messages of ``topic`` as YAML documents (``---`` after each) or JSON lines."""
    if rate is not None and not rate > 0:
        raise UserError(f'--rate must be > 0, got {rate:g}')
    limit = 1 if once else count
    with client_node('scene_sim_ros_echo') as node:
        type_name = wait_for_topic_type(node, topic, _discovery(discovery_timeout, timeout))
        msg_type = message_class(type_name)
        printed = 0
        throttle = Throttle(rate)
        queue: list[Any] = []
        node.create_subscription(msg_type, topic, queue.append, matching_qos(node, topic))
        deadline = None if timeout is None else time.monotonic() + timeout
        while limit is None or printed < limit:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            spin_until(node, lambda: bool(queue), remaining if remaining is not None else 1.0)
            while queue and (limit is None or printed < limit):
                msg = queue.pop(0)
                if not throttle.admits():
                    continue
                data = to_data(msg, full=full)
                if field:
                    try:
                        data = select(data, field)
                    except KeyError as err:
                        raise UserError(f'--field {err.args[0]}') from None
                if as_json:
                    sys.stdout.write(json.dumps(json_safe(data)) + '\n')
                elif isinstance(data, str):  # one text field (--field data): as it is
                    sys.stdout.write(data + ('' if data.endswith('\n') else '\n') + '---\n')
                else:
                    sys.stdout.write(to_yaml(data) + '---\n')
                sys.stdout.flush()
                printed += 1
        if limit is not None and printed < limit:
            print(f'{printed} of {limit} message{"s" if limit != 1 else ""} on {topic} within '
                  f'{timeout:g} s', file=sys.stderr)
            return 1
    return 0


def _discovery(discovery_timeout: float | None, timeout: float | None) -> float:
    """Seconds to wait for a publisher: as given, else --timeout, at most 10 s."""
    if discovery_timeout is not None:
        return discovery_timeout
    return 10.0 if timeout is None else min(timeout, 10.0)


class Throttle:
    """Admits at most ``rate`` events per second of ``clock`` (all of them without a rate):
    an event is admitted when at least 1/rate has passed since the last admitted one."""

    def __init__(self, rate: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.period = 0.0 if rate is None else 1.0 / rate
        self.clock = clock
        self.last = -math.inf

    def admits(self) -> bool:
        now = self.clock()
        if now - self.last < self.period:
            return False
        self.last = now
        return True


class RateWindow:
    """Arrival times of the last ``window`` messages; rate and period statistics like
    ``ros2 topic hz`` (mean period -> rate; min, max, standard deviation of the periods)."""

    def __init__(self, window: int) -> None:
        self.times: deque[float] = deque(maxlen=window + 1)
        self.total = 0

    def add(self, t: float) -> None:
        self.times.append(t)
        self.total += 1

    def stats(self) -> dict[str, float] | None:
        if len(self.times) < 2:
            return None
        periods = [b - a for a, b in zip(self.times, list(self.times)[1:])]
        mean = sum(periods) / len(periods)
        std = math.sqrt(sum((p - mean) ** 2 for p in periods) / len(periods))
        return {'rate': 1.0 / mean if mean > 0 else math.inf, 'min': min(periods),
                'max': max(periods), 'std_dev': std, 'window': len(periods)}


def hz(topic: str, *, window: int = 10000, count: int | None = None, as_json: bool = False,
       timeout: float | None = None, discovery_timeout: float | None = None) -> int:
    """Print the receive rate of ``topic`` every second until Ctrl-C or ``count`` messages."""
    if window < 1:
        raise UserError(f'--window must be >= 1, got {window}')
    if count is not None and count < 2:
        raise UserError(f'--count must be >= 2 (a rate needs two messages), got {count}')
    with client_node('scene_sim_ros_hz') as node:
        msg_type = message_class(wait_for_topic_type(node, topic,
                                                     _discovery(discovery_timeout, timeout)))
        stats = RateWindow(window)
        node.create_subscription(msg_type, topic, lambda _msg: stats.add(time.monotonic()),
                                 matching_qos(node, topic))
        started = time.monotonic()
        next_report = started + 1.0
        try:
            while count is None or stats.total < count:
                if timeout is not None and time.monotonic() - started > timeout:
                    break
                def due(at: float = next_report) -> bool:
                    return time.monotonic() >= at or (count is not None and stats.total >= count)
                spin_until(node, due, 1.0)
                if time.monotonic() >= next_report:
                    next_report += 1.0
                    if not as_json:
                        _report(stats, topic)
        except KeyboardInterrupt:
            pass
        result = stats.stats()
        if as_json:
            print(json.dumps({'topic': topic, 'messages': stats.total, **(result or {})}))
        elif count is not None or timeout is not None:
            _report(stats, topic)
        if result is None:
            print(f'{stats.total} message{"s" if stats.total != 1 else ""} on {topic}; a rate '
                  'needs two', file=sys.stderr)
            return 1
        if count is not None and stats.total < count:
            print(f'{stats.total} of {count} messages on {topic} within {timeout:g} s',
                  file=sys.stderr)
            return 1
    return 0


def _report(stats: RateWindow, topic: str) -> None:
    result = stats.stats()
    if result is None:
        print(f'no new messages on {topic}' if stats.total == 0 else
              f'{stats.total} message on {topic}, waiting for the next', flush=True)
        return
    print(f'average rate: {result["rate"]:.3f}\n'
          f'\tmin: {result["min"]:.3f}s max: {result["max"]:.3f}s '
          f'std dev: {result["std_dev"]:.5f}s window: {result["window"]}', flush=True)
