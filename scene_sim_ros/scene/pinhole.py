"""The pixel geometry of the scene model's image sensors: which ray each pixel shows.

A ``width`` x ``height`` image sensor with opening angles ``fov_x``, ``fov_y`` is a pinhole camera
with the intrinsics :func:`pinhole_intrinsics` gives. Both renderers draw exactly this (checked
by ``test/sim/sensors/test_gl_depth.py``, which casts these rays), and everything that turns
pixels back into rays takes it from here: the ROS ``camera_info``, the depth clouds, the lens
model's fit (:mod:`.lens`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Intrinsics:
    """Pinhole parameters of a rendered image, in pixel coordinates whose integers are pixel
    centres (OpenCV's and CameraInfo's convention)."""

    fx: float
    fy: float
    cx: float
    cy: float


def pinhole_intrinsics(width: int, height: int, fov_x: float, fov_y: float) -> Intrinsics:
    """The intrinsics of the images the renderers draw: fx = w / (2 tan(fov_x / 2)) (and fy
    likewise), principal point at (w / 2, h / 2 - 1).

    Not the image centre ((w - 1) / 2, (h - 1) / 2): both renderers sample each pixel at its
    left, bottom corner, not its centre (TinyRenderer does; the GL renderer shifts its projection
    by half a pixel to match it, ``sim.render.renderer._corner_sampled``). Column j of an image w
    wide then looks along x/z = (2 j / w - 1) tan(fov_x / 2) = (j - w / 2) / fx, and row r
    (counted from the top) along y/z = (2 (r + 1) / h - 1) tan(fov_y / 2) = (r - (h / 2 - 1)) / fy
    (``test/sim/sensors/test_gl_depth.py`` casts these rays). With the centre instead, a point
    5 m away, seen at 320 px over 1 rad, would be off sideways by half a pixel: 8.5 mm."""
    fx = width / (2.0 * math.tan(fov_x / 2.0))
    fy = height / (2.0 * math.tan(fov_y / 2.0))
    return Intrinsics(fx, fy, width / 2.0, height / 2.0 - 1.0)


