"""Helpers for comparing rendered images."""

from __future__ import annotations

import numpy as np


def interior(mask: np.ndarray) -> np.ndarray:
    """Pixels whose 3x3 neighbourhood shows one id (edges are where rasterisers may differ)."""
    same = np.ones(mask.shape, dtype=bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            same &= np.roll(mask, (dy, dx), (0, 1)) == mask
    return same
