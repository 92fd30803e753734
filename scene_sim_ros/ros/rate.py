"""Rate limiting in sim time, shared by joint states, /tf, odometry and the trajectory state."""

from __future__ import annotations


class RateLimiter:
    """``due(t)`` is true at most ``rate`` times per sim second (every call when rate is 0)."""

    def __init__(self, rate: float, step_length: float):
        self.period = 1.0 / rate if rate > 0.0 else 0.0
        self._tolerance = 0.5 * step_length
        self._next = 0.0

    def due(self, t: float) -> bool:
        if self.period == 0.0:
            return True
        if t + self._tolerance < self._next:
            return False
        self._next += self.period
        if self._next <= t:
            self._next = t + self.period
        return True
