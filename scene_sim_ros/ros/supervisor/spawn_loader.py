"""Reading the entity of a spawn request in a process of its own.

A thread would keep the executor free but not the physics thread: parsing is Python work, and
each time the physics thread lets the GIL go (every publish) the parser keeps it for the
interpreter's switch interval, so a 5 MB scene stalled /clock by tens of steps. The process
(started with the node, since starting it also takes a core for a moment, then reused) runs at
a lower priority and returns the pickled Entity; one that dies on a file (out of memory, a
crash in C) is replaced by the next request.

Ctrl-C in a terminal signals the whole process group, the loader too, which the node's
shutdown ends anyway. :func:`prestart` starts it before ROS installs its signal handlers, with
SIGINT ignored (an ignored signal stays ignored across exec, and Python keeps it so): an
interrupt during its imports then cannot print a traceback. Once running it ignores SIGINT.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from scene_sim_ros.ros.supervisor import logic
from scene_sim_ros.scene import Entity

__all__ = ['BrokenProcessPool', 'SpawnLoader', 'discard_prestarted', 'prestart']

T = TypeVar('T')

_prestarted: ProcessPoolExecutor | None = None


def prestart() -> None:
    """Start the loader process now, from the main thread, before ``rclpy.init``; the next
    :meth:`SpawnLoader.start` takes it."""
    global _prestarted
    if _prestarted is not None or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _prestarted = _new_pool()
        _prestarted.submit(os.getpid)   # the process starts here (the spawn start method)
    finally:
        signal.signal(signal.SIGINT, previous)


def discard_prestarted() -> None:
    """Stop a prestarted loader no node took (the node failed to start)."""
    global _prestarted
    if _prestarted is not None:
        _stop(_prestarted)
        _prestarted = None


class SpawnLoader:
    """:meth:`submit` loads ``logic.load_spawn_entity(uri, text)`` in the loader process;
    :meth:`run` runs any picklable function there (a world to load, worlds to describe)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the loader process now rather than on the first request (or take the one
        :func:`prestart` started)."""
        global _prestarted
        if _prestarted is not None:
            self._pool, _prestarted = _prestarted, None
            return
        self._pool = _new_pool()
        self._pool.submit(os.getpid)

    def submit(self, uri: str, text: str) -> Future[Entity]:
        return self.run(logic.load_spawn_entity, uri, text)

    def run(self, function: Callable[..., T], *args: Any) -> Future[T]:
        if self._pool is not None:
            try:
                return self._pool.submit(function, *args)
            except BrokenProcessPool:  # the process died on an earlier file
                _stop(self._pool)
        self._pool = _new_pool()
        return self._pool.submit(function, *args)

    def shutdown(self) -> None:
        if self._pool is not None:
            _stop(self._pool)
            self._pool = None


def _new_pool() -> ProcessPoolExecutor:
    # spawn, not fork: the node's DDS and executor threads must not be copied mid-flight
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context('spawn'),
                               initializer=_background_worker)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End the loader process at once, then the pool, waiting for its thread: one left running
    races the interpreter's exit hook on a closed pipe (Python 3.11: 'OSError: Bad file
    descriptor' at exit)."""
    terminate = getattr(pool, 'terminate_workers', None)   # Python >= 3.14
    if terminate is not None:
        terminate()
    else:
        for process in list((getattr(pool, '_processes', None) or {}).values()):
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _background_worker() -> None:
    """Parsing yields the CPU to the simulation; Ctrl-C reaches the whole process group, and
    the node stops the loader as it shuts down."""
    os.nice(10)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
