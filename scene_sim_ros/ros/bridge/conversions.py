"""numpy readings -> ROS messages, without Python lists of pixels.

Messages are built once per publisher and refilled in place on every publish (rclpy converts a
message to its C form synchronously inside ``publish()``, so reuse is safe). Pixel buffers go in as
``bytes``/``array.array`` (a memcpy); a Python list of pixels is 30-100x slower.
"""

from __future__ import annotations

import array
from typing import Any

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import CameraInfo, Image, Imu, JointState, LaserScan, Range

from scene_sim_ros.ros.serialized import NANOSECONDS
from scene_sim_ros.scene import lens as lens_model
from scene_sim_ros.scene.sensors import Lens

IMAGE_ENCODINGS = {  # (dtype, channels) -> (encoding, bytes per pixel)
    (np.dtype(np.uint8), 3): ('rgb8', 3),
    (np.dtype(np.uint8), 1): ('mono8', 1),
    (np.dtype(np.float32), 1): ('32FC1', 4),
}

# Covariance diagonals used when a sensor has no noise model: a perfect sensor would give 0, but 0
# means "unknown" to many consumers (robot_localization, gz-sensors #501), so report a small value.
ACCELERATION_VARIANCE_FLOOR = 1e-4  # (m/s^2)^2
ANGULAR_VELOCITY_VARIANCE_FLOOR = 1e-6  # (rad/s)^2
ORIENTATION_VARIANCE_FLOOR = 1e-6  # rad^2


def set_stamp(stamp: Time, seconds: float) -> None:
    """Write ``seconds`` (>= 0) into a ``builtin_interfaces/Time`` in place."""
    sec, nanosec = divmod(round(seconds * NANOSECONDS), NANOSECONDS)
    stamp.sec = int(sec)
    stamp.nanosec = int(nanosec)


def stamp_seconds(stamp: Time) -> float:
    return stamp.sec + stamp.nanosec / NANOSECONDS


def fill_image(msg: Image, pixels: np.ndarray) -> None:
    """Fill ``msg`` from an HxWx3 uint8 (rgb8), HxW uint8 (mono8) or HxW float32 (32FC1) array
    (any strides). The pixels are copied once, into the message's own ``data`` where it has
    the size already (an adapter publishes one message object again and again; what it
    published last has gone out by then, see :meth:`.publishing.Publishing.hold`)."""
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    try:
        encoding, pixel_bytes = IMAGE_ENCODINGS[(pixels.dtype, channels)]
    except KeyError:
        raise ValueError(f'no image encoding for {pixels.dtype} x {channels}') from None
    height, width = pixels.shape[:2]
    msg.height = height
    msg.width = width
    msg.encoding = encoding
    msg.is_bigendian = 0 if pixels.dtype.byteorder in ('=', '<', '|') else 1
    msg.step = width * pixel_bytes
    if not isinstance(msg.data, array.array) or len(msg.data) != pixels.nbytes:
        msg.data = array.array('B', bytes(pixels.nbytes))  # (the setter may copy it)
    np.frombuffer(msg.data, dtype=pixels.dtype).reshape(pixels.shape)[...] = pixels


def camera_info(width: int, height: int, fov_x: float, fov_y: float,
                lens: Lens | None = None) -> CameraInfo:
    """The camera model of the published image, ``plumb_bob``.

    Without a lens (or with zero coefficients) the pinhole the renderers draw, D zero: K and P
    from the opening angles (fx = w / (2 tan(fov_x / 2))), the principal point where the
    renderers put it (:func:`scene_sim_ros.scene.pinhole.pinhole_intrinsics`: (w / 2, h / 2 - 1),
    not the centre). Through a Webots lens,
    K's principal point and D are the least-squares plumb_bob fit of Webots' law
    (:func:`scene_sim_ros.scene.lens.plumb_bob`, residual stated there), and P is the pinhole
    render's, so that rectifying with (K, D, R = I, P) gives back the undistorted render."""
    pinhole = lens_model.ideal(width, height, fov_x, fov_y)
    model = lens_model.plumb_bob(lens, width, height, fov_x, fov_y)
    msg = CameraInfo()
    msg.width = width
    msg.height = height
    msg.distortion_model = 'plumb_bob'
    msg.d = [float(v) for v in model.d]
    msg.k = np.array([model.fx, 0.0, model.cx, 0.0, model.fy, model.cy, 0.0, 0.0, 1.0])
    msg.r = np.eye(3).reshape(9)
    msg.p = np.array([pinhole.fx, 0.0, pinhole.cx, 0.0, 0.0, pinhole.fy, pinhole.cy, 0.0,
                      0.0, 0.0, 1.0, 0.0])
    return msg


def laser_scan(angle_min: float, angle_increment: float, count: int, range_min: float,
               range_max: float, scan_time: float) -> LaserScan:
    """A LaserScan template; :func:`fill_scan` writes the ranges."""
    msg = LaserScan()
    msg.angle_min = float(angle_min)
    msg.angle_increment = float(angle_increment)
    msg.angle_max = float(angle_min + angle_increment * (count - 1))
    msg.time_increment = 0.0
    msg.scan_time = float(scan_time)
    msg.range_min = float(range_min)
    msg.range_max = float(range_max)
    return msg


def fill_scan(msg: LaserScan, ranges: np.ndarray) -> None:
    """Copy ``ranges`` (already REP-117 values, see :func:`to_rep117`) into ``msg``."""
    msg.ranges = array.array('f', np.ascontiguousarray(ranges, dtype=np.float32).tobytes())


def to_rep117(values: np.ndarray, min_range: float, max_range: float) -> np.ndarray:
    """A float32 copy of range readings in REP-117/REP-118 form.

    ``Simulation.read`` gives SimRobot's values: ``max_range`` for no hit within range,
    ``min_range`` for a hit too close. Here a reading ``>= max_range`` becomes +inf (no return)
    and, when ``min_range > 0``, one ``<= min_range`` becomes -inf (too close); the comparison is
    in float32, the type of the messages, so a limit stored as float32 still matches. A hit
    exactly at a limit is indistinguishable from out of range in SimRobot's convention and is
    published as +inf/-inf. Readings that are already infinite stay as they are, nan stays nan.
    """
    out = np.array(values, dtype=np.float32)
    out[out >= np.float32(max_range)] = np.inf
    if min_range > 0.0:
        out[out <= np.float32(min_range)] = -np.inf
    return out


def range_rep117(value: float, min_range: float, max_range: float) -> float:
    """:func:`to_rep117` of one ``sensor_msgs/Range`` reading."""
    return float(to_rep117(np.array([value]), min_range, max_range)[0])


def range_message(radiation_type: int, field_of_view: float, min_range: float,
                  max_range: float) -> Range:
    msg = Range()
    msg.radiation_type = radiation_type
    msg.field_of_view = float(field_of_view)
    msg.min_range = float(min_range)
    msg.max_range = float(max_range)
    return msg


def imu_message(*, acceleration_noise: float | None, angular_velocity_noise: float | None,
                orientation_noise: float | None = None) -> Imu:
    """An Imu template with covariances filled: ``None`` marks a quantity as absent
    (covariance[0] = -1, REP-145); noise (standard deviation) 0 uses the variance floors."""
    msg = Imu()
    msg.orientation_covariance = _covariance(orientation_noise, ORIENTATION_VARIANCE_FLOOR)
    msg.angular_velocity_covariance = _covariance(angular_velocity_noise,
                                                  ANGULAR_VELOCITY_VARIANCE_FLOOR)
    msg.linear_acceleration_covariance = _covariance(acceleration_noise,
                                                     ACCELERATION_VARIANCE_FLOOR)
    if orientation_noise is None:
        msg.orientation.w = 0.0  # all zeros, with covariance[0] = -1: "no orientation"
    return msg


def _covariance(noise: float | None, floor: float) -> np.ndarray:
    if noise is None:
        covariance = np.zeros(9)
        covariance[0] = -1.0
        return covariance
    return np.diag([max(noise * noise, floor)] * 3).reshape(9)


def set_vector3(vector: Any, values: np.ndarray | tuple[float, float, float]) -> None:
    x, y, z = (float(v) for v in values)
    vector.x = x
    vector.y = y
    vector.z = z


def joint_state_message(names: list[str]) -> JointState:
    msg = JointState()
    msg.name = list(names)
    return msg


def fill_joint_state(msg: JointState, positions: array.array[float], velocities: array.array[float],
                     efforts: array.array[float]) -> None:
    msg.position = positions
    msg.velocity = velocities
    msg.effort = efforts
