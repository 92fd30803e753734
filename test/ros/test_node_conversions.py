"""numpy readings -> ROS messages (scene_sim_ros.ros.conversions)."""

import math

import numpy as np
import pytest

pytest.importorskip('sensor_msgs.msg')

from scene_sim_ros.ros.conversions import (  # noqa: E402
    camera_info,
    fill_image,
    fill_scan,
    imu_message,
    laser_scan,
    set_stamp,
)


def test_stamps_are_exact_in_nanoseconds():
    from builtin_interfaces.msg import Time
    stamp = Time()
    set_stamp(stamp, 3 * 0.012)  # 0.036000000000000004 as a float
    assert (stamp.sec, stamp.nanosec) == (0, 36_000_000)
    set_stamp(stamp, 1234.9999999999)
    assert (stamp.sec, stamp.nanosec) == (1235, 0)


def test_rgb_image_keeps_its_bytes_and_layout():
    from sensor_msgs.msg import Image
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    msg = Image()
    fill_image(msg, pixels)
    assert (msg.height, msg.width, msg.encoding, msg.step) == (4, 5, 'rgb8', 15)
    assert bytes(msg.data) == pixels.tobytes()


def test_depth_image_is_32fc1_little_endian_metres():
    from sensor_msgs.msg import Image
    depth = np.array([[1.5, np.inf], [-np.inf, np.nan]], dtype=np.float32)
    msg = Image()
    fill_image(msg, depth)
    assert (msg.encoding, msg.step, msg.is_bigendian) == ('32FC1', 8, 0)
    back = np.frombuffer(bytes(msg.data), dtype='<f4').reshape(2, 2)
    assert back[0, 0] == 1.5 and back[0, 1] == np.inf and back[1, 0] == -np.inf
    assert np.isnan(back[1, 1])


def test_camera_info_from_opening_angles():
    info = camera_info(640, 480, math.radians(90), math.radians(60))
    fx, fy = 640 / 2, 240 / math.tan(math.radians(30))
    assert info.k.tolist() == pytest.approx([fx, 0, 319.5, 0, fy, 239.5, 0, 0, 1])
    assert info.p.tolist() == pytest.approx([fx, 0, 319.5, 0, 0, fy, 239.5, 0, 0, 0, 1, 0])
    assert info.r.tolist() == [1, 0, 0, 0, 1, 0, 0, 0, 1]
    assert info.distortion_model == 'plumb_bob' and list(info.d) == [0.0] * 5


def test_laser_scan_angles_and_ranges():
    scan = laser_scan(-1.0, 0.5, 5, 0.1, 4.0, 0.1)
    assert scan.angle_max == pytest.approx(1.0)
    fill_scan(scan, np.array([1.0, 2.0, np.inf, 0.5, 3.0]))
    assert list(scan.ranges) == [1.0, 2.0, math.inf, 0.5, 3.0]


def test_imu_covariances_mark_missing_quantities():
    msg = imu_message(acceleration_noise=0.0, angular_velocity_noise=0.1, orientation_noise=None)
    assert msg.orientation_covariance[0] == -1.0
    assert (msg.orientation.x, msg.orientation.y, msg.orientation.z, msg.orientation.w) == (0, 0, 0, 0)
    assert msg.angular_velocity_covariance.tolist() == pytest.approx(
        [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01])
    assert msg.linear_acceleration_covariance[0] > 0.0  # noise-free still reports a variance
    gyro_only = imu_message(acceleration_noise=None, angular_velocity_noise=0.0)
    assert gyro_only.linear_acceleration_covariance[0] == -1.0
