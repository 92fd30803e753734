"""A NAO's two cameras in B-Human's Game.ros2 see the field (corpus scene, skipped without it)."""

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
