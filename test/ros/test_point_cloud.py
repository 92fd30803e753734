"""The PointCloud2 builder: fields, layout and a round trip through the message's bytes."""

import numpy as np
import pytest
from sensor_msgs.msg import PointCloud2, PointField

from scene_sim_ros.ros.bridge.point_cloud import fill_point_cloud, point_fields, read_point_cloud

XYZ_RGB = np.dtype({'names': ['x', 'y', 'z', 'rgb'], 'formats': ['<f4'] * 4,
                    'offsets': [0, 4, 8, 16], 'itemsize': 32})
"""depth_image_proc's point_cloud_xyzrgb layout: xyz, 4 bytes padding, rgb, 32-byte points."""


def test_fields_follow_the_dtype_with_its_offsets_and_padding():
    fields = point_fields(XYZ_RGB)
    assert [(f.name, f.offset, f.datatype, f.count) for f in fields] == [
        ('x', 0, PointField.FLOAT32, 1), ('y', 4, PointField.FLOAT32, 1),
        ('z', 8, PointField.FLOAT32, 1), ('rgb', 16, PointField.FLOAT32, 1)]


def test_an_organized_cloud_round_trips_through_the_message_bytes():
    points = np.zeros((3, 4), dtype=XYZ_RGB)
    points['x'] = np.arange(12, dtype=np.float32).reshape(3, 4)
    points['z'][1, 2] = np.nan
    msg = PointCloud2()
    fill_point_cloud(msg, points, is_dense=False)
    assert (msg.height, msg.width, msg.point_step, msg.row_step) == (3, 4, 32, 128)
    assert len(msg.data) == 3 * 128 and not msg.is_dense and not msg.is_bigendian
    back = read_point_cloud(msg)
    assert back.shape == (3, 4)
    np.testing.assert_array_equal(back['x'], points['x'])
    assert np.isnan(back['z'][1, 2]) and np.count_nonzero(np.isnan(back['z'])) == 1


def test_an_unorganized_cloud_has_height_one_and_mixed_field_types():
    lidar = np.dtype([('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('intensity', '<f4'),
                      ('ring', '<u2'), ('time', '<f4')])
    points = np.zeros(5, dtype=lidar)
    points['ring'] = [0, 1, 2, 3, 15]
    msg = PointCloud2()
    fill_point_cloud(msg, points, is_dense=True)
    assert (msg.height, msg.width) == (1, 5)
    assert [f.datatype for f in msg.fields][4] == PointField.UINT16
    np.testing.assert_array_equal(read_point_cloud(msg)['ring'][0], [0, 1, 2, 3, 15])


def test_a_plain_array_is_refused():
    with pytest.raises(ValueError, match='structured dtype'):
        point_fields(np.dtype(np.float32))
