"""numpy structured arrays <-> ``sensor_msgs/PointCloud2``, without Python lists of points.

A cloud is an (H, W) or (N,) numpy structured array whose fields become the message's
``PointField``\\ s in dtype order, with their offsets (so a packed ``rgb`` float32 or padding is
kept as laid out). ``sensor_msgs_py`` (which ROS ships for this) is not on PyPI; this follows its
``create_cloud``/``read_points`` layout: little-endian, ``point_step`` = the dtype's itemsize,
``row_step`` = width * point_step, an unorganized cloud has height 1.
"""

from __future__ import annotations

import array

import numpy as np
from sensor_msgs.msg import PointCloud2, PointField

POINT_FIELD_TYPES: dict[np.dtype, int] = {
    np.dtype(np.int8): PointField.INT8,
    np.dtype(np.uint8): PointField.UINT8,
    np.dtype(np.int16): PointField.INT16,
    np.dtype(np.uint16): PointField.UINT16,
    np.dtype(np.int32): PointField.INT32,
    np.dtype(np.uint32): PointField.UINT32,
    np.dtype(np.float32): PointField.FLOAT32,
    np.dtype(np.float64): PointField.FLOAT64,
}
"""numpy scalar dtype -> ``PointField`` datatype."""

NUMPY_OF_POINT_FIELD = {code: dtype for dtype, code in POINT_FIELD_TYPES.items()}


def point_fields(dtype: np.dtype) -> list[PointField]:
    """One ``PointField`` per field of a structured ``dtype``, at its offset (count 1 each)."""
    if dtype.names is None:
        raise ValueError(f'a point cloud needs a structured dtype, not {dtype}')
    fields = []
    for name in dtype.names:
        scalar, offset = dtype.fields[name][:2]  # type: ignore[index]
        try:
            datatype = POINT_FIELD_TYPES[scalar.newbyteorder('=')]
        except KeyError:
            raise ValueError(f'field {name!r}: no PointField type for {scalar}') from None
        fields.append(PointField(name=name, offset=offset, datatype=datatype, count=1))
    return fields


def fill_point_cloud(msg: PointCloud2, points: np.ndarray, is_dense: bool) -> None:
    """Fill ``msg`` from an (H, W) (organized) or (N,) structured array; ``is_dense`` false when
    some points are NaN (no return). A cloud of the last one's size is copied into its buffer:
    megabytes allocated afresh for every cloud cost more than the copy."""
    little = points.astype(points.dtype.newbyteorder('<'), copy=False)
    height, width = (1, little.shape[0]) if little.ndim == 1 else little.shape
    msg.fields = point_fields(little.dtype)
    msg.height = height
    msg.width = width
    msg.is_bigendian = False
    msg.point_step = little.dtype.itemsize
    msg.row_step = width * little.dtype.itemsize
    msg.is_dense = is_dense
    raw = np.ascontiguousarray(little).view(np.uint8).reshape(-1)
    if isinstance(msg.data, array.array) and len(msg.data) == raw.size:
        np.frombuffer(msg.data, dtype=np.uint8)[:] = raw  # the last cloud's buffer: one memcpy
    else:
        msg.data = array.array('B', raw.tobytes())  # memcpy, no list


def read_point_cloud(msg: PointCloud2) -> np.ndarray:
    """The message's points as an (H, W) structured array (what a consumer decodes; tests and the
    recorder's readers use it)."""
    dtype = np.dtype({
        'names': [f.name for f in msg.fields],
        'formats': [NUMPY_OF_POINT_FIELD[f.datatype].newbyteorder('>' if msg.is_bigendian else '<')
                    for f in msg.fields],
        'offsets': [f.offset for f in msg.fields],
        'itemsize': msg.point_step,
    })
    rows = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(msg.height, msg.row_step)
    return rows[:, :msg.width * msg.point_step].copy().view(dtype).reshape(msg.height, msg.width)
