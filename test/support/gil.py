"""Whether a call lets other Python threads run: with a switch interval of 10 s, a waiting
thread gets the GIL only where the calling thread releases it (a blocking or GIL-free call).

    assert other_thread_runs(lambda: pb.stepSimulation(physicsClientId=client)) == 0
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable


def other_thread_runs(call: Callable[[], object], times: int = 300) -> int:
    """How often a spinning thread ran while ``call()`` was made ``times`` times."""
    counter, stop = [0], threading.Event()

    def spin() -> None:
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # gives the GIL back, so the calling thread never waits 10 s for it

    interval = sys.getswitchinterval()
    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    sys.setswitchinterval(10.0)
    try:
        before = counter[0]
        for _ in range(times):
            call()
        return counter[0] - before
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        spinner.join()
