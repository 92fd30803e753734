"""Webots-style additive gaussian noise, off when the standard deviation is 0.

Every draw comes from the simulation's own generator (``sim.rng``), so a seeded simulation
reproduces its noisy readings exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def add_gaussian(rng: np.random.Generator, values: Any, stddev: float) -> Any:
    """``values`` (a float or an array) plus N(0, stddev); non-finite entries stay untouched."""
    if stddev <= 0.0:
        return values
    if np.isscalar(values):
        value: Any = values  # np.isscalar narrows to every numpy scalar type, str and bytes included
        return value + rng.normal(0.0, stddev) if np.isfinite(value) else value
    array = np.asarray(values)
    noisy = array + rng.normal(0.0, stddev, array.shape).astype(array.dtype)
    return np.where(np.isfinite(array), noisy, array)


def add_color_noise(rng: np.random.Generator, image: np.ndarray, stddev: float) -> np.ndarray:
    """A uint8 image plus N(0, stddev) in intensity units (0..1), clipped to 0..255."""
    if stddev <= 0.0:
        return image
    noisy = image + rng.normal(0.0, stddev * 255.0, image.shape)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)
