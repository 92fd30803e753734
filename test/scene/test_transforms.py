import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene_sim_ros.scene.transforms import (
    Pose,
    matrix_from_quat,
    normalized,
    quat_angle,
    quat_from_axis_angle,
    quat_from_matrix,
    quat_from_rpy,
    quat_normalized,
    quat_rotate,
    rpy_from_quat,
)

finite = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False)
angles = st.floats(min_value=-math.pi, max_value=math.pi, allow_nan=False)
vectors = st.tuples(finite, finite, finite)
quaternions = st.tuples(finite, finite, finite, finite).filter(
    lambda q: sum(c * c for c in q) > 1e-3).map(quat_normalized)
poses = st.builds(Pose, vectors, quaternions)


def close(a, b, tol=1e-9):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_quat_rotate_quarter_turn_about_z_maps_x_to_y():
    q = quat_from_axis_angle((0, 0, 1), math.pi / 2)
    assert close(quat_rotate(q, (1, 0, 0)), (0, 1, 0))


def test_quat_from_rpy_matches_extrinsic_xyz_order():
    # yaw 90 then the x axis points along world y; pitch 90 tips x down to -z
    assert close(quat_rotate(quat_from_rpy(0, 0, math.pi / 2), (1, 0, 0)), (0, 1, 0))
    assert close(quat_rotate(quat_from_rpy(0, math.pi / 2, 0), (1, 0, 0)), (0, 0, -1))


@given(poses, poses, vectors)
def test_pose_composition_applies_right_pose_first(a, b, point):
    assert close((a * b).transform_point(point), a.transform_point(b.transform_point(point)), 1e-6)


@given(poses)
def test_pose_times_inverse_is_identity(pose):
    assert (pose * pose.inverse()).is_identity(1e-6)


@given(quaternions)
def test_quat_matrix_round_trip(q):
    assert quat_angle(quat_from_matrix(matrix_from_quat(q)), q) < 1e-6


@given(angles, st.floats(min_value=-1.5, max_value=1.5), angles)
def test_rpy_round_trip_away_from_gimbal_lock(roll, pitch, yaw):
    q = quat_from_rpy(roll, pitch, yaw)
    assert quat_angle(quat_from_rpy(*rpy_from_quat(q)), q) < 1e-6


def test_pose_from_matrix4_reads_translation_column():
    m = [[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]]
    pose = Pose.from_matrix4(m)
    assert close(pose.position, (1, 2, 3))
    assert close(pose.rotate((1, 0, 0)), (0, 1, 0))


def test_quat_normalized_rejects_zero():
    with pytest.raises(ValueError):
        quat_normalized((0, 0, 0, 0))


@pytest.mark.parametrize(('vector', 'expected'), [
    ((1e-320, 0.0, 0.0), (1.0, 0.0, 0.0)),  # its square underflows to 0
    ((1e308, 0.0, 1e308), (math.sqrt(0.5), 0.0, math.sqrt(0.5))),  # its square overflows
    ((0.0, 3.0, 4.0), (0.0, 0.6, 0.8)),
])
def test_normalized_scales_tiny_and_huge_vectors(vector, expected):
    assert normalized(vector) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize('vector', [(0.0, 0.0, 0.0), (math.nan, 1.0, 0.0), (math.inf, 0.0, 0.0)])
def test_normalized_rejects_zero_and_non_finite(vector):
    with pytest.raises(ValueError):
        normalized(vector)
