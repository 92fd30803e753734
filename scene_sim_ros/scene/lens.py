"""Webots' lens distortion law and its best OpenCV ``plumb_bob`` equivalent.

Webots renders the ideal pinhole image, then a post-processing pass distorts it
(``resources/wren/shaders/lens_distortion.frag``, lines 15-30): each *published* pixel at texture
coordinate ``uv`` (0..1 across the image in x and in y, whatever its aspect; the camera renders
with ``flip_y`` (``src/webots/wren/WbWrenCamera.cpp``, ``setupCamera``) so that v runs down the
image, like the published rows) samples the ideal image at::

    rel = uv - center;  r2 = |rel|^2
    delta = rel (k1 r2 + k2 r2^2) + (2 p1 x y + p2 (r2 + 2 x^2), p1 (r2 + 2 y^2) + 2 p2 x y)
    source = uv - delta / (1 + 4 k1 r2 + 6 k2 r2^2 + 8 p1 y + 8 p2 x)

i.e. Heikkila's approximate inverse of Brown's model ("an inverted Brown's distortion model",
frag line 17), bilinear and clamped to the edge (``WbWrenPostProcessingEffects::lensDistortion``
sets ``WR_TEXTURE_WRAP_MODE_CLAMP_TO_EDGE``). So Webots' law maps published (distorted) pixels to
ideal (undistorted) ones, the *inverse* direction of OpenCV's model, and it is radial in texture
coordinates, not in focal-length-normalised ones: for a non-square image its distortion is
elliptical in angle, which no radial model (OpenCV's plumb_bob) expresses exactly.
:func:`plumb_bob` therefore fits D (and the principal point) by linear least squares to the law
over the published pixels that see the rendered frame, and reports the residual: about 0.02 px
for a square 256x256 image with k1 = -0.3, 3.1 px at 320x240 (the largest misfit is in
the corners; :attr:`PlumbBob.max_residual` states it for each camera).

Pixel coordinates here follow OpenCV: integers are pixel centres, ``uv = (pixel + 0.5) / size``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pinhole import pinhole_intrinsics
from .sensors import Lens


def source_pixels(lens: Lens, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each published pixel (H x W) samples the ideal pinhole image, in pixels."""
    uv_x, uv_y = _pixel_uv(width, height)
    shift_x, shift_y, denominator = _shift(lens, uv_x - lens.center[0], uv_y - lens.center[1])
    return ((uv_x - shift_x / denominator) * width - 0.5,
            (uv_y - shift_y / denominator) * height - 0.5)


def fold(lens: Lens, width: int, height: int) -> tuple[int, int] | None:
    """The first published pixel (column, row) where Webots' law is not one-to-one (its
    denominator or its Jacobian's determinant is not positive: the image folds over or tears),
    or None where the law is a proper warp of the whole image."""
    uv_x, uv_y = _pixel_uv(width, height)
    _, _, denominator = _shift(lens, uv_x - lens.center[0], uv_y - lens.center[1])
    source_x, source_y = source_pixels(lens, width, height)
    bad = ~(denominator > 0.0)
    if width > 1 and height > 1:
        dxx, dxy = np.gradient(source_x, axis=1), np.gradient(source_x, axis=0)
        dyx, dyy = np.gradient(source_y, axis=1), np.gradient(source_y, axis=0)
        bad |= ~(dxx * dyy - dxy * dyx > 0.0)
    rows, columns = np.nonzero(bad)
    return (int(columns[0]), int(rows[0])) if rows.size else None


@dataclass(frozen=True, slots=True)
class PlumbBob:
    """OpenCV's camera model of the published image: K = (fx, fy, cx, cy), D = (k1, k2, p1, p2,
    k3), and the largest distance (px) between where it and Webots' law put a pixel."""

    fx: float
    fy: float
    cx: float
    cy: float
    d: tuple[float, float, float, float, float]
    max_residual: float


def ideal(width: int, height: int, fov_x: float, fov_y: float) -> PlumbBob:
    """The pinhole camera the renderers draw (:func:`.pinhole.pinhole_intrinsics`), no
    distortion."""
    k = pinhole_intrinsics(width, height, fov_x, fov_y)
    return PlumbBob(k.fx, k.fy, k.cx, k.cy, (0.0,) * 5, 0.0)


def plumb_bob(lens: Lens | None, width: int, height: int, fov_x: float,
              fov_y: float) -> PlumbBob:
    """The plumb_bob model closest (least squares, pixels) to Webots' law for this camera.

    OpenCV projects a direction (x, y) = (X/Z, Y/Z) to ``fx * distort(x, y) + cx``; the law says
    the published pixel ``p`` shows the direction ``(source(p) - c0) / f`` of the pinhole render.
    For each published pixel whose source lies in the rendered frame that is one equation,
    linear in (k1, k2, p1, p2, k3, cx, cy) with fx, fy those of the render (distortion leaves the
    magnification at the centre alone). Zero coefficients give the ideal camera exactly."""
    pinhole = ideal(width, height, fov_x, fov_y)
    if lens is None or not any(lens.radial + lens.tangential):
        return pinhole
    source_x, source_y = source_pixels(lens, width, height)
    seen = ((source_x >= -0.5) & (source_x <= width - 0.5)
            & (source_y >= -0.5) & (source_y <= height - 0.5))
    rows, columns = np.nonzero(seen)
    x = (source_x[seen] - pinhole.cx) / pinhole.fx
    y = (source_y[seen] - pinhole.cy) / pinhole.fy
    r2 = x * x + y * y
    zero, one = np.zeros_like(x), np.ones_like(x)
    fx, fy = pinhole.fx, pinhole.fy
    a = np.concatenate([
        np.stack([fx * x * r2, fx * x * r2 ** 2, fx * 2 * x * y, fx * (r2 + 2 * x * x),
                  fx * x * r2 ** 3, one, zero], axis=-1),
        np.stack([fy * y * r2, fy * y * r2 ** 2, fy * (r2 + 2 * y * y), fy * 2 * x * y,
                  fy * y * r2 ** 3, zero, one], axis=-1)])
    b = np.concatenate([columns - fx * x, rows - fy * y])
    solution = np.linalg.lstsq(a, b, rcond=None)[0]
    error = (a @ solution - b).reshape(2, -1)
    k1, k2, p1, p2, k3, cx, cy = (float(v) for v in solution)
    return PlumbBob(fx, fy, cx, cy, (k1, k2, p1, p2, k3),
                    float(np.hypot(error[0], error[1]).max()))


def _pixel_uv(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Texture coordinates of the pixel centres (a fragment's ``texUv``), H x W each."""
    u = (np.arange(width, dtype=np.float64) + 0.5) / width
    v = (np.arange(height, dtype=np.float64) + 0.5) / height
    uv_x, uv_y = np.meshgrid(u, v)
    return uv_x, uv_y


def _shift(lens: Lens, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """The law's numerator (x and y) and denominator at ``rel = (x, y)`` (frag lines 19-28)."""
    k1, k2 = lens.radial
    p1, p2 = lens.tangential
    r2 = x * x + y * y
    radial = k1 * r2 + k2 * r2 * r2
    shift_x = radial * x + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    shift_y = radial * y + 2.0 * p2 * x * y + p1 * (r2 + 2.0 * y * y)
    denominator = 4.0 * k1 * r2 + 6.0 * k2 * r2 * r2 + 8.0 * p1 * y + 8.0 * p2 * x + 1.0
    return shift_x, shift_y, denominator
