"""Webots' non-planar camera projections, ``"spherical"`` and ``"cylindrical"``, built from
perspective renders: the published image is a remap (computed once per camera) of up to six
90-degree views along the sensor's axes, rendered through the shared render cache.

Webots does the same: a spherical camera renders up to six sub-cameras, front, right, back,
left, up and down (``src/webots/wren/WbWrenCamera.cpp``: ``setupSphericalSubCameras`` activates
them, ``setCamerasOrientations`` turns them, ``setFieldOfView`` keeps each at most pi/2 wide),
and merges them in ``resources/wren/shaders/merge_spherical.frag`` (lines 37-62), where the
published pixel at texture coordinate (u, v) (0..1 across the image, v down) shows the
direction, in the sensor frame (x forward, y left, z up):

- cylindrical (lines 40-51): azimuth ``(0.5 - u) fov_x`` and polar angle from +z
  ``(v - 0.5) fov_y / c + pi/2``, where Webots' ``fov_y = fov_x h / w`` times ``c`` (the
  "correction coefficient", 1.27 or 1, ``setupSphericalSubCameras``): c cancels, so rows and
  columns are both ``fov_x / w`` apart in angle and the vertical field of view is
  ``fov_x h / w``;
- spherical (lines 52-62, a fisheye): ``d = (u, v) - 0.5``; the angle off the optical axis is
  ``|d| fov_x`` (so ``fov_x`` up to 2 pi: the image's inscribed circle sees straight behind),
  around the axis in the direction of ``d``: right for +u, down for +v. ``d`` is in texture
  units: on a non-square image the fisheye is elliptical, as in Webots.

Here each direction is looked up in the cube face it points into (the largest component) and
sampled bilinearly there (:class:`ProjectionRemap`); the faces are square and rendered with at least the
published image's angular resolution (Webots' rule: ``ceil(2 / tan(fov_x / w))`` pixels,
bounded to 2048). Webots' own merge picks faces with a vertical scaling and sub-cameras narrower
than 90 degrees where the field of view is small; those change which render a pixel is read
from, not the direction it shows. Webots adds the colour noise to each sub-camera before the
merge (``WbWrenCamera::setupCameraPostProcessing`` per sub-camera); here it is added to the
merged image, per published pixel, with the same standard deviation.
"""

from __future__ import annotations

import math

import numpy as np

from scene_sim_ros.scene.pinhole import pinhole_intrinsics
from scene_sim_ros.scene.transforms import Pose, quat_from_matrix
from scene_sim_ros.sim.sensors.remap import Bilinear

PROJECTIONS = ('planar', 'spherical', 'cylindrical')
MAX_FACE_PIXELS = 2048

# cube faces: (forward, left, up) of each 90-degree view, in the sensor frame
FACES = {
    'front': ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    'left': ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    'back': ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    'right': ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
    'up': ((0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    'down': ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
}


def directions(projection: str, width: int, height: int, fov_x: float) -> np.ndarray:
    """Unit directions (H x W x 3, sensor frame) each published pixel shows, Webots' law."""
    u = (np.arange(width, dtype=np.float64) + 0.5) / width
    v = (np.arange(height, dtype=np.float64) + 0.5) / height
    uu, vv = np.meshgrid(u, v)
    if projection == 'cylindrical':
        azimuth = (0.5 - uu) * fov_x
        elevation = (0.5 - vv) * fov_x * height / width
        return np.stack([np.cos(elevation) * np.cos(azimuth),
                         np.cos(elevation) * np.sin(azimuth), np.sin(elevation)], axis=-1)
    if projection != 'spherical':
        raise ValueError(f'unknown camera projection {projection!r}; expected one of '
                         f'{PROJECTIONS}')
    dx, dy = uu - 0.5, vv - 0.5
    radius = np.hypot(dx, dy)
    off_axis = radius * fov_x
    scale = np.sin(off_axis) / np.where(radius > 0.0, radius, 1.0)
    return np.stack([np.cos(off_axis), -scale * dx, -scale * dy], axis=-1)


def face_pixels(fov_x: float, width: int) -> int:
    """The side of each cube face render: Webots' ``ceil(2 / tan(fov_x / w))``, 1..2048."""
    pitch = min(fov_x / width, math.pi / 4)
    return max(1, min(MAX_FACE_PIXELS, math.ceil(2.0 / math.tan(pitch))))


def face_geometry(fov_x: float, width: int) -> tuple[int, float]:
    """Side (pixels) and opening angle (rad, both ways) of each face render: a 90-degree face of
    :func:`face_pixels` with one more pixel on each side (see :func:`face_coordinates`)."""
    inner = face_pixels(fov_x, width)
    return inner + 2, 2.0 * math.atan((inner + 2) / inner)


def face_coordinates(rays: np.ndarray, size: int,
                     fov: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where directions (... x 3, sensor frame) fall on the cube-face renders: the index into
    :data:`FACES` of the face each points into (its largest component) and the (column, row)
    there, pixel centres at integers.

    A face render shows the rays :func:`~scene_sim_ros.scene.pinhole.pinhole_intrinsics` gives
    (principal point (n / 2, n / 2 - 1): the renderers sample pixels at their left, bottom
    corner), so (left, up) / forward falls at column ``cx - fx left``, row ``cy - fy up``. With
    :func:`face_geometry`'s margin every direction up to the cube's edges (|left|, |up| <= 1)
    lands at least one pixel inside the face, bilinear neighbours included."""
    k = pinhole_intrinsics(size, size, fov, fov)
    axes = np.array([FACES[name] for name in FACES], dtype=np.float64)  # face, axis, xyz
    face = np.argmax(rays @ axes[:, 0].T, axis=-1)
    chosen = axes[face]  # ... x 3 (axis) x 3
    depth = np.einsum('...k,...k->...', rays, chosen[..., 0, :])
    left = np.einsum('...k,...k->...', rays, chosen[..., 1, :]) / depth
    up = np.einsum('...k,...k->...', rays, chosen[..., 2, :]) / depth
    return face, k.cx - k.fx * left, k.cy - k.fy * up


class ProjectionRemap:
    """Where each published pixel of a non-planar camera samples the cube-face renders
    (:func:`face_coordinates`), bilinear; only the faces some pixel looks into are rendered."""

    def __init__(self, projection: str, width: int, height: int, fov_x: float) -> None:
        self.size, self.fov = face_geometry(fov_x, width)
        face, column, row = face_coordinates(directions(projection, width, height, fov_x),
                                             self.size, self.fov)
        used = np.unique(face)
        self.faces = [list(FACES)[i] for i in used]
        base = np.searchsorted(used, face) * self.size * self.size
        self.bilinear = Bilinear(column, row, self.size, self.size, base)

    def views(self, sensor_pose: Pose) -> list[Pose]:
        """The world poses of the face renders :meth:`color` expects, in order."""
        return [sensor_pose * Pose((0.0, 0.0, 0.0), quat_from_matrix(
            np.array(FACES[name], dtype=np.float64).T.tolist())) for name in self.faces]

    def color(self, renders: list[np.ndarray]) -> np.ndarray:
        """H x W x 3 uint8 from the face renders (each size x size x 3, ``fov`` wide), bilinear."""
        return self.bilinear.sample(np.concatenate([r.reshape(-1, r.shape[-1]) for r in renders]))
