"""Resampling a rendered image at fractional pixel positions, with the taps computed once.

The lens (:mod:`.lens`) and the non-planar projections (:mod:`.projection`) publish images whose
pixels show other points of one or more renders than the pixels there: each builds a
:class:`Bilinear` from where its published pixels sample, once per camera.
"""

from __future__ import annotations

import numpy as np


class Bilinear:
    """Bilinear samples of a flat stack of images: ``columns``/``rows`` (any shape, pixel
    centres at integers) in an image ``width`` x ``height`` that starts at flat pixel ``base``
    (0 for one image; several renders concatenated give each pixel its image's offset). Positions
    are clamped to the image's pixel centres, as a texture sampled with its edge clamped."""

    def __init__(self, columns: np.ndarray, rows: np.ndarray, width: int, height: int,
                 base: np.ndarray | int = 0) -> None:
        x = np.clip(columns, 0.0, width - 1.0)
        y = np.clip(rows, 0.0, height - 1.0)
        x0 = np.minimum(np.floor(x), max(width - 2, 0)).astype(np.intp)
        y0 = np.minimum(np.floor(y), max(height - 2, 0)).astype(np.intp)
        x1, y1 = np.minimum(x0 + 1, width - 1), np.minimum(y0 + 1, height - 1)
        wx, wy = (x - x0).astype(np.float32), (y - y0).astype(np.float32)
        top, bottom = base + y0 * width, base + y1 * width
        self.taps = [top + x0, top + x1, bottom + x0, bottom + x1]
        self.weights = [(1 - wx) * (1 - wy), wx * (1 - wy), (1 - wx) * wy, wx * wy]

    def sample(self, flat: np.ndarray) -> np.ndarray:
        """Samples of ``flat`` (pixels x channels, or pixels), rounded to uint8 for uint8 input
        (as an RGBA8 render target stores them)."""
        shape = self.taps[0].shape + flat.shape[1:]
        total = np.zeros(shape, dtype=np.float32)
        for taps, weights in zip(self.taps, self.weights):
            total += flat[taps] * (weights[..., None] if flat.ndim == 2 else weights)
        if flat.dtype == np.uint8:
            return np.clip(np.rint(total), 0, 255).astype(np.uint8)
        return total.astype(flat.dtype)
