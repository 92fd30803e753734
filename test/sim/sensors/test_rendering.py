"""View/projection matrices, depth linearisation and ray casting against raw PyBullet."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pybullet as p
import pytest

from scene_sim_ros import Simulation
from scene_sim_ros.scene import Box, Collision, Entity, Inertial, Link, Scene, Visual
from scene_sim_ros.scene.sensors import Camera
from scene_sim_ros.scene.transforms import Pose, quat_from_rpy
from scene_sim_ros.sim.engines.pybullet.sensing import Sensing
from scene_sim_ros.sim.sensors.rays import cast_rays, column_angles
from scene_sim_ros.sim.sensors.rendering import linearize_depth, projection_matrix, view_matrix


@pytest.fixture
def client():
    client = p.connect(p.DIRECT)
    yield client
    p.disconnect(client)


def add_box(client: int, half_extents, position, color=(1, 0, 0, 1)) -> int:
    shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half_extents, physicsClientId=client)
    visual = p.createVisualShape(p.GEOM_BOX, halfExtents=half_extents, rgbaColor=color,
                                 physicsClientId=client)
    return p.createMultiBody(0, shape, visual, position, physicsClientId=client)


@pytest.mark.parametrize('rpy', [(0, 0, 0), (0.3, -0.4, 1.2), (0, math.pi / 2 - 0.1, 0),
                                 (-1.0, 0.2, -2.5)])
def test_view_matrix_matches_pybullet_look_at(rpy):
    pose = Pose((0.5, -1.0, 2.0), quat_from_rpy(*rpy))
    forward, up = pose.rotate((1, 0, 0)), pose.rotate((0, 0, 1))
    target = [a + b for a, b in zip(pose.position, forward)]
    expected = p.computeViewMatrix(pose.position, target, up)
    assert np.allclose(view_matrix(pose), expected, atol=1e-6)


def test_projection_matrix_matches_pybullet_fov_for_square_pixels():
    fov_y = math.radians(45)
    aspect = 4 / 3
    fov_x = 2 * math.atan(aspect * math.tan(fov_y / 2))
    expected = p.computeProjectionMatrixFOV(45, aspect, 0.05, 20.0)
    assert np.allclose(projection_matrix(fov_x, fov_y, 0.05, 20.0), expected, atol=1e-6)


def test_linearized_depth_of_a_wall_is_its_distance_along_the_optical_axis(client):
    add_box(client, (0.1, 5, 5), (2.1, 0, 0))  # front face at x = 2
    pose = Pose((0, 0, 0), quat_from_rpy(0, 0, 0))
    near, far = 0.01, 10.0
    _, _, _, depth, _ = p.getCameraImage(
        41, 31, view_matrix(pose), projection_matrix(math.radians(60), math.radians(45), near, far),
        renderer=p.ER_TINY_RENDERER, physicsClientId=client)
    metres = linearize_depth(np.reshape(depth, (31, 41)), near, far)
    assert metres[15, 20] == pytest.approx(2.0, abs=0.01)
    # a flat wall has the same depth along the optical axis everywhere, not the same range
    assert metres[0, 0] == pytest.approx(2.0, abs=0.01)


def test_linearized_depth_is_inf_where_nothing_was_drawn():
    assert np.isinf(linearize_depth(np.ones((2, 2), np.float32), 0.1, 5.0)).all()


def test_column_angles_span_the_opening_angle_from_left_to_right():
    angles = column_angles(math.radians(90), 5)
    assert np.allclose(angles, np.radians([45, 22.5, 0, -22.5, -45]))


def test_column_angles_of_a_full_circle_do_not_repeat_the_first_ray():
    angles = column_angles(2 * math.pi, 4)
    assert np.allclose(angles, [math.pi, math.pi / 2, 0, -math.pi / 2])


def test_cast_rays_measure_distances_and_skip_the_ignored_link(client):
    own = add_box(client, (0.2, 0.2, 0.2), (1, 0, 0))  # in front of the sensor
    add_box(client, (0.1, 5, 5), (3.1, 0, 0))
    engine = SimpleNamespace(client=client)  # the PyBullet engine's ray cast on this client
    engine._ray_test = lambda froms, tos: Sensing._ray_test(engine, froms, tos)
    sim = SimpleNamespace(cast_rays=lambda froms, tos, exclude=(): Sensing.cast_rays(
        engine, froms, tos, exclude))
    directions = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 0.6, 0.8]])
    with_own = cast_rays(sim, np.zeros(3), directions, 10.0)
    without_own = cast_rays(sim, np.zeros(3), directions, 10.0, ignore=(own, -1))
    assert with_own[0] == pytest.approx(0.8, abs=1e-6)
    assert without_own[0] == pytest.approx(3.0, abs=1e-6)
    assert np.isinf(without_own[1:]).all()


def test_tiny_renderer_colour_is_pybullets_image_with_the_scene_background_where_nothing_is():
    fov_x, fov_y = math.radians(60), math.radians(45)
    camera = Camera('cam', 'base', 64, 48, fov_x, fov_y)
    host = Entity('host', 'robot', (Link('base', Inertial(mass=1.0)),), sensors=(camera,),
                  pose=Pose((0.0, 0.0, 1.0)), fixed_base=True)
    shape = Box((0.5, 0.8, 0.5))
    box = Entity('box', 'static', (Link('base', collisions=(Collision(shape),),
                                        visuals=(Visual(shape, color=(0.9, 0.3, 0.1, 1.0)),)),),
                 pose=Pose((2.0, 0.3, 1.1)), fixed_base=True)
    background = (0.2, 0.4, 0.6, 1.0)
    sim = Simulation(Scene('tiny', (host, box), background=background), renderer='tiny')
    try:
        image = sim.read('host', 'cam')
        pose = sim.link_world_pose('host', 'base') * camera.pose
        _, _, rgba, depth, _ = p.getCameraImage(
            64, 48, view_matrix(pose), projection_matrix(fov_x, fov_y, camera.near, camera.far),
            renderer=p.ER_TINY_RENDERER, flags=p.ER_NO_SEGMENTATION_MASK,
            physicsClientId=sim.client)
    finally:
        sim.close()
    drawn = np.reshape(depth, (48, 64)) < 1.0 - 1e-7
    assert 0.1 < drawn.mean() < 0.9  # both kinds of pixel are there
    assert np.array_equal(image[drawn], np.reshape(rgba, (48, 64, 4))[..., :3][drawn])
    assert np.all(image[~drawn] == np.round(np.array(background[:3]) * 255))
    assert image.flags.c_contiguous and image.dtype == np.uint8
