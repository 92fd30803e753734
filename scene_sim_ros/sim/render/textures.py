"""Texture images, decoded with Pillow for both renderers' sake.

The formats are those PyBullet's ``loadTexture`` (stb_image) also reads, so a texture the GL
renderer shows is one TinyRenderer shows too: PNG of every kind (palette, grey, 16 bits per
channel, interlaced), JPEG (Webots' ImageTexture and SimRobot take these two), BMP, TGA and GIF.
Sixteen-bit channels keep their high byte, as stb_image does; palette and 16-bit PNGs and
progressive JPEGs, which PyBullet refuses, reach it as 8-bit PNG copies
(:func:`readable_by_pybullet`). An image is refused
before its pixels are decoded where it has more than ``max_texture_pixels`` pixels (a few
kilobytes of PNG can declare gigabytes), and by the GL renderer where a side is longer than its
context takes; the visual is then drawn in its plain colour and one warning per file says why
(see :func:`texture_problem` and :func:`read_texture`).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from scene_sim_ros import limits
from scene_sim_ros.errors import SceneLoadError

FORMATS = ('PNG', 'JPEG', 'BMP', 'TGA', 'GIF')
PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
PNG_PALETTE = 3  # IHDR colour type
JPEG_SIGNATURE = b'\xff\xd8'
_log = logging.getLogger(__name__)


def texture_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a texture (unreadable, not an image of :data:`FORMATS`, over
    ``max_texture_pixels``), read from its header only; None where it can. Building a
    simulation reports it in the simulation's warnings (``sim/engines/pybullet/shapes.py``),
    for both renderers."""
    from PIL import Image, UnidentifiedImageError

    try:
        limits.check_file_size(Path(path))
        with _quiet(), Image.open(path, formats=FORMATS) as image:
            width, height = image.size
    except SceneLoadError as err:
        return str(err)
    except Image.DecompressionBombError as err:  # over twice Pillow's own limit
        return str(limits.exceeded('max_texture_pixels', str(err).split(',')[0], path))
    except (OSError, UnidentifiedImageError, ValueError) as err:
        return f'{path}: not a readable {"/".join(FORMATS)} image ({err})'
    limit = limits.current().max_texture_pixels
    if width * height > limit:
        return str(limits.exceeded('max_texture_pixels',
                                   f'image is {width}x{height} = {width * height} pixels', path))
    return None


@functools.lru_cache(maxsize=64)
def read_texture(path: Path, max_side: int | None = None) -> np.ndarray | None:
    """HxWx3 (RGB) or HxWx4 (RGBA, where the image has transparency) uint8 of ``path``, top
    row first; None where it cannot be. What :func:`texture_problem` finds is already among the
    simulation's warnings (logged here at debug level); what only the GL renderer meets (the
    pixels do not decode, a side over its context's ``max_side``) is logged as a warning."""
    problem = texture_problem(path)
    if problem is not None:
        _log.debug('%s; drawn in its plain colour', problem)
        return None
    try:
        image = _decode(path)
    except (OSError, ValueError, MemoryError) as err:
        _log.warning('%s: cannot decode the image (%s); drawn in its plain colour', path, err)
        return None
    height, width = image.shape[:2]
    if max_side is not None and max(width, height) > max_side:
        _log.warning('%s: image is %dx%d, larger than the GL texture size %d; drawn in its '
                     'plain colour', path, width, height, max_side)
        return None
    return image


def readable_by_pybullet(path: Path) -> Path:
    """``path``, or where PyBullet's ``loadTexture`` cannot read it (:func:`_pybullet_refuses`),
    an 8-bit PNG of the same pixels in a folder of this process (removed at exit), so that
    TinyRenderer shows what the GL renderer shows."""
    try:
        stat = os.stat(path)
        refused = _pybullet_refuses(path)
    except OSError:
        return path
    image = read_texture(path) if refused else None
    if image is None:
        return path
    key = f'{path}\0{stat.st_size}\0{stat.st_mtime_ns}'.encode()
    copy = _converted_folder() / f'{hashlib.sha1(key).hexdigest()}.png'
    if not copy.exists():
        from PIL import Image

        Image.fromarray(image).save(copy, compress_level=1)
    return copy


def _pybullet_refuses(path: Path) -> bool:
    """Files PyBullet 3.2.7 answers with "Unsupported texture image format" (and a blank
    texture): palette and 16-bit PNGs, progressive JPEGs (SimRobot's environment/floor.jpg)."""
    with open(path, 'rb') as stream:
        header = stream.read(26)
    if header[:8] == PNG_SIGNATURE:
        return len(header) == 26 and (header[24] != 8 or header[25] == PNG_PALETTE)
    if header[:2] != JPEG_SIGNATURE:
        return False
    from PIL import Image, UnidentifiedImageError

    try:
        with _quiet(), Image.open(path, formats=('JPEG',)) as image:
            return bool(image.info.get('progressive'))
    except (UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return False


@functools.cache
def _converted_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix='scene_sim_ros_textures_'))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _decode(path: Path) -> np.ndarray:
    from PIL import Image

    with _quiet(), Image.open(path, formats=FORMATS) as image:
        image.load()
        if image.mode in ('I;16', 'I;16B', 'I;16L', 'I;16N', 'I'):  # 16-bit grey: its high byte
            grey = (np.asarray(image, dtype=np.uint32) >> 8).astype(np.uint8)
            return np.repeat(grey[:, :, None], 3, axis=2)
        alpha = 'A' in image.getbands() or 'transparency' in image.info
        return np.asarray(image.convert('RGBA' if alpha else 'RGB'), dtype=np.uint8)


@contextmanager
def _quiet() -> Iterator[None]:
    """Without Pillow's own DecompressionBombWarning: the limit above decides (and says so)."""
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', Image.DecompressionBombWarning)
        yield
