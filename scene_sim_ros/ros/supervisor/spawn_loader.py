"""Reading the entity of a spawn request in a process of its own.

A thread would keep the executor free but not the physics thread: parsing is Python work, and
each time the physics thread lets the GIL go (every publish) the parser keeps it for the
interpreter's switch interval, so a 5 MB scene stalled /clock by tens of steps. The process
(started with the node, since starting it also takes a core for a moment, then reused) runs at
a lower priority and returns the pickled Entity; one that dies on a file (out of memory, a
crash in C) is replaced by the next request.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ...scene import Entity
from . import logic

__all__ = ['BrokenProcessPool', 'SpawnLoader']


class SpawnLoader:
    """:meth:`submit` loads ``logic.load_spawn_entity(uri, text)`` in the loader process."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the loader process now rather than on the first request."""
        self._new_pool().submit(os.getpid)

    def submit(self, uri: str, text: str) -> Future[Entity]:
        if self._pool is not None:
            try:
                return self._pool.submit(logic.load_spawn_entity, uri, text)
            except BrokenProcessPool:  # the process died on an earlier file
                self._pool.shutdown(wait=False)
        return self._new_pool().submit(logic.load_spawn_entity, uri, text)

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: the node's DDS and executor threads must not be copied mid-flight
        self._pool = ProcessPoolExecutor(max_workers=1,
                                         mp_context=multiprocessing.get_context('spawn'),
                                         initializer=_background_worker)
        return self._pool

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _background_worker() -> None:
    """Parsing yields the CPU to the simulation; Ctrl-C reaches the whole process group, and
    the node stops the loader as it shuts down."""
    os.nice(10)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
