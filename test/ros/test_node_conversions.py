"""numpy readings -> ROS messages (scene_sim_ros.ros.bridge.conversions)."""

import math

import numpy as np
import pytest

pytest.importorskip('sensor_msgs.msg')

from scene_sim_ros.ros.bridge.conversions import (  # noqa: E402
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


def test_an_image_refilled_reuses_its_buffer_and_takes_strided_views():
    """A camera adapter fills one message again and again, from views of a batched render
    (rows flipped): same bytes as a contiguous copy, the buffer reused at the same size,
    a new one when the size changes."""
    from sensor_msgs.msg import Image
    atlas = np.arange(6 * 8 * 3, dtype=np.uint8).reshape(6, 8, 3)
    msg = Image()
    fill_image(msg, atlas[1:5, 2:7][::-1])
    first = msg.data
    assert bytes(msg.data) == np.ascontiguousarray(atlas[1:5, 2:7][::-1]).tobytes()
    fill_image(msg, atlas[0:4, 0:5])
    assert msg.data is first and bytes(msg.data) == atlas[0:4, 0:5].tobytes()
    fill_image(msg, atlas)
    assert msg.data is not first and bytes(msg.data) == atlas.tobytes()
    assert (msg.height, msg.width, msg.step) == (6, 8, 24)


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
    # the principal point where the renderers sample: pixels at their left, bottom corners
    assert info.k.tolist() == pytest.approx([fx, 0, 320.0, 0, fy, 239.0, 0, 0, 1])
    assert info.p.tolist() == pytest.approx([fx, 0, 320.0, 0, 0, fy, 239.0, 0, 0, 0, 1, 0])
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


# --- messages serialized once, patched per publication (scene_sim_ros.ros.serialized) ----------

def _filled(msg_type, **values):
    """A message of ``msg_type`` as the node would fill it field by field (the reference)."""
    msg = msg_type()
    for path, value in values.items():
        *parents, last = path.split('__')
        target = msg
        for part in parents:
            target = getattr(target, part)
        setattr(target, last, value)
    return msg


@pytest.mark.parametrize('seconds', [0.0, 0.036, 1234.9999999999, 86_400.5])
def test_patched_joint_state_reads_back_as_the_message_filled_field_by_field(seconds):
    import array

    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState

    from scene_sim_ros.ros.serialized import MessageTemplate
    names = [f'Joint{k}' for k in range(24)]
    template_msg = _filled(JointState, name=names, position=[0.0] * 24, velocity=[0.0] * 24,
                           effort=[0.0] * 24)
    template_msg.header.frame_id = 'robot1'
    template = MessageTemplate(template_msg, ('position', 'velocity', 'effort'))
    rng = np.random.default_rng(7)
    for _ in range(3):  # patched again and again, as after every step
        values = rng.normal(size=72) * 10.0
        template.values[:] = values
        data = template.serialize(seconds)
        expected = _filled(JointState, name=names, position=array.array('d', values[:24]),
                           velocity=array.array('d', values[24:48]),
                           effort=array.array('d', values[48:]))
        expected.header.frame_id = 'robot1'
        set_stamp(expected.header.stamp, seconds)
        assert deserialize_message(data, JointState) == expected


def test_patched_imu_odometry_and_clock_read_back_exactly():
    from nav_msgs.msg import Odometry
    from rclpy.serialization import deserialize_message
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Imu

    from scene_sim_ros.ros.serialized import MessageTemplate
    imu = imu_message(acceleration_noise=0.1, angular_velocity_noise=None)
    imu.header.frame_id = 'robot1/Accelerometer'
    template = MessageTemplate(imu, ('orientation', 'angular_velocity', 'linear_acceleration'))
    assert list(template.values) == [0.0] * 10  # the message's own values to begin with
    template.values[template.slices['linear_acceleration']] = (0.5, -0.25, 9.81)
    imu.linear_acceleration.x, imu.linear_acceleration.y, imu.linear_acceleration.z = (
        0.5, -0.25, 9.81)
    set_stamp(imu.header.stamp, 2.5)
    assert deserialize_message(template.serialize(2.5), Imu) == imu

    odom = Odometry()
    odom.header.frame_id, odom.child_frame_id = 'robot1/odom', 'robot1/base'
    fields = ('pose.pose.position', 'pose.pose.orientation', 'pose.covariance')
    template = MessageTemplate(odom, fields)
    assert template.slices == {'pose.pose.position': slice(0, 3),
                               'pose.pose.orientation': slice(3, 7),
                               'pose.covariance': slice(7, 43)}
    template.values[:] = np.arange(43.0)
    odom.pose.pose.position.x, odom.pose.pose.position.y, odom.pose.pose.position.z = 0.0, 1.0, 2.0
    o = odom.pose.pose.orientation
    o.x, o.y, o.z, o.w = 3.0, 4.0, 5.0, 6.0
    odom.pose.covariance = np.arange(7.0, 43.0)
    set_stamp(odom.header.stamp, 7.0)
    assert deserialize_message(template.serialize(7.0), Odometry) == odom

    clock = MessageTemplate(Clock(), (), stamp='clock')
    expected = Clock()
    set_stamp(expected.clock, 0.012)
    assert deserialize_message(clock.serialize(0.012), Clock) == expected


@pytest.mark.parametrize('pixels', [
    np.arange(480 * 640 * 3, dtype=np.uint64).astype(np.uint8).reshape(480, 640, 3)[::-1],
    np.arange(5 * 3 * 3, dtype=np.uint8).reshape(5, 3, 3),  # 45 bytes: no 4-byte multiple
    np.arange(7 * 2, dtype=np.uint8).reshape(7, 2),
    np.linspace(0.25, 9.0, 6, dtype=np.float32).reshape(2, 3),
], ids=['rgb8-flipped-view', 'rgb8-odd', 'mono8', '32FC1'])
def test_image_template_bytes_are_rclpys_for_every_frame(pixels):
    """A camera's frames go out as ImageTemplate bytes: for each frame they must be what rclpy
    serializes for the filled message, as long and reading back as the same message (the
    alignment padding after a string is not compared: rclpy's serializer leaves whatever was
    in its buffer there); also for a second frame through the same template, a flipped
    strided view and data that ends off a 4-byte boundary."""
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import Image

    from scene_sim_ros.ros.serialized import ImageTemplate
    msg = Image()
    msg.header.frame_id = 'robot1/CameraTop_optical'
    fill_image(msg, pixels)
    template = ImageTemplate(msg)
    for seconds, frame in ((12.345, pixels), (13.0, pixels[..., ::-1].copy())):
        set_stamp(msg.header.stamp, seconds)
        fill_image(msg, frame)
        ours, rclpys = template.serialize(seconds, frame), serialize_message(msg)
        assert len(ours) == len(rclpys)
        assert deserialize_message(ours, Image) == deserialize_message(rclpys, Image)
    back = deserialize_message(template.serialize(1.5, pixels), Image)
    assert (back.header.stamp.sec, back.header.stamp.nanosec) == (1, 500_000_000)
    assert bytes(back.data) == np.ascontiguousarray(pixels).tobytes()


def test_a_field_that_cannot_be_found_once_is_an_error():
    from std_msgs.msg import Float64MultiArray

    from scene_sim_ros.ros.serialized import MessageTemplate
    msg = Float64MultiArray(data=[1.0, 2.0])
    with pytest.raises(ValueError, match='header.stamp'):
        MessageTemplate(msg, ('data',))  # a message without a header has no stamp to patch
