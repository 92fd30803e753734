"""Ctrl-C as a terminal sends it: SIGINT to the whole process group of a command, at chosen
moments after its start-up line, and what the command printed after it.

    python test/support/interrupts.py 50 scene-sim-ros run
    python test/support/interrupts.py 50 ros2 launch scene_sim_ros sim.launch.py

prints how many of the rounds printed a traceback (or hung) and their exit codes; the outputs of
those rounds go to $INTERRUPT_LOG_DIR (default: the current folder)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

READY = 'real-time factor'   # the node's first summary line: start-up is nearly done
DELAYS = (0.0, 0.3, 0.6, 0.9, 1.2)   # after READY, round by round
BAD = ('Traceback', 'Exception ignored', 'Fatal Python error', '<<hung>>')


@dataclass
class Round:
    delay: float
    returncode: int
    output: str

    @property
    def clean(self) -> bool:
        return not any(mark in self.output for mark in BAD)


def interrupt_once(argv: list[str], delay: float, *, timeout: float = 60.0,
                   env: dict[str, str] | None = None) -> Round:
    """Start ``argv`` in a new process group, send SIGINT to the group ``delay`` seconds after
    READY appears (or at ``timeout``), and wait for the end."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True, env=env)
    assert process.stdout is not None
    output, ready_at, started = '', None, time.monotonic()
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() - started < timeout:
            if ready_at is not None and time.monotonic() - ready_at >= delay:
                break
            if selector.select(timeout=0.05):
                line = process.stdout.readline()
                if not line:
                    break
                output += line
                if ready_at is None and READY in line:
                    ready_at = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    try:
        rest, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        rest, _ = process.communicate()
        rest += '\n<<hung>>'
    return Round(delay, process.returncode, output + rest)


def main(argv: list[str]) -> int:
    rounds, command = int(argv[0]), argv[1:]
    log_dir = Path(os.environ.get('INTERRUPT_LOG_DIR', '.'))
    results = [interrupt_once(command, DELAYS[i % len(DELAYS)]) for i in range(rounds)]
    for i, result in enumerate(results):
        if not result.clean:
            (log_dir / f'interrupt_{i}.log').write_text(result.output)
    bad = sum(not r.clean for r in results)
    codes = Counter(r.returncode for r in results)
    print(f'{rounds} Ctrl-C rounds of {" ".join(command)}: {bad} with a traceback or hang; '
          f'exit codes {dict(codes)}')
    return 1 if bad or set(codes) != {0} else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
