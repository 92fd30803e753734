"""A NAO's two cameras in B-Human's Game.ros2 see the field (corpus scene, skipped without it);
the car example's camera sees its field and cones (no corpus needed)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros import Simulation, load_scene
from support.corpus import CORPUS, missing

GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'


def write_png(path: Path, image: np.ndarray) -> None:
    """An 8-bit RGB PNG without extra dependencies."""
    height, width, _ = image.shape
    rows = b''.join(b'\x00' + image[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack('>I', len(data)) + kind + data
                + struct.pack('>I', zlib.crc32(kind + data)))

    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header)
                     + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))


def green_fraction(image: np.ndarray) -> float:
    rgb = image.astype(int)
    return float(((rgb[:, :, 1] > rgb[:, :, 0] + 20) & (rgb[:, :, 1] > rgb[:, :, 2] + 20)).mean())


@pytest.fixture(scope='module')
def game() -> Simulation:
    if not GAME.is_file():
        pytest.skip(missing(GAME))
    sim = Simulation(load_scene(GAME))
    yield sim
    sim.close()


def test_nao_bottom_camera_sees_the_field(game, tmp_path):
    robot = next(e.name for e in game.scene.entities
                 if any(s.name == 'CameraBottom' for s in e.sensors))
    bottom = game.read(robot, 'CameraBottom')
    top = game.read(robot, 'CameraTop')
    write_png(tmp_path / 'CameraBottom.png', bottom)
    write_png(tmp_path / 'CameraTop.png', top)
    assert bottom.shape == (240, 320, 3) and top.shape == (480, 640, 3)
    # robot1 stands on the sideline facing outwards: the bottom camera sees carpet, the top one
    # looks past the carpet's edge
    assert green_fraction(bottom[120:]) > 0.5, f'see {tmp_path}'


def test_car_example_camera_sees_its_grass_field(tmp_path):
    """The same feature on the car example that ships (no corpus needed): its camera, of the size
    its file gives, looks ahead over the grass field (``Surface name="grass"``, green) with the
    orange cones in view."""
    import re

    from scene_sim_ros.resources import example_path
    path = example_path('car')
    text = path.read_text()
    camera = dict(re.findall(r'(\w+)="([^"]*)"', re.search(r'<Camera [^>]*>', text)[0]))
    assert re.search(r'<Surface name="grass" diffuseColor="rgb\(45%, 70%, 40%\)"', text)
    with Simulation(load_scene(path)) as sim:
        sim.step(20)
        image = sim.read('car', camera['name'])
    write_png(tmp_path / 'car_camera.png', image)
    assert image.shape == (int(camera['imageHeight']), int(camera['imageWidth']), 3)
    height = image.shape[0]
    assert green_fraction(image[height * 3 // 4:]) > 0.5, f'see {tmp_path}'   # the field
    rgb = image.astype(int)
    orange = (rgb[:, :, 0] > 180) & (rgb[:, :, 1] > 70) & (rgb[:, :, 1] < 180) & (rgb[:, :, 2] < 60)
    assert orange.any(), f'no cone in view, see {tmp_path}'


def test_gl_lights_the_field_as_simrobot_does_dark_green_not_saturated():
    """B-Human's carpet is ``Surface fieldGreen``: black diffuse, ambient #279f27, under one
    PointLight with ambient 50 %. SimRobot's (OpenGL's) Phong law gives ambient x ambient:
    (19.5, 79.5, 19.5) on the flat carpet, which the GL renderer reproduces; TinyRenderer, with
    one colour per visual, shows the saturated (66, 255, 66)."""
    from scene_sim_ros.sim.render import egl_problem

    if not GAME.is_file():
        pytest.skip(missing(GAME))
    if egl_problem() is not None:
        pytest.skip(f'no GL renderer here: {egl_problem()}')
    scene = load_scene(GAME)
    field = next(v for e in scene.entities for link in e.links for v in link.visuals
                 if v.surface is not None and v.surface.diffuse[:3] == (0.0, 0.0, 0.0)
                 and v.surface.ambient[1] > 0.5)
    assert field.surface.ambient[:3] == pytest.approx((39 / 255, 159 / 255, 39 / 255), abs=1e-3)
    with Simulation(scene, renderer='gl') as sim:
        carpet = sim.read('robot1', 'CameraBottom')[180:, :].reshape(-1, 3).astype(float)
    expected = 0.5 * np.array([39.0, 159.0, 39.0])
    assert np.median(carpet, axis=0) == pytest.approx(expected, abs=2.0)
