"""The cyclic garbage collector paused while a scene is read."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Reading allocates many small objects and few garbage cycles: the cyclic collector would
    walk the growing trees and token lists again and again (half the time of loading 50,000 XML
    elements or a large Webots world)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
