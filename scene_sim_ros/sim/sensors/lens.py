"""Lens distortion of rendered frames: the pinhole render remapped by Webots' law
(:mod:`scene_sim_ros.scene.lens`), with a map computed once per camera.

Colour is sampled bilinearly with the edge clamped, as Webots' shader samples its texture
(``WbWrenPostProcessingEffects::lensDistortion``: ``WR_TEXTURE_WRAP_MODE_CLAMP_TO_EDGE``), then
rounded to 8 bits as the RGBA8 target does. Depth differs from Webots on purpose: nearest
neighbour, so that no value is blended across a depth edge (a point between a box and the wall
behind it is on neither), and published pixels whose source lies outside the render read as no
return, where Webots would repeat the edge's depth (a surface that is not there).
"""

from __future__ import annotations

import numpy as np

from scene_sim_ros.scene.lens import source_pixels
from scene_sim_ros.scene.sensors import Lens
from scene_sim_ros.sim.sensors.remap import Bilinear


def distorts(lens: Lens | None) -> bool:
    """Whether a lens changes the image: zero coefficients leave it as rendered (any centre)."""
    return lens is not None and any(lens.radial + lens.tangential)


def nearest_source(lens: Lens, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """(columns, rows), H x W each: the pixel of the pinhole render each published pixel shows
    when sampled by nearest neighbour (the depth image's law, and the rays of its cloud)."""
    source_x, source_y = source_pixels(lens, width, height)
    return (np.rint(np.clip(source_x, 0.0, width - 1.0)).astype(np.intp),
            np.rint(np.clip(source_y, 0.0, height - 1.0)).astype(np.intp))


class LensRemap:
    """The published image of a ``width`` x ``height`` camera through ``lens``."""

    def __init__(self, lens: Lens, width: int, height: int) -> None:
        source_x, source_y = source_pixels(lens, width, height)
        self.outside = ~((source_x >= -0.5) & (source_x <= width - 0.5)
                         & (source_y >= -0.5) & (source_y <= height - 0.5))
        self.bilinear = Bilinear(source_x, source_y, width, height)
        columns, rows = nearest_source(lens, width, height)
        self.nearest = rows * width + columns

    def color(self, image: np.ndarray) -> np.ndarray:
        """H x W x C uint8 (or float) through the lens, bilinear."""
        return self.bilinear.sample(image.reshape(-1, *image.shape[2:]))

    def depth(self, depth: np.ndarray, no_return: float) -> np.ndarray:
        """H x W depth through the lens, nearest neighbour; ``no_return`` where the lens looks
        beyond the rendered frame."""
        out = depth.reshape(-1)[self.nearest]
        out[self.outside] = no_return
        return out
