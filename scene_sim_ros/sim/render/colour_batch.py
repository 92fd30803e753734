"""A batched round of colour views, drawn now and read back later
(:meth:`.renderer.GlRenderer.draw_colour`).

The views of a round are drawn into one atlas framebuffer and flushed; llvmpipe rasterises
them while the caller goes on. Their pixels are read back on the first :meth:`ColourBatch.image`
call, on whichever thread makes it (the node's frame lane, while the physics thread steps), or
at the latest before the atlas is drawn again (:func:`finish_colour_batch`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scene_sim_ros.sim.render.context import gl_current, read_rgb

_pending: list[ColourBatch] = []  # the last batch drawn and not read back yet (at most one)


class ColourBatch:
    """The views of one drawn batch (:meth:`GlRenderer.draw_colour`), read back from the
    atlas on the first :meth:`image` (without the GIL: :func:`.context.read_rgb`) by whichever
    thread asks first, under the context's lock."""

    def __init__(self, fbo: Any, size: tuple[int, int],
                 boxes: list[tuple[int, int, int, int]]) -> None:
        self._fbo, self._size, self._boxes = fbo, size, boxes
        self._images: list[np.ndarray] | None = None if boxes else []
        self._parts: tuple[ColourBatch, ColourBatch, int] | None = None

    @classmethod
    def joined(cls, first: ColourBatch, second: ColourBatch, split: int) -> ColourBatch:
        """The views of ``first`` then those of ``second`` (which starts at view ``split``)."""
        batch = cls(None, (0, 0), [])
        batch._parts = (first, second, split)
        return batch

    def image(self, index: int) -> np.ndarray:
        """RGB of view ``index`` (HxWx3 uint8, a read-only view of the atlas)."""
        if self._parts is not None:
            first, second, split = self._parts
            return first.image(index) if index < split else second.image(index - split)
        if self._images is None:
            with gl_current():
                if self._images is None:
                    atlas = read_rgb(*self._size, framebuffer=self._fbo.glo)
                    atlas.flags.writeable = False  # shared by the views: readers copy it
                    self._images = [atlas[y:y + h, x:x + w][::-1]
                                    for x, y, w, h in self._boxes]
                    if self in _pending:
                        _pending.remove(self)
        return self._images[index]


def finish_colour_batch() -> None:
    """Read back the last drawn batch if nobody has yet (before the atlas is drawn again)."""
    if _pending:
        _pending[0].image(0)


def drawn(batch: ColourBatch) -> ColourBatch:
    """``batch``, just drawn: the one :func:`finish_colour_batch` reads back."""
    _pending[:] = [batch]
    return batch
