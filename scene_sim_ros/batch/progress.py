"""The progress line: runs done and failed, running, elapsed and ETA.

On a terminal it rewrites one line; otherwise (logs, CI) it prints a line per finished run.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f'{hours}:{rest // 60:02d}:{rest % 60:02d}' if hours else f'{rest // 60}:{rest % 60:02d}'


class Progress:
    def __init__(self, total: int, skipped: int, stream: TextIO | None = None,
                 enabled: bool = True):
        self.total = total
        self.skipped = skipped
        self.done = 0
        self.failed = 0
        self.retried = 0
        self.running = 0
        self.started = time.monotonic()
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.live = enabled and self.stream.isatty()
        self._last = ''

    def line(self) -> str:
        finished = self.done + self.failed
        elapsed = time.monotonic() - self.started
        remaining = self.total - self.skipped - finished
        eta = clock(elapsed / finished * remaining) if finished and remaining else '-'
        parts = [f'{self.skipped + self.done}/{self.total} done']
        if self.skipped:
            parts.append(f'{self.skipped} skipped')
        parts += [f'{self.failed} failed', f'{self.running} running']
        if self.retried:
            parts.append(f'{self.retried} retries')
        return f'batch: {", ".join(parts)}, {clock(elapsed)} elapsed, ETA {eta}'

    def show(self, final: bool = False) -> None:
        if not self.enabled:
            return
        text = self.line()
        if self.live:
            self.stream.write('\r\033[K' + text + ('\n' if final else ''))
        elif text != self._last or final:
            changed = text.split(',')[:4] != self._last.split(',')[:4]
            if changed or final:
                self.stream.write(text + '\n')
        self._last = text
        self.stream.flush()
