"""Colour, depth and segmentation cameras through the real Simulation, with each renderer
(``gl`` skipped, saying why, where no EGL context can be made)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import Pose
from scene_sim_ros.scene.sensors import Camera, DepthCamera, SegmentationCamera
from scene_sim_ros.sim.sensors import create_reader, render_cache

FOV_X, FOV_Y = math.radians(60), math.radians(45)


@pytest.fixture(autouse=True, params=['tiny', 'gl'])
def backend(request, monkeypatch):
    """Every test here runs with TinyRenderer and with the GL renderer."""
    if request.param == 'gl':
        from scene_sim_ros.sim.render import egl_problem
        problem = egl_problem()
        if problem is not None:
            pytest.skip(f'no GL renderer here: {problem}')
    monkeypatch.setenv('SCENE_SIM_ROS_RENDERER', request.param)
    return request.param


def camera(name='cam', width=32, height=24, **kw):
    return Camera(name, 'base', width, height, FOV_X, FOV_Y, **kw)


def depth_camera(name='depth', width=32, height=24, min_range=0.1, max_range=5.0, **kw):
    return DepthCamera(name, 'base', width, height, FOV_X, FOV_Y, min_range, max_range, **kw)


def test_camera_sees_red_box_in_centre_and_background_at_corners(parts, simulate):
    scene = parts.make_scene(parts.sensor_host([camera()]),
                             parts.static_box('box', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0)))
    image = simulate(scene).read('host', 'cam')
    assert image.shape == (24, 32, 3) and image.dtype == np.uint8
    r, g, b = (int(c) for c in image[12, 16])
    assert r > 100 and g < 40 and b < 40
    background = np.round(np.array(parts.BACKGROUND[:3]) * 255)
    for corner in (image[0, 0], image[0, -1], image[-1, 0], image[-1, -1]):
        assert np.array_equal(corner, background)


def test_camera_looks_along_x_of_its_mount_pose(parts, simulate):
    # the camera turned 90 deg to the left sees the box that is on the host's left
    turned = Pose.from_xyz_rpy(rpy=(0.0, 0.0, math.pi / 2))
    scene = parts.make_scene(parts.sensor_host([camera(pose=turned)]),
                             parts.static_box('box', (0.5, 0.5, 0.5), (0.0, 2.0, 1.0)))
    r, g, b = (int(c) for c in simulate(scene).read('host', 'cam')[12, 16])
    assert r > 100 and g < 40 and b < 40


def test_camera_image_is_upright_and_not_mirrored(parts, simulate):
    # red box up and to the left of the optical axis, blue one down and to the right
    scene = parts.make_scene(
        parts.sensor_host([camera(width=64, height=48)]),
        parts.static_box('red', (0.1, 0.3, 0.3), (2.0, 0.5, 1.4), color=parts.RED),
        parts.static_box('blue', (0.1, 0.3, 0.3), (2.0, -0.5, 0.6), color=parts.BLUE))
    image = simulate(scene).read('host', 'cam').astype(int)
    red_rows, red_cols = np.nonzero((image[:, :, 0] > 100) & (image[:, :, 2] < 40))
    blue_rows, blue_cols = np.nonzero((image[:, :, 2] > 100) & (image[:, :, 0] < 40))
    assert red_rows.mean() < 24 < blue_rows.mean()
    assert red_cols.mean() < 32 < blue_cols.mean()


def test_depth_to_a_wall_two_metres_away(parts, simulate):
    sensors = [depth_camera(), depth_camera('short', max_range=1.5),
               depth_camera('far_min', min_range=2.5)]
    scene = parts.make_scene(parts.sensor_host(sensors),
                             parts.static_box('wall', (0.2, 6.0, 6.0), (2.1, 0.0, 1.0)))
    sim = simulate(scene)
    depth = sim.read('host', 'depth')
    assert depth.shape == (24, 32) and depth.dtype == np.float32
    assert depth[12, 16] == pytest.approx(2.0, abs=0.01)
    assert np.all(np.abs(depth - 2.0) < 0.01)  # along the optical axis: flat across the wall
    # out of range: SimRobot's values, max_range beyond it, min_range closer than it
    assert (sim.read('host', 'short') == np.float32(1.5)).all()
    assert (sim.read('host', 'far_min') == np.float32(2.5)).all()


def test_depth_is_max_range_where_nothing_is_in_view(parts, simulate):
    scene = parts.make_scene(parts.sensor_host([depth_camera(), depth_camera('noisy', noise=0.1)]))
    sim = simulate(scene)
    assert (sim.read('host', 'depth') == np.float32(5.0)).all()
    assert (sim.read('host', 'noisy') == np.float32(5.0)).all()  # no noise on "nothing"


def test_camera_and_depth_at_one_pose_share_one_render_per_step(parts, simulate):
    scene = parts.make_scene(parts.sensor_host([camera(), depth_camera()]),
                             parts.static_box('wall', (0.2, 6.0, 6.0), (2.1, 0.0, 1.0)))
    sim = simulate(scene)
    sim.step(3)
    cache = render_cache(sim)
    assert cache.renders == 0  # nothing is rendered that nobody reads
    sim.read('host', 'cam')
    sim.read('host', 'depth')
    sim.read('host', 'cam')
    assert cache.renders == 1
    sim.step()
    sim.read('host', 'depth')
    assert cache.renders == 2


def test_segmentation_separates_two_objects_with_stable_colours(parts, simulate):
    scene = parts.make_scene(
        parts.sensor_host([SegmentationCamera('seg', 'base', 64, 48, FOV_X, FOV_Y)]),
        parts.static_box('left', (0.2, 0.6, 0.6), (2.0, 0.5, 1.0), color=parts.RED),
        parts.static_box('right', (0.2, 0.6, 0.6), (2.0, -0.5, 1.0), color=parts.RED))
    sim = simulate(scene)
    image = sim.read('host', 'seg')
    left, right = image[24, 20].copy(), image[24, 44].copy()
    assert not np.array_equal(left, right)
    assert np.array_equal(image[0, 0], [0, 0, 0])
    sim.step()
    again = sim.read('host', 'seg')
    assert np.array_equal(again[24, 20], left) and np.array_equal(again[24, 44], right)
    reader = create_reader(sim, 'host', scene.entity('host').sensor('seg'))
    assert np.array_equal(reader.read(), again)
    names = reader.entity_names
    assert names[reader.labels[24, 20]] == 'left' and names[reader.labels[24, 44]] == 'right'
    assert reader.labels[0, 0] == -1


def test_camera_noise_is_off_by_default_and_seeded(parts, simulate):
    scene = parts.make_scene(parts.sensor_host([camera(), camera('noisy', noise=0.05)]),
                             parts.static_box('box', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0)))
    sim = simulate(scene)
    clean, noisy = sim.read('host', 'cam'), sim.read('host', 'noisy')
    assert not np.array_equal(clean, noisy)
    background = np.all(clean == np.round(np.array(parts.BACKGROUND[:3]) * 255), axis=-1)
    error = noisy[background].astype(float) - clean[background]
    assert error.std() == pytest.approx(0.05 * 255, rel=0.2)
    assert abs(error.mean()) < 2.0
    assert np.array_equal(clean, sim.read('host', 'cam'))
    # seeded: the same seed gives the same noise, another seed other noise
    again = simulate(scene).read('host', 'noisy')
    other = simulate(scene, seed=7).read('host', 'noisy')
    assert np.array_equal(noisy, again) and not np.array_equal(noisy, other)


def test_camera_read_after_set_pose_in_the_same_step_shows_the_moved_scene(parts, simulate):
    box = parts.free_box('box', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0), color=parts.RED)
    sim = simulate(parts.make_scene(parts.sensor_host([camera()]), box, gravity=(0.0, 0.0, 0.0)))
    r, g, b = (int(c) for c in sim.read('host', 'cam')[12, 16])
    assert r > 100 and g < 40 and b < 40
    sim.set_pose('box', (2.0, 5.0, 1.0), (0.0, 0.0, 0.0, 1.0))  # out of view, same step
    background = np.round(np.array(parts.BACKGROUND[:3]) * 255)
    assert np.array_equal(sim.read('host', 'cam')[12, 16], background)
    sim.set_pose('box', (2.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0))
    assert int(sim.read('host', 'cam')[12, 16][0]) > 100


def test_simulation_uses_the_renderer_it_was_given(parts, simulate, backend):
    from scene_sim_ros.sim.sensors.rendering import renderer_of

    scene = parts.make_scene(parts.sensor_host([camera()]),
                             parts.static_box('box', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0)))
    sim = simulate(scene, renderer=backend)
    r, g, b = (int(c) for c in sim.read('host', 'cam')[12, 16])
    assert renderer_of(sim) == backend
    assert r > 100 and g < 40 and b < 40


def test_the_retired_egl_setting_means_gl_and_auto_prefers_gl(parts, simulate, monkeypatch,
                                                             backend):
    from scene_sim_ros.sim.render import egl_problem
    from scene_sim_ros.sim.sensors.rendering import renderer_of, renderer_policy

    assert renderer_policy('egl') == 'gl'  # PyBullet's EGL plugin is never loaded any more
    monkeypatch.setenv('SCENE_SIM_ROS_RENDERER', 'auto')
    sim = simulate(parts.make_scene(parts.sensor_host([camera()])))
    sim.read('host', 'cam')
    assert renderer_of(sim) == ('gl' if egl_problem() is None else 'tiny')
    with pytest.raises(ValueError, match='unknown renderer'):
        simulate(parts.make_scene(), renderer='vulkan')


def test_a_link_of_several_colours_shows_each_colour(parts, simulate):
    from scene_sim_ros.scene import Box, Entity, Link, Visual

    width, height = 320, 96
    link = Link('base', visuals=(
        Visual(Box((0.3, 0.3, 0.3)), Pose((0.0, 0.4, 0.0)), color=parts.RED),
        Visual(Box((0.3, 0.3, 0.3)), Pose((0.0, -0.4, 0.0)), color=parts.BLUE)))
    two = Entity('two', 'static', (link,), pose=Pose((2.0, 0.0, 1.0)), fixed_base=True)
    sim = simulate(parts.make_scene(parts.sensor_host([camera(width=width, height=height)]),
                                    two))
    image = sim.read('host', 'cam').astype(int)
    left, right = image[height // 2, width // 2 - 55], image[height // 2, width // 2 + 55]
    assert left[0] > 100 and left[2] < 40, left  # red box on the left (+y)
    assert right[2] > 100 and right[0] < 40, right  # blue box on the right


def test_camera_follows_spawn_delete_and_reset(parts, simulate):
    fixed = parts.static_box('box', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0), color=parts.RED)
    sim = simulate(parts.make_scene(parts.sensor_host([camera()]), fixed))
    background = np.round(np.array(parts.BACKGROUND[:3]) * 255)
    assert sim.read('host', 'cam')[12, 16][0] > 100
    sim.set_pose('box', (2.0, 5.0, 1.0), (0.0, 0.0, 0.0, 1.0))  # a fixed body moved by hand
    assert np.array_equal(sim.read('host', 'cam')[12, 16], background)
    sim.remove_entity('box')
    sim.add_entity(parts.static_box('blue', (0.5, 0.5, 0.5), (2.0, 0.0, 1.0), color=parts.BLUE))
    assert sim.read('host', 'cam')[12, 16][2] > 100
    sim.reset()  # the loaded scene again: the red box back in view, the blue one gone
    r, g, b = (int(c) for c in sim.read('host', 'cam')[12, 16])
    assert r > 100 and b < 40
