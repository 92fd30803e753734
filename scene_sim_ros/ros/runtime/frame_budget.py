"""Which due camera frames are rendered when the node cannot render them all at its real-time factor.

Rendering runs on the physics thread, right after the step a frame shows (so every published frame
is the world at its stamp). When the frames due cost more wall time than the real-time factor r
leaves, rendering them all would stall /clock (Game.ros2's 28 cameras held the node at RTF 0.19
whatever r). The policy instead drops frames, and never the clock:

* r = 0 (as fast as possible), paused stepping, or no pacing yet: every due frame is rendered.
* Pacing at r > 0, the cameras that dropped a frame queue in the order they started waiting. A
  due frame is rendered when the loop would still be on schedule (``Stepper.lag`` <= 0) after it
  and after the frames due now of the cameras queued ahead of it (costs estimated: measured per
  camera, :attr:`CameraSlot.cost`); else, when no camera queued ahead of it is due now, when
  the loop after it would be at most :data:`LAG_ALLOWANCE` wall seconds behind (or is on
  schedule before it: a frame that alone costs more still gets its turn). Otherwise it is
  dropped: not rendered, not published, the camera's schedule advances as if it had been, it
  is counted and queues (if it did not already).
* Fairness: when behind, frames are rendered strictly in queue order, the cameras that have
  waited longest first: a round-robin among cameras of equal rate, so at steady state each
  delivers about the same share of its frames, and none starves (the order in which the step
  loop asks does not matter).
* The allowance stays well below the stepper's ``MAX_LAG`` (where pacing re-anchors and sim time
  is lost): /clock keeps the rate r as long as the physics alone can.

Counting: per camera the frames published and dropped (:class:`CameraSlot`); every
:data:`REPORT_PERIOD` wall seconds with drops (the first time after :data:`FIRST_REPORT_AFTER`)
one warning says how many cameras dropped how many frames, and when the node stops,
:meth:`FrameBudget.report_totals` says what was dropped since the start (camera by camera for
up to :data:`TOTALS_LISTED` cameras). The policy is engine- and ROS-free:
the camera adapters call :meth:`FrameBudget.admit` (from ``SensorAdapter.claim_frame``, before the
step loop renders the admitted frames in one pass) and report what a frame cost, their share of
that pass included, with :meth:`FrameBudget.rendered`.
"""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

LAG_ALLOWANCE = 0.15
"""Wall seconds behind schedule that rendering may take the loop to (the stepper re-anchors only
at ``stepper.MAX_LAG`` = 0.25 s, so the clock keeps its rate; 0.1 s is left for frames costing
more than estimated). A loop that a busy machine held up for less than this catches up without
dropping a frame (at 0.05 s the default scene's one camera dropped 7 of 324 frames in 10 s on a
loaded CI machine); one 640x480 llvmpipe frame is ~4 ms."""

REPORT_PERIOD = 10.0
"""Wall seconds between two warnings about dropped frames."""

FIRST_REPORT_AFTER = 2.0
"""Wall seconds of dropping after which the first warning comes (then every REPORT_PERIOD)."""

COST_SMOOTHING = 0.2
"""Weight of the newest measurement in a camera's frame cost (exponential moving average)."""

TOTALS_LISTED = 8
"""Cameras named one by one in the totals at the end (more: only how many)."""

DOCS = 'docs/topics.md#frame-drops'


class Pacing(Protocol):
    """What the budget reads of the step loop (:class:`~.stepper.Stepper`)."""

    @property
    def lag(self) -> float | None: ...

    @property
    def real_time_factor(self) -> float: ...


@dataclass(eq=False)
class CameraSlot:
    """One camera's place in the budget, and its counters."""

    name: str
    rate: float
    """Hz of sim time (0: every step)."""
    tolerance: float
    """Sim seconds within which ``next_due`` counts as "due in this step" (half a step)."""
    next_due: float = 0.0
    """Sim time of the camera's next frame (set by its adapter after each decision)."""
    cost: float = 0.0
    """Estimated wall seconds one frame costs (0 until measured)."""
    published: int = 0
    dropped: int = 0

    def due_at(self, t: float) -> bool:
        return abs(self.next_due - t) <= self.tolerance


@dataclass
class _Window:
    """Counts since the last warning."""

    started: float
    due: int = 0
    dropped: int = 0
    cameras: dict[CameraSlot, list[int]] = field(default_factory=dict)
    """Every camera due in the window -> [frames it published, frames it dropped]."""


class FrameBudget:
    """The policy of the module docstring for the cameras of one node; ``warn(text)`` logs.
    :attr:`pacing` is the step loop that paces, handed over by the node once it is built."""

    def __init__(self, warn: Callable[[str], object], *,
                 clock: Callable[[], float] = time.monotonic):
        self.pacing: Pacing | None = None
        """The pacing step loop; None (not there yet): every frame is rendered."""
        self._warn = warn
        self._clock = clock
        self._waiting: dict[CameraSlot, None] = {}  # insertion order: waiting longest first
        self._pending = 0.0  # estimated cost of frames admitted and not rendered yet
        self._typical_cost = 0.0  # of any camera's frame: the estimate for one not measured yet
        self._window = _Window(clock())
        self._warned = False
        self._slots: dict[str, CameraSlot] = {}  # by topic: every camera that joined

    def join(self, name: str, rate: float, tolerance: float) -> CameraSlot:
        """The slot of camera ``name`` (its topic). A camera that comes back under a name that
        joined before (a robot deleted and spawned again) continues that slot's counts, so
        the totals name it once and the budget keeps one slot per name."""
        slot = self._slots.get(name)
        if slot is None:
            slot = self._slots[name] = CameraSlot(name, rate, tolerance)
        else:
            self.leave(slot)
            slot.rate, slot.tolerance, slot.next_due = rate, tolerance, 0.0
        return slot

    def leave(self, slot: CameraSlot) -> None:
        """The camera stopped reading (nobody subscribes) or went away: it waits no longer."""
        self._waiting.pop(slot, None)

    def admits(self, slot: CameraSlot, t: float) -> bool:
        """Whether :meth:`admit` would render ``slot``'s frame due at sim time ``t`` now. No
        side effects."""
        pacing = self.pacing
        if pacing is None or pacing.real_time_factor <= 0.0:
            return True
        lag = pacing.lag
        if lag is None:
            return True
        reserved, queued_ahead = self._ahead_of(slot, t)
        behind = lag + self._pending
        if behind + reserved + self._cost(slot) <= 0.0:  # all fits on schedule: no need to queue
            return True
        return not queued_ahead and (behind <= 0.0 or behind + self._cost(slot) <= LAG_ALLOWANCE)

    def admit(self, slot: CameraSlot, t: float) -> bool:
        """Decide ``slot``'s frame due at ``t``: True to render it (then call :meth:`rendered`),
        False when it is dropped (counted)."""
        admitted = self.admits(slot, t)
        window = self._window
        window.due += 1
        counts = window.cameras.setdefault(slot, [0, 0])
        if admitted:
            slot.published += 1
            counts[0] += 1
            self._waiting.pop(slot, None)
            self._pending += self._cost(slot)
        else:
            slot.dropped += 1
            window.dropped += 1
            counts[1] += 1
            self._waiting.setdefault(slot, None)
        self._report()
        return admitted

    def rendered(self, slot: CameraSlot, seconds: float) -> None:
        """``slot``'s admitted frame took ``seconds`` of wall time to render and publish."""
        self._pending = max(0.0, self._pending - self._cost(slot))
        slot.cost = _smoothed(slot.cost, seconds)
        self._typical_cost = _smoothed(self._typical_cost, seconds)

    def _cost(self, slot: CameraSlot) -> float:
        return slot.cost or self._typical_cost

    def _ahead_of(self, slot: CameraSlot, t: float) -> tuple[float, bool]:
        """The estimated cost of the frames due at ``t``, not decided yet, of the cameras that
        have waited longer than ``slot`` (all waiting ones when ``slot`` does not wait), and
        whether there are any."""
        reserved = 0.0
        queued = False
        for other in self._waiting:
            if other is slot or reserved > LAG_ALLOWANCE:
                break
            if other.due_at(t):
                reserved += self._cost(other)
                queued = True
        return reserved, queued

    def _report(self) -> None:
        window = self._window
        now = self._clock()
        elapsed = now - window.started
        if elapsed < (REPORT_PERIOD if self._warned else FIRST_REPORT_AFTER):
            return
        if window.dropped:
            self._warned = True
            self._warn(self.summary(window, elapsed))
        self._window = _Window(now)

    def report_totals(self) -> None:
        """Warn what was dropped since the start, if anything (when the node stops)."""
        dropping = [slot for slot in self._slots.values() if slot.dropped]
        if not dropping:
            return
        dropped = sum(slot.dropped for slot in dropping)
        due = sum(slot.dropped + slot.published for slot in dropping)
        if len(dropping) <= TOTALS_LISTED:
            which = ', '.join(f'{slot.name} {slot.dropped} of {slot.dropped + slot.published}'
                              for slot in dropping)
        else:
            which = f'{len(dropping)} cameras'
        self._warn(f'camera frames dropped since the start: {dropped} of {due} ({which}); '
                   f'see {DOCS}')

    def summary(self, window: _Window, elapsed: float) -> str:
        pacing = self.pacing
        rtf = pacing.real_time_factor if pacing is not None else 0.0
        dropping = sum(1 for _, dropped in window.cameras.values() if dropped)
        published = [count for count, _ in window.cameras.values()]
        rates = collections.Counter(slot.rate for slot in window.cameras)
        groups = ', '.join(f'{_cameras(count)} at {_hz(rate)}'
                           for rate, count in sorted(rates.items()))
        return (f'cameras cannot all keep their rates at real_time_factor {rtf:g}: '
                f'{_cameras(dropping)} dropped {window.dropped} of {window.due} frames in the last '
                f'{elapsed:.0f} s ({groups}; each published {min(published)} to '
                f'{max(published)}); see {DOCS}')


def _smoothed(average: float, sample: float) -> float:
    return sample if average == 0.0 else (1.0 - COST_SMOOTHING) * average + COST_SMOOTHING * sample


def _cameras(count: int) -> str:
    return f'{count} camera' if count == 1 else f'{count} cameras'


def _hz(rate: float) -> str:
    return f'{rate:g} Hz' if rate > 0.0 and math.isfinite(rate) else 'every step'
