"""Texture files decoded with Pillow (render.textures): every PNG kind, JPEG, BMP, GIF, made in
the test; refused when too large; and a textured box drawn in the texture's colour by both
renderers (the GL half skipped, saying why, where no EGL context can be made)."""

from __future__ import annotations

import logging
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scene_sim_ros import Simulation, limits
from scene_sim_ros.scene import Box, Entity, Link, Mesh, Pose, Scene, Visual
from scene_sim_ros.sim.render import egl_problem
from scene_sim_ros.sim.render.textures import read_texture, texture_problem
from scene_sim_ros.sim.sensors.rendering import View, render_cache

JPEG_TOLERANCE = 4  # levels of 255: solid 8x8-aligned blocks at quality 95 come back this close
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2))  # x0, y0, dx, dy of the seven passes
needs_gl = pytest.mark.skipif(egl_problem() is not None,
                              reason=f'no GL renderer here: {egl_problem()}')


def decode(path: Path) -> np.ndarray | None:
    return read_texture.__wrapped__(path)  # not the per-process cache: files differ per test


def pixels(height: int = 16, width: int = 24, channels: int = 3, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, channels), np.uint8)


def png_by_hand(path: Path, image: np.ndarray, depth: int, colour_type: int,
                interlaced: bool = False, declared: tuple[int, int] | None = None) -> Path:
    """A PNG with filter 0 rows, for the kinds Pillow cannot write (16-bit RGB, Adam7);
    ``declared``: the (width, height) its header claims instead of the image's."""
    height, width = image.shape[:2]
    big_endian = image.astype('>u2') if depth == 16 else image.astype(np.uint8)

    def rows(part: np.ndarray) -> bytes:
        return b''.join(b'\0' + row.tobytes() for row in part)

    if interlaced:
        raw = b''.join(rows(big_endian[y0::dy, x0::dx]) for x0, y0, dx, dy in ADAM7
                       if big_endian[y0::dy, x0::dx].size)
    else:
        raw = rows(big_endian)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xFFFFFFFF))

    width, height = declared or (width, height)
    header = struct.pack('>IIBBBBB', width, height, depth, colour_type, 0, 0, int(interlaced))
    path.write_bytes(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header)
                     + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
    return path


def test_eight_bit_rgb_rgba_grey_and_grey_alpha_pngs_decode_exactly(tmp_path):
    rgb, rgba = pixels(), pixels(channels=4, seed=2)
    Image.fromarray(rgb).save(tmp_path / 'rgb.png')
    Image.fromarray(rgba).save(tmp_path / 'rgba.png')
    Image.fromarray(rgb[:, :, 0]).save(tmp_path / 'grey.png')
    Image.fromarray(rgba[:, :, :2], 'LA').save(tmp_path / 'grey_alpha.png')
    assert np.array_equal(decode(tmp_path / 'rgb.png'), rgb)
    assert np.array_equal(decode(tmp_path / 'rgba.png'), rgba)
    assert np.array_equal(decode(tmp_path / 'grey.png'), np.repeat(rgb[:, :, :1], 3, axis=2))
    grey_alpha = decode(tmp_path / 'grey_alpha.png')
    assert grey_alpha is not None and grey_alpha.shape == (16, 24, 4)
    assert np.array_equal(grey_alpha[:, :, :3], np.repeat(rgba[:, :, :1], 3, axis=2))
    assert np.array_equal(grey_alpha[:, :, 3], rgba[:, :, 1])


def test_palette_pngs_decode_to_their_colours_and_keep_a_transparent_index(tmp_path):
    palette_image = Image.fromarray(pixels()).quantize(colors=16)
    palette_image.save(tmp_path / 'palette.png')
    assert Image.open(tmp_path / 'palette.png').mode == 'P'
    assert np.array_equal(decode(tmp_path / 'palette.png'),
                          np.asarray(palette_image.convert('RGB')))
    palette_image.save(tmp_path / 'cut_out.png', transparency=0)  # index 0 transparent
    cut_out = decode(tmp_path / 'cut_out.png')
    assert cut_out is not None and cut_out.shape[2] == 4
    index = np.asarray(palette_image)
    assert np.array_equal(cut_out[:, :, 3] == 0, index == 0)
    assert (index == 0).any() and (index != 0).any()


def test_sixteen_bit_pngs_keep_the_high_byte_as_stb_image_does(tmp_path):
    rng = np.random.default_rng(3)
    grey = rng.integers(0, 65536, (16, 24), np.uint16)
    Image.fromarray(grey).save(tmp_path / 'grey16.png')
    assert Image.open(tmp_path / 'grey16.png').mode == 'I;16'
    assert np.array_equal(decode(tmp_path / 'grey16.png'),
                          np.repeat((grey >> 8).astype(np.uint8)[:, :, None], 3, axis=2))
    colour = rng.integers(0, 65536, (16, 24, 3), np.uint16)
    png_by_hand(tmp_path / 'rgb16.png', colour, 16, 2)
    assert np.array_equal(decode(tmp_path / 'rgb16.png'), (colour >> 8).astype(np.uint8))


def test_interlaced_pngs_decode_exactly(tmp_path):
    image = pixels(13, 19)  # not a multiple of 8: some passes are partly empty
    png_by_hand(tmp_path / 'adam7.png', image, 8, 2, interlaced=True)
    assert Image.open(tmp_path / 'adam7.png').info.get('interlace') == 1
    assert np.array_equal(decode(tmp_path / 'adam7.png'), image)


def blocks(colours: list[tuple[int, int, int]], size: int = 16) -> np.ndarray:
    """Side by side squares of ``colours``, aligned with JPEG's 8x8 (and 16x16) blocks."""
    return np.concatenate([np.full((size, size, 3), c, np.uint8) for c in colours], axis=1)


def test_jpegs_decode_to_their_colours_within_the_stated_tolerance(tmp_path):
    image = blocks([(200, 40, 90), (20, 180, 60), (250, 250, 250), (10, 10, 120)])
    Image.fromarray(image).save(tmp_path / 'blocks.jpg', quality=95)
    decoded = decode(tmp_path / 'blocks.jpg')
    assert decoded is not None and decoded.shape == image.shape
    error = np.abs(decoded.astype(int) - image)
    centres = error.reshape(16, 4, 16, 3)[4:12, :, 4:12]  # upsampled chroma blurs the borders
    assert centres.max() <= JPEG_TOLERANCE
    assert error.mean() <= JPEG_TOLERANCE


def test_bmp_and_gif_decode_too(tmp_path):
    image = pixels()
    Image.fromarray(image).save(tmp_path / 'image.bmp')
    assert np.array_equal(decode(tmp_path / 'image.bmp'), image)
    few = Image.fromarray(image).quantize(colors=8)
    few.save(tmp_path / 'image.gif')
    assert np.array_equal(decode(tmp_path / 'image.gif'), np.asarray(few.convert('RGB')))


def test_unreadable_and_oversized_images_are_refused_saying_why_before_decoding(tmp_path,
                                                                             caplog):
    (tmp_path / 'junk.png').write_bytes(b'not an image')
    huge = tmp_path / 'huge.png'  # 100000 x 100000 declared in a file of 70 bytes
    png_by_hand(huge, np.zeros((1, 1, 3), np.uint8), 8, 2, declared=(100_000, 100_000))
    png_by_hand(tmp_path / 'large.png', np.zeros((1, 1, 3), np.uint8), 8, 2,
                declared=(9000, 9000))  # over the default limit, under Pillow's own
    Image.fromarray(pixels(100, 100)).save(tmp_path / 'big.png')
    with limits.override(max_texture_pixels=9999):
        over_override = texture_problem(tmp_path / 'big.png')
    problems = [texture_problem(tmp_path / name)
                for name in ('junk.png', 'missing.png', 'huge.png', 'large.png')]
    assert 'junk.png: not a readable PNG/JPEG' in str(problems[0])
    assert 'missing.png: cannot read file' in str(problems[1])
    assert 'huge.png' in str(problems[2]) and 'max_texture_pixels' in str(problems[2])
    assert ('9000x9000 = 81000000 pixels, over the limit max_texture_pixels = 67108864 '
            '(raise it with SCENE_SIM_ROS_MAX_TEXTURE_PIXELS=...)') in str(problems[3])
    assert '100x100 = 10000 pixels, over the limit max_texture_pixels = 9999' in str(over_override)
    assert texture_problem(tmp_path / 'big.png') is None
    # building a simulation reports these (test below); the GL renderer adds no second warning
    with caplog.at_level(logging.WARNING, logger='scene_sim_ros.sim.render.textures'):
        for name in ('junk.png', 'missing.png', 'huge.png', 'large.png'):
            assert decode(tmp_path / name) is None
    assert not caplog.records


def test_the_gl_renderer_warns_of_an_image_larger_than_its_context_takes(tmp_path, caplog):
    Image.fromarray(pixels(10, 300)).save(tmp_path / 'wide.png')
    with caplog.at_level(logging.WARNING, logger='scene_sim_ros.sim.render.textures'):
        assert read_texture.__wrapped__(tmp_path / 'wide.png', 256) is None
        assert read_texture.__wrapped__(tmp_path / 'wide.png', 300) is not None
    assert [r.getMessage() for r in caplog.records] == [
        f'{tmp_path / "wide.png"}: image is 300x10, larger than the GL texture size 256; '
        'drawn in its plain colour']


# -- drawn ------------------------------------------------------------------------------------

TEXTURE_COLOUR = (200, 40, 90)
RENDER_TOLERANCE = 6  # levels of 255: JPEG error plus mipmap filtering of a uniform image


def face_colour(renderer: str, texture: Path | None, colour=(1.0, 1.0, 1.0, 1.0)):
    """The centre pixel of a 1 m box face 2 m ahead, and the simulation's warnings."""
    box = Entity('box', 'static', (Link('base', visuals=(
        Visual(Box((0.2, 1.0, 1.0)), color=colour, texture=texture),)),),
        pose=Pose((2.0, 0.0, 0.0)), fixed_base=True)
    sim = Simulation(Scene('textured', (box,)), renderer=renderer)
    try:
        frame = render_cache(sim).frame(View.of(Pose(), 40, 30, 1.0, 0.78), 0.01, 50.0, True)
        return frame.rgb[15, 20].astype(int), list(sim.warnings)
    finally:
        sim.close()


def texture_files(folder: Path) -> list[Path]:
    """A uniform image of :data:`TEXTURE_COLOUR` as JPEG, progressive JPEG, palette PNG and
    16-bit PNG (PyBullet itself reads only the first: the others reach it as 8-bit copies)."""
    image = np.full((32, 32, 3), TEXTURE_COLOUR, np.uint8)
    Image.fromarray(image).save(folder / 'uniform.jpg', quality=95)
    Image.fromarray(image).save(folder / 'progressive.jpg', quality=95, progressive=True)
    Image.fromarray(image).quantize(colors=4).save(folder / 'palette.png')
    png_by_hand(folder / 'deep.png', image.astype(np.uint16) * 257, 16, 2)
    return [folder / name for name in ('uniform.jpg', 'progressive.jpg', 'palette.png',
                                       'deep.png')]


@pytest.mark.parametrize('renderer', [pytest.param('gl', marks=needs_gl), 'tiny'])
def test_a_textured_box_shows_the_textures_colour_in_both_renderers(renderer, tmp_path):
    plain, _ = face_colour(renderer, None, (*(c / 255.0 for c in TEXTURE_COLOUR), 1.0))
    white, _ = face_colour(renderer, None)
    assert np.abs(plain - white).max() > 50  # the texture's colour is not the lit white
    for path in texture_files(tmp_path):
        textured, warnings = face_colour(renderer, path)
        assert np.abs(textured - plain).max() <= RENDER_TOLERANCE, (path.name, textured, plain)
        assert not warnings


@pytest.mark.parametrize('renderer', [pytest.param('gl', marks=needs_gl), 'tiny'])
def test_an_oversized_texture_is_drawn_in_plain_colour_in_both_renderers(renderer, tmp_path,
                                                                         caplog):
    path = texture_files(tmp_path)[0]
    colour = (0.1, 0.8, 0.3, 1.0)
    plain, _ = face_colour(renderer, None, colour)
    with limits.override(max_texture_pixels=32 * 32 - 1), caplog.at_level(logging.WARNING):
        refused, warnings = face_colour(renderer, path, colour)
    assert np.array_equal(refused, plain)
    said = warnings + [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len([w for w in said if 'uniform.jpg' in w]) == 1  # once, in the sim's warnings
    assert [w for w in warnings if 'uniform.jpg' in w and 'max_texture_pixels' in w]


QUADRANTS = {(0, 0): (220, 30, 30), (0, 1): (30, 200, 30), (1, 0): (30, 30, 220),
             (1, 1): (230, 230, 40)}  # (image row half, column half) -> colour


@pytest.mark.parametrize('renderer', [pytest.param('gl', marks=needs_gl), 'tiny'])
def test_a_meshs_texture_coordinates_place_the_image_alike_in_both_renderers(renderer,
                                                                           tmp_path):
    """A quad facing the camera, texture coordinates (0, 0) at its bottom left and (1, 1) at
    its top right (OpenGL's convention, as in .obj files): the image's top left quadrant shows
    at the top left. (Primitives' own texture coordinates differ between the renderers.)"""
    image = np.zeros((32, 32, 3), np.uint8)
    for (row, column), colour in QUADRANTS.items():
        image[16 * row:16 * row + 16, 16 * column:16 * column + 16] = colour
    Image.fromarray(image).save(tmp_path / 'quadrants.png')
    left_bottom, right_bottom, right_top, left_top = [0, 0.5, -0.5], [0, -0.5, -0.5], \
        [0, -0.5, 0.5], [0, 0.5, 0.5]  # seen from -x: y to the left
    quad = Mesh(np.array([left_bottom, right_bottom, right_top, left_top], float),
                np.array([[0, 1, 2], [0, 2, 3]]), None,
                np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float), name='quad')
    entity = Entity('quad', 'static', (Link('base', visuals=(
        Visual(quad, texture=tmp_path / 'quadrants.png'),)),), pose=Pose((2.0, 0.0, 0.0)),
        fixed_base=True)
    sim = Simulation(Scene('quad', (entity,)), renderer=renderer)
    try:
        rgb = render_cache(sim).frame(View.of(Pose(), 40, 30, 1.0, 0.78), 0.01, 50.0).rgb
        for quadrant in QUADRANTS:
            seen = rgb[9 + 12 * quadrant[0], 14 + 12 * quadrant[1]].astype(float)
            assert nearest_hue(seen) == quadrant, (quadrant, seen)
    finally:
        sim.close()


def nearest_hue(seen: np.ndarray) -> tuple[int, int]:
    """The quadrant whose colour points the same way as ``seen`` (lighting scales brightness)."""
    def cosine(colour) -> float:
        return float(seen @ colour / np.linalg.norm(seen) / np.linalg.norm(colour))
    return max(QUADRANTS, key=lambda quadrant: cosine(np.array(QUADRANTS[quadrant], float)))
