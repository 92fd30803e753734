"""Entity bounds from collision shapes, and the overlap tests of bounds filters, against
closed forms: a sphere's box is the cube of its diameter; two boxes overlap exactly when their
intervals do on every axis; a point lies in a tetrahedron exactly when its barycentric
coordinates are all >= 0."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scene_sim_ros.scene import Collision, Entity, Link, Pose
from scene_sim_ros.scene.bounds import (
    aabb,
    box_corners,
    box_sphere_overlap,
    boxes_overlap,
    convex_overlap,
    entity_points,
    link_poses_at_zero,
)
from scene_sim_ros.scene.geometry import Box, Cylinder, Plane, Sphere
from scene_sim_ros.scene.model import Joint
from scene_sim_ros.scene.transforms import quat_from_axis_angle


def _box(entity):
    return aabb(entity_points(entity, link_poses_at_zero(entity)))


def test_a_sphere_entity_is_bounded_by_the_cube_of_its_diameter():
    ball = Entity('ball', 'object', (Link('ball', collisions=(Collision(Sphere(0.1)),)),))
    assert _box(ball) == ((-0.1, -0.1, -0.1), (0.1, 0.1, 0.1))


def test_shapes_are_placed_by_their_pose_and_their_link_s_joint_origin():
    quarter_turn = quat_from_axis_angle((1.0, 0.0, 0.0), np.pi / 2)   # cylinder axis z -> -y
    links = (Link('base', collisions=(Collision(Box((0.4, 0.2, 0.1))),)),
             Link('wheel', collisions=(Collision(Cylinder(0.05, 0.02),
                                                 Pose((0, 0, 0), quarter_turn)),)))
    joint = Joint('axle', 'revolute', 'base', 'wheel', origin=Pose((0.2, 0.1, 0.0)))
    low, high = _box(Entity('cart', 'robot', links, (joint,)))
    assert np.allclose(low, (-0.2, -0.1, -0.05)) and np.allclose(high, (0.25, 0.11, 0.05))


def test_only_a_plane_is_unbounded():
    ground = Entity('ground', 'static', (Link('g', collisions=(Collision(Plane()),)),))
    assert _box(ground) is None


boxes = st.tuples(st.tuples(*[st.floats(-1, 1)] * 3), st.tuples(*[st.floats(0.01, 1)] * 3)).map(
    lambda lo_size: (lo_size[0], tuple(a + b for a, b in zip(*lo_size))))


@settings(max_examples=300, deadline=None)
@given(boxes, boxes)
def test_convex_overlap_of_two_boxes_corners_is_the_box_test(a, b):
    gaps = [max(a[0][i] - b[1][i], b[0][i] - a[1][i]) for i in range(3)]
    if abs(max(gaps)) < 1e-6:
        return   # touching: either answer is within the tolerance
    assert convex_overlap(box_corners(a), box_corners(b)) == boxes_overlap(a, b)


TETRAHEDRON = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)


@settings(max_examples=300, deadline=None)
@given(st.tuples(*[st.floats(-0.5, 1.5)] * 3))
def test_a_point_is_in_a_tetrahedron_exactly_when_its_barycentric_coordinates_are(point):
    x, y, z = point
    inside = min(x, y, z, 1 - x - y - z) >= 0
    margin = abs(min(x, y, z, 1 - x - y - z))
    if margin < 1e-6:
        return   # on a face: either answer is within the tolerance
    assert convex_overlap(TETRAHEDRON, np.array([point])) == inside


def test_box_and_sphere_overlap_by_the_nearest_point_of_the_box():
    box = ((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert box_sphere_overlap(box, (1.5, 0.5, 0.5), 0.51)
    assert not box_sphere_overlap(box, (1.5, 1.5, 0.5), 0.7)    # corner distance 0.707


def test_a_mesh_file_counts_through_the_reader_given_scaled_per_axis(tmp_path):
    from scene_sim_ros.scene.geometry import MeshFile
    shape = MeshFile(tmp_path / 'tri.obj', scale=(2.0, 1.0, 0.5))
    link = Link('l', collisions=(Collision(shape),))
    entity = Entity('mesh', 'object', (link,))
    poses = link_poses_at_zero(entity)
    assert aabb(entity_points(entity, poses)) is None   # no reader: not counted
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 2.0]])
    box = aabb(entity_points(entity, poses, lambda path: vertices))
    assert box == ((0.0, 0.0, 0.0), (2.0, 1.0, 1.0))
