"""Where each view of a batched round goes in one framebuffer (a texture atlas of viewports).

Shelf packing: views sorted by height, placed left to right in rows ("shelves") no wider than
``max_width``; each row as high as its tallest view. The game's 14 x 640x480 + 14 x 320x240
pack into a 2560 x 2400 atlas (rows of four 640x480, the last one filled up with four 320x240,
then rows of eight 320x240), 87.5 % of it used.
"""

from __future__ import annotations

from collections.abc import Sequence

ATLAS_WIDTH = 2560
"""Widest row; llvmpipe and every desktop GPU take framebuffers of 8192 or more."""

MAX_HEIGHT = 4096
"""Highest atlas drawn as one batch (2560 x 4096 RGBA8 + depth: 84 MB); more views are drawn
as several batches."""


def shelf_layout(sizes: Sequence[tuple[int, int]], max_width: int = ATLAS_WIDTH
                 ) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """``(x, y)`` of each ``(width, height)`` in ``sizes`` (in their order) and the atlas size.
    A view wider than ``max_width`` gets a row of its own."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i][1], -sizes[i][0]))
    positions: list[tuple[int, int]] = [(0, 0)] * len(sizes)
    x = y = row_height = width = 0
    for i in order:
        w, h = sizes[i]
        if x > 0 and x + w > max_width:
            y += row_height
            x = row_height = 0
        positions[i] = (x, y)
        x += w
        row_height = max(row_height, h)
        width = max(width, x)
    return positions, (width, y + row_height)
