"""Frustum culling of oriented boxes against the exact test: a box lies outside the view only
if all eight corners lie outside one plane; the box test must never drop a box that touches the
view, and drops what the bounding sphere cannot."""

from __future__ import annotations

import itertools

import numpy as np

from scene_sim_ros.scene import Pose
from scene_sim_ros.sim.render.culling import boxes_in_view, frustum_planes, spheres_in_view
from scene_sim_ros.sim.sensors.rendering import projection_matrix, view_matrix

SIGNS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


def planes_of(pose: Pose, fov: float = 1.0, near: float = 0.05, far: float = 20.0) -> np.ndarray:
    projection = np.asarray(projection_matrix(fov, fov * 0.75, near, far)).reshape(4, 4).T
    return frustum_planes(projection @ np.asarray(view_matrix(pose)).reshape(4, 4).T)


def random_rotations(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]


def corners_outside_one_plane(planes, centres, axes, half) -> np.ndarray:
    corners = centres[:, None, :] + np.einsum('nij,nkj->nki', axes, SIGNS * half[:, None, :])
    distances = corners @ planes[:, :3].T + planes[:, 3]  # (N, 8, 6)
    return (distances < 0.0).all(axis=1).any(axis=1)


def test_a_box_is_culled_only_when_it_lies_outside_a_plane():
    rng = np.random.default_rng(7)
    planes = planes_of(Pose.from_xyz_rpy((0.0, 0.0, 1.0), (0.0, 0.2, 0.3)))
    n = 20000
    centres = rng.uniform(-6.0, 12.0, size=(n, 3))
    axes = random_rotations(rng, n)
    half = rng.uniform(0.01, 1.5, size=(n, 3))
    kept = boxes_in_view(planes, centres, axes, half)
    outside = corners_outside_one_plane(planes, centres, axes, half)
    assert not (kept & outside).any()  # what one plane separates is dropped ...
    assert (kept | outside).all()  # ... and only that (the test is exact per plane)
    assert 0.1 < kept.mean() < 0.9


def test_a_long_thin_part_behind_the_camera_is_dropped_where_its_sphere_is_kept():
    planes = planes_of(Pose((0.0, 0.0, 0.0)))  # looking along +x, near plane at 5 cm
    # a rod 2 m long across the view direction, 30 cm behind the camera (a robot's own
    # shoulders behind its head camera): its bounding sphere reaches 70 cm in front
    centre = np.array([[-0.3, 0.0, 0.0]])
    half = np.array([[0.01, 1.0, 0.01]])
    assert spheres_in_view(planes, centre, np.linalg.norm(half, axis=1)).all()
    assert not boxes_in_view(planes, centre, np.eye(3)[None], half).any()
