"""Depth images and lidar ranges to 3-D points, and RGB-D registration: engine-neutral numpy,
no ROS.

Each pixel's ray is the scene model's (:mod:`scene_sim_ros.scene.pinhole`, which the ROS
``camera_info`` states too), seen through the sensor's lens where it has one
(:func:`sensor_rays`).

Points are in the optical frame (x right, y down, z forward) and follow depth_image_proc's
``convertDepth`` (ros-perception/image_pipeline, depth_image_proc/include/depth_image_proc/
conversions.hpp: ``x = (u - cx) * depth / fx``, ``y = (v - cy) * depth / fy``, ``z = depth``,
NaN where the depth is not valid). Layouts follow ``PointCloud2Modifier::
setPointCloud2FieldsByString`` (ros2/common_interfaces, sensor_msgs/include/sensor_msgs/impl/
point_cloud2_iterator.hpp), which depth_image_proc's point_cloud_xyz(rgb) use: "xyz" is x, y, z
float32 and 4 bytes of padding (point_step 16); "xyz", "rgb" puts a float32 ``rgb`` at offset 16
followed by 12 bytes of padding (point_step 32). ``convertRgb`` (depth_image_proc/src/
conversions.cpp) writes the bytes r, g, b through iterators named "r", "g", "b" into that field,
which on a little-endian message is the uint32 ``0x00RRGGBB``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scene_sim_ros.scene.pinhole import Intrinsics, pinhole_intrinsics
from scene_sim_ros.scene.transforms import matrix_from_quat
from scene_sim_ros.sim.sensors.lens import distorts, nearest_source

XYZ = np.dtype({'names': ['x', 'y', 'z'], 'formats': ['<f4'] * 3, 'offsets': [0, 4, 8],
                'itemsize': 16})
"""depth_image_proc's point_cloud_xyz layout (point_step 16)."""

XYZRGB = np.dtype({'names': ['x', 'y', 'z', 'rgb'], 'formats': ['<f4'] * 4,
                   'offsets': [0, 4, 8, 16], 'itemsize': 32})
"""depth_image_proc's point_cloud_xyzrgb layout (``rgb`` at 16, point_step 32)."""

FOV_MATCH = 1e-6
"""Radians by which two opening angles may differ and still make a registered RGB-D pair
(parsers round degrees to radians differently; a real difference is far larger)."""

POSE_MATCH = 1e-6
"""Quaternion components by which two mount orientations may differ in a pair (and metres
between optical centres that count as one)."""

HIDDEN_MARGIN = 0.05
"""How much farther (a share of the distance) than the nearest point seen at a colour pixel a
point must be to count as hidden there: neighbouring points of one surface that fall on one
pixel differ by less (a floor seen at a grazing angle 5 m away: about 3 %)."""

MAX_BASELINE = 0.1
"""Metres between the optical centres of an RGB-D pair at most (Webots' Kinect: 2.54 cm; RGB-D
devices are a few centimetres wide; a stereo rig of two cameras further apart is no pair)."""


def sensor_intrinsics(sensor: Any) -> Intrinsics:
    """:func:`~scene_sim_ros.scene.pinhole.pinhole_intrinsics` of an image sensor of the scene
    model."""
    return pinhole_intrinsics(sensor.width, sensor.height, sensor.fov_x, sensor.fov_y)


@dataclass(frozen=True, slots=True)
class PixelRays:
    """Each pixel's ray in the optical frame as x/z (``right``) and y/z (``down``), float32
    arrays that broadcast to the image's (H, W)."""

    right: np.ndarray
    down: np.ndarray


def pinhole_rays(k: Intrinsics, width: int, height: int) -> PixelRays:
    """The rays of a pinhole image: one per column and one per row."""
    right = (np.arange(width, dtype=np.float32) - np.float32(k.cx)) / np.float32(k.fx)
    down = (np.arange(height, dtype=np.float32) - np.float32(k.cy)) / np.float32(k.fy)
    return PixelRays(right[np.newaxis, :], down[:, np.newaxis])


def sensor_rays(sensor: Any) -> PixelRays:
    """The rays of a perspective image sensor's published pixels: the pinhole's, or through a
    distorting lens those of the render pixel each published pixel shows (nearest neighbour,
    as :class:`~.lens.LensRemap` samples depth), so that a cloud of a distorted depth image
    lies where the undistorted one does."""
    k = sensor_intrinsics(sensor)
    rays = pinhole_rays(k, sensor.width, sensor.height)
    lens = getattr(sensor, 'lens', None)
    if lens is None or not distorts(lens):
        return rays
    columns, rows = nearest_source(lens, sensor.width, sensor.height)
    return PixelRays(rays.right[0, columns], rays.down[rows, 0])


def unproject(depth: np.ndarray, rays: PixelRays, points: np.ndarray | None = None
              ) -> np.ndarray:
    """(H, W) structured points (:data:`XYZ`, or ``points``' dtype with fields x, y, z, filled in
    place where its shape is the depth's) from an (H, W) depth image along the optical axis
    (metres) and its pixels' ``rays``; NaN x, y, z where the depth is not finite (REP-118's
    +inf/-inf: no return, too close)."""
    height, width = depth.shape
    if points is None or points.shape != depth.shape:
        points = np.zeros((height, width), dtype=XYZ)  # zeros: the padding
    z = np.asarray(depth, dtype=np.float32)
    z = np.where(np.isfinite(z), z, np.float32(np.nan))
    np.multiply(z, rays.right, out=points['x'])
    np.multiply(z, rays.down, out=points['y'])
    points['z'] = z
    return points


def pack_rgb(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) uint8 colours -> (...) float32 whose bytes are the uint32 0x00RRGGBB
    (depth_image_proc's ``rgb`` field)."""
    c = rgb.astype(np.uint32)
    return ((c[..., 0] << 16) | (c[..., 1] << 8) | c[..., 2]).view(np.float32)


def unpack_rgb(packed: np.ndarray) -> np.ndarray:
    """The inverse of :func:`pack_rgb`: (...) float32 -> (..., 3) uint8."""
    c = np.ascontiguousarray(packed, dtype=np.float32).view(np.uint32)
    return np.stack([(c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF], axis=-1).astype(np.uint8)


@dataclass(frozen=True, slots=True)
class Registration:
    """How the points of a depth camera find their colours in its RGB-D partner: both cameras'
    intrinsics and the colour camera's optical centre in the depth camera's optical frame
    (``baseline``, metres; the two look the same way, :func:`rgbd_partner`)."""

    k_depth: Intrinsics
    k_colour: Intrinsics
    baseline: tuple[float, float, float]

    @staticmethod
    def of(depth_camera: Any, camera: Any) -> Registration:
        offset = np.asarray(camera.pose.position) - np.asarray(depth_camera.pose.position)
        sensor = np.array(matrix_from_quat(depth_camera.pose.orientation)).T @ offset
        optical = (float(-sensor[1]), float(-sensor[2]), float(sensor[0]))  # x right, y down
        return Registration(sensor_intrinsics(depth_camera), sensor_intrinsics(camera), optical)

    def colours(self, colour: np.ndarray, points: np.ndarray, rays: PixelRays) -> np.ndarray:
        """(H, W, 3): for each point, the pixel of ``colour`` nearest to where it projects into
        the colour camera; a point without a return takes the pixel its ray points at (a point
        at infinity), so that every point has a colour, as depth_image_proc's ``convertRgb``
        colours every point. A point the colour camera cannot see, hidden behind a nearer point
        across the baseline (farther by :data:`HIDDEN_MARGIN` than the nearest point that
        projects to its pixel: the depth image's own points are the z-buffer, as
        depth_image_proc's ``register`` keeps the nearest), is black. Cameras with one optical
        centre and one image size see along the same rays: no lookup."""
        if colour.shape[:2] == points.shape and not any(self.baseline):
            return colour
        bx, by, bz = self.baseline
        z = points['z'] - np.float32(bz)
        seen = np.isfinite(z) & (z > 0.0)
        safe = np.where(seen, z, np.float32(1.0))
        right = np.where(seen, (points['x'] - np.float32(bx)) / safe, rays.right)
        down = np.where(seen, (points['y'] - np.float32(by)) / safe, rays.down)
        k = self.k_colour
        height, width = colour.shape[:2]
        columns = np.clip(np.rint(right * k.fx + k.cx), 0, width - 1).astype(np.intp)
        rows = np.clip(np.rint(down * k.fy + k.cy), 0, height - 1).astype(np.intp)
        colours = colour[rows, columns]
        if any(self.baseline):
            pixel = rows * width + columns
            nearest = np.full(height * width, np.inf, dtype=np.float32)
            np.minimum.at(nearest, pixel[seen], z[seen])
            colours[seen & (z > nearest[pixel] * np.float32(1.0 + HIDDEN_MARGIN))] = 0
        return colours


def registered_cloud(depth: np.ndarray, rays: PixelRays, colour: np.ndarray,
                     registration: Registration, points: np.ndarray | None = None
                     ) -> np.ndarray:
    """(H, W) :data:`XYZRGB` points of ``depth``, coloured from the partner's ``colour`` image
    (:meth:`Registration.colours`), written into ``points`` (the last cloud of this shape, whose
    padding is still zero) where given."""
    if points is None or points.shape != depth.shape:
        points = np.zeros(depth.shape, dtype=XYZRGB)  # zeros: the padding and rgb's high byte
    unproject(depth, rays, points)
    # the bytes of the little-endian 0x00RRGGBB at offset 16: b, g, r (what pack_rgb makes),
    # written in place: a third of the time of packing and copying
    rgb_bytes = points.view(np.uint8).reshape(*depth.shape, XYZRGB.itemsize)[..., 16:19]
    rgb_bytes[...] = registration.colours(colour, points, rays)[..., ::-1]
    return points


def rgbd_partner(depth_camera: Any, sensors: Any) -> Any | None:
    """The colour camera registered with a perspective ``depth_camera``, or None.

    A pair is what an RGB-D device is in a scene file (Webots' Kinect PROTO: a Camera and a
    RangeFinder 2.54 cm apart; SimRobot: a camera and a depth image sensor side by side): a
    planar ``camera`` among ``sensors`` on the same link, looking the same way (orientations
    within :data:`POSE_MATCH`) with the same opening angles (within :data:`FOV_MATCH`) and the
    same lens, at most :data:`MAX_BASELINE` from the depth camera. The image sizes may differ;
    through a distorting lens (its law is in texture coordinates, no pinhole) the pair must
    share the size and the optical centre. Where several cameras qualify, the nearest first,
    then one of the depth camera's size, then the first in the scene's order."""
    if getattr(depth_camera, 'projection', 'perspective') != 'perspective':
        return None
    candidates = [s for s in sensors if s.kind == 'camera' and _same_optics(s, depth_camera)]
    if not candidates:
        return None
    return min(candidates, key=lambda s: (round(_baseline(s, depth_camera), 9),
                                          (s.width, s.height) != (depth_camera.width,
                                                                  depth_camera.height)))


def _baseline(camera: Any, depth_camera: Any) -> float:
    return float(np.linalg.norm(np.subtract(camera.pose.position, depth_camera.pose.position)))


def _same_optics(camera: Any, depth_camera: Any) -> bool:
    lens = getattr(depth_camera, 'lens', None)
    baseline = _baseline(camera, depth_camera)
    return (camera.link == depth_camera.link
            and getattr(camera, 'projection', 'planar') == 'planar'
            and getattr(camera, 'lens', None) == lens
            and (not distorts(lens)
                 or ((camera.width, camera.height) == (depth_camera.width, depth_camera.height)
                     and baseline <= POSE_MATCH))
            and abs(camera.fov_x - depth_camera.fov_x) <= FOV_MATCH
            and abs(camera.fov_y - depth_camera.fov_y) <= FOV_MATCH
            and baseline <= MAX_BASELINE
            and any(np.allclose(camera.pose.orientation,
                                sign * np.asarray(depth_camera.pose.orientation),
                                rtol=0.0, atol=POSE_MATCH) for sign in (1.0, -1.0)))


POINT_XYZIRT = np.dtype([('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('intensity', '<f4'),
                         ('ring', '<u2'), ('time', '<f4')])
"""The Velodyne driver's point, packed (offsets 0, 4, 8, 12, 16, 18; 22 bytes)."""


class LidarCloud:
    """The XYZIRT points of one lidar's range images; directions, rings and times are computed
    once from its :class:`~scene_sim_ros.sim.sensors.rays.SphericalDepthReader`."""

    def __init__(self, reader: Any) -> None:
        s = reader.sensor
        self.directions = reader.directions.reshape(s.height, s.width, 3).astype(np.float32)
        template = np.zeros((s.height, s.width), POINT_XYZIRT)
        template['ring'] = (s.height - 1 - np.arange(s.height))[:, None]
        template['time'] = reader.column_times[None, :]
        self.template = template

    def points(self, depth: np.ndarray) -> np.ndarray:
        """The returns of ``depth`` (REP-117 (H, W) ranges, +inf/-inf out of range) as an (N,)
        XYZIRT array, in row-major (ring-descending) order."""
        returned = np.isfinite(depth)
        cloud = self.template[returned]
        xyz = self.directions[returned] * depth[returned][:, None]
        cloud['x'], cloud['y'], cloud['z'] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
        return cloud
