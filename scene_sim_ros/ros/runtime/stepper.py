"""The physics loop: one thread that owns the simulation, steps it and paces it.

Everything that touches the simulation runs on this thread, at a step boundary: queued tasks
(commands from subscriptions, supervisor operations) run before a step, then ``before_step``
hooks (trajectories), then ``sim.step(1)``, then ``after_step(time)`` (publishing). DDS callbacks
never touch the simulation; they submit tasks and return, so a burst of messages cannot stall the
physics and the physics never waits for the executor.

Messages of a step may still be going out while the next step runs (``after_step`` hands them to
another thread, see ``.publishing``): ``settle()`` waits for them, and the loop calls it before
anything that others could take as "the step is done": queued tasks, completing ``step(n)``
requests, idling while paused, stopping. Camera frames of the batched round go out on a lane of
their own (``.frame_lane``); ``finish()`` waits for them as well, before ``step(n)`` requests
complete, while paused and when stopping (not before every queued task: commands streamed each
step would then keep the frames from overlapping the physics).

Pacing: with ``real_time_factor`` r > 0 the loop keeps ``sim_elapsed / wall_elapsed`` at r by
sleeping before each step; when it falls behind by more than :data:`MAX_LAG` wall seconds it
re-anchors instead of stepping in a burst to catch up. r = 0 steps as fast as possible. Paused,
the loop still runs tasks (and ``step(n)`` requests, for lock-step use).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Literal, overload

from scene_sim_ros.sim.simulator import Simulator

MAX_LAG = 0.25
"""Wall seconds behind schedule after which pacing re-anchors (no catch-up burst)."""

IDLE_WAIT = 0.05
"""How long a paused loop sleeps between looks at its queue (it is also woken on submit)."""

PAUSED_PERIOD = 0.1
"""Wall seconds between two ``while_paused`` calls (the node republishes /clock: nodes on sim
time keep seeing the clock, as with Gazebo)."""

_log = logging.getLogger(__name__)


class StepsInterrupted(RuntimeError):
    """Requested steps were dropped (the simulation was paused, played or stopped meanwhile)."""

    def __init__(self, reason: str, remaining: int):
        super().__init__(f'{reason}; {remaining} requested steps were not run')
        self.remaining = remaining


class Stepper:
    """Runs ``sim`` on its own thread. ``after_step(time)`` is called after every step with the
    simulation time that step produced; exceptions from it are logged and counted, never fatal.
    """

    def __init__(self, sim: Simulator, after_step: Callable[[float], None], *,
                 real_time_factor: float = 1.0, paused: bool = False,
                 on_error: Callable[[str, BaseException], None] | None = None,
                 while_paused: Callable[[float], None] | None = None,
                 settle: Callable[[], None] | None = None,
                 finish: Callable[[], None] | None = None):
        self.sim = sim
        self._settle = settle or (lambda: None)
        self._finish = finish or self._settle  # settle, and the camera frames out too
        self._after_step = after_step
        self._before_step: list[Callable[[float], None]] = []
        self._tasks: collections.deque[tuple[Callable[[], Any], Future[Any] | None]] = (
            collections.deque())
        self._wake = threading.Condition()
        self._real_time_factor = max(0.0, float(real_time_factor))
        self._paused = paused
        self._requested_steps = 0
        self._step_waiters: list[tuple[int, Future[float]]] = []
        self._stop = False
        self._thread: threading.Thread | None = None
        self._on_error = on_error or (lambda where, err: _log.exception('%s failed', where))
        self._anchor: tuple[float, float] | None = None  # (wall, sim) where pacing started
        self._while_paused = while_paused  # called about every PAUSED_PERIOD while paused
        self._last_paused_call = 0.0
        self.steps = 0
        self.errors = 0
        self.time_offset = 0.0
        """Added to ``sim.time`` in every time the loop reports (hooks, pacing, step results):
        a supervisor reset rewinds the simulation's clock, the published time keeps increasing."""

    # --- control (any thread) -------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name='physics', daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """Make the loop end after the current step (does not wait)."""
        self._stop = True

    def stop(self, timeout: float = 5.0) -> None:
        """End the loop, wait for it, and cancel what was still queued."""
        with self._wake:
            self._stop = True
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._finish()
        while self._tasks:
            _, future = self._tasks.popleft()
            if future is not None:
                future.cancel()
        for _, future in self._step_waiters:
            future.cancel()
        self._step_waiters.clear()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        with self._wake:
            self._paused = True

    def play(self) -> None:
        with self._wake:
            self._paused = False
            self._anchor = None
            self._wake.notify_all()

    @property
    def time(self) -> float:
        """The time the loop reports: ``sim.time + time_offset`` (never goes back)."""
        return self.time_offset + self.sim.time

    @property
    def real_time_factor(self) -> float:
        return self._real_time_factor

    @real_time_factor.setter
    def real_time_factor(self, value: float) -> None:
        with self._wake:
            self._real_time_factor = max(0.0, float(value))
            self._anchor = None

    @property
    def lag(self) -> float | None:
        """Wall seconds the loop is behind its schedule now (negative: ahead), i.e. now minus
        when the step after the current sim time is due; None while it does not pace (r = 0,
        paused, or before the first paced step). Read by the camera frame budget
        (:mod:`.frame_budget`) after a step."""
        anchor = self._anchor
        rtf = self._real_time_factor
        if anchor is None or rtf <= 0.0 or self._paused:
            return None
        wall0, sim0 = anchor
        return time.perf_counter() - (wall0 + (self.time - sim0) / rtf)

    @overload
    def submit(self, task: Callable[[], Any], *, want_result: Literal[True] = True) -> Future[Any]: ...
    @overload
    def submit(self, task: Callable[[], Any], *, want_result: bool) -> Future[Any] | None: ...

    def submit(self, task: Callable[[], Any], *, want_result: bool = True) -> Future[Any] | None:
        """Run ``task()`` on the physics thread before the next step (also while paused).
        Returns a Future of its result (``None`` with ``want_result=False``: fire and forget)."""
        future: Future[Any] | None = Future() if want_result else None
        self._tasks.append((task, future))  # deque.append is atomic
        if self._paused:
            with self._wake:
                self._wake.notify_all()
        return future

    def request_steps(self, count: int) -> Future[float]:
        """While paused: run ``count`` steps (with publishing) as fast as possible. The Future
        completes with the simulation time after the last of them. Playing, it fails."""
        future: Future[float] = Future()
        with self._wake:
            if not self._paused:
                future.set_exception(RuntimeError('cannot step while playing'))
                return future
            self._requested_steps += count
            self._step_waiters.append((self.steps + self._requested_steps, future))
            self._wake.notify_all()
        return future

    @property
    def stepping(self) -> bool:
        """Requested steps (:meth:`request_steps`) are still to run."""
        return self._requested_steps > 0

    def cancel_steps(self, reason: str) -> int:
        """Drop the requested steps not yet run; their Futures fail with
        :class:`StepsInterrupted`. Returns how many steps were dropped."""
        with self._wake:
            dropped = self._requested_steps
            self._requested_steps = 0
            waiters, self._step_waiters = self._step_waiters, []
        for target, future in waiters:
            future.set_exception(StepsInterrupted(reason, target - self.steps))
        return dropped

    def add_before_step(self, hook: Callable[[float], None]) -> None:
        """``hook(time)`` runs on the physics thread before each step (time = before the step)."""
        self._before_step.append(hook)

    # --- the loop (physics thread) --------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop:
            self._run_tasks()
            if not self._may_step():
                continue
            self._pace()
            self._step_once()

    def _may_step(self) -> bool:
        with self._wake:
            if self._stop:
                return False
            if not self._paused:
                return True
            if self._requested_steps > 0:
                self._requested_steps -= 1
                return True
        self._finish()
        with self._wake:
            if not (self._tasks or self._stop or self._requested_steps) and self._paused:
                self._wake.wait(IDLE_WAIT)
        self._paused_tick()
        return False

    def _paused_tick(self) -> None:
        now = time.monotonic()
        if self._while_paused is None or now - self._last_paused_call < PAUSED_PERIOD:
            return
        self._last_paused_call = now
        try:
            self._while_paused(self.time)
        except Exception as err:  # noqa: BLE001
            self._report('while_paused', err)

    def _run_tasks(self) -> None:
        tasks = self._tasks
        if tasks:
            self._settle()
        while tasks:
            task, future = tasks.popleft()
            if future is not None and not future.set_running_or_notify_cancel():
                continue
            try:
                result = task()
            except BaseException as err:  # noqa: BLE001 - handed to whoever waits for it
                if future is not None:
                    future.set_exception(err)
                else:
                    self._report('command', err)
            else:
                if future is not None:
                    future.set_result(result)

    def _pace(self) -> None:
        rtf = self._real_time_factor
        if rtf <= 0.0 or self._paused:
            self._anchor = None
            return
        now = time.perf_counter()
        sim_time = self.time
        if self._anchor is None:
            self._anchor = (now, sim_time)
            return
        wall0, sim0 = self._anchor
        due = wall0 + (sim_time - sim0) / rtf
        delay = due - now
        if delay > 0.0:
            time.sleep(delay)
        elif delay < -MAX_LAG:
            self._anchor = (now, sim_time)

    def _step_once(self) -> None:
        sim = self.sim
        before = self.time
        for hook in self._before_step:
            try:
                hook(before)
            except Exception as err:  # noqa: BLE001 - a bad hook must not stop the physics
                self._report('before_step', err)
        sim.step(1)
        self.steps += 1
        after = self.time
        try:
            self._after_step(after)
        except Exception as err:  # noqa: BLE001
            self._report('after_step', err)
        if self._step_waiters:
            self._complete_step_waiters(after)

    def _complete_step_waiters(self, sim_time: float) -> None:
        self._finish()
        with self._wake:
            done = [f for target, f in self._step_waiters if target <= self.steps]
            self._step_waiters = [(t, f) for t, f in self._step_waiters if t > self.steps]
        for future in done:
            future.set_result(sim_time)

    def _report(self, where: str, err: BaseException) -> None:
        self.errors += 1
        self._on_error(where, err)
