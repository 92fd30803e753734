"""Reading the entity of a spawn request in a process of its own.

A thread would keep the executor free but not the physics thread: parsing is Python work, and
each time the physics thread lets the GIL go (every publish) the parser keeps it for the
interpreter's switch interval, so a 5 MB scene stalled /clock by tens of steps. The process
(started on the first spawn, then reused) returns the pickled Entity; one that dies on a file
(out of memory, a crash in C) is replaced by the next request.
"""

from __future__ import annotations

import multiprocessing
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

    def submit(self, uri: str, text: str) -> Future[Entity]:
        if self._pool is not None:
            try:
                return self._pool.submit(logic.load_spawn_entity, uri, text)
            except BrokenProcessPool:  # the process died on an earlier file
                self._pool.shutdown(wait=False)
        # spawn, not fork: the node's DDS and executor threads must not be copied mid-flight
        self._pool = ProcessPoolExecutor(max_workers=1,
                                         mp_context=multiprocessing.get_context('spawn'),
                                         initializer=_leave_sigint_to_the_node)
        return self._pool.submit(logic.load_spawn_entity, uri, text)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _leave_sigint_to_the_node() -> None:
    """Ctrl-C reaches the whole process group; the node stops the loader as it shuts down."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
