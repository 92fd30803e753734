"""Height-map sources of RaiSim worlds: text files, PNG images and the fractal generator.

Every function returns heights as a 2-D array, rows along +y and columns along +x (the
convention of :class:`~scene_sim_ros.scene.geometry.Heightfield`). RaiSim's flat height vectors
are x-fastest (``heights[j * x_samples + i]``), with ``j`` counting along +y.

- Text files hold ``x_samples y_samples x_size y_size`` followed by the heights.
- PNG images (a small reader on :mod:`zlib`, no imaging dependency): 8- or 16-bit grey, grey with
  alpha, RGB(A) (the red channel is used) or palette images, non-interlaced. The image is seen
  from above with its top row at +y; height = ``z_offset + z_scale * sample`` with the raw sample
  value (0..255 or 0..65535).
- The fractal terrain is octave value noise (``frequency``, ``fractal_octaves``,
  ``fractal_lacunarity``, ``fractal_gain``, ``z_scale``, ``height_offset``, ``step_size``
  quantisation) seeded by ``seed``. It is deterministic for a seed but NOT bit-identical to
  RaiSim's generator, which is closed source.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scene_sim_ros import limits

from ...errors import SceneLoadError

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


class TerrainError(ValueError):
    """A height-map source is malformed; the message says how."""


def heights_from_vector(values: list[float], x_samples: int, y_samples: int) -> np.ndarray:
    if x_samples < 2 or y_samples < 2:
        raise TerrainError(f'a height map needs at least 2x2 samples, got {x_samples}x{y_samples}')
    if len(values) != x_samples * y_samples:
        raise TerrainError(f'{len(values)} heights given for {x_samples}x{y_samples} samples')
    return np.asarray(values, dtype=np.float64).reshape(y_samples, x_samples)


@dataclass(frozen=True)
class TextHeightMap:
    heights: np.ndarray
    x_size: float
    y_size: float


def read_text_height_map(path: Path) -> TextHeightMap:
    try:
        tokens = limits.read_text(path).replace(',', ' ').split()
    except SceneLoadError as err:
        raise TerrainError(f'cannot read height map: {err}') from None
    try:
        numbers = [float(t) for t in tokens]
    except ValueError as err:
        raise TerrainError(f'height map {path} holds a non-number: {err}') from None
    if len(numbers) < 4:
        raise TerrainError(f'height map {path} needs x_samples y_samples x_size y_size first')
    x_samples, y_samples = int(numbers[0]), int(numbers[1])
    heights = heights_from_vector(numbers[4:], x_samples, y_samples)
    return TextHeightMap(heights, numbers[2], numbers[3])


# --- PNG ----------------------------------------------------------------------------------------

def read_png_samples(path: Path) -> np.ndarray:
    """The first channel of a PNG image as integers, shape (height, width), top row first."""
    try:
        data = limits.read_bytes(path)
    except SceneLoadError as err:
        raise TerrainError(f'cannot read height map: {err}') from None
    if not data.startswith(PNG_SIGNATURE):
        raise TerrainError(f'{path} is not a PNG file')
    header: tuple[int, ...] | None = None
    palette: bytes = b''
    compressed = bytearray()
    offset = len(PNG_SIGNATURE)
    while offset + 8 <= len(data):
        length, kind = struct.unpack('>I4s', data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        offset += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'PLTE':
            palette = body
        elif kind == b'IDAT':
            compressed += body
        elif kind == b'IEND':
            break
    if header is None:
        raise TerrainError(f'{path}: PNG without IHDR')
    width, height, depth, colour, _, _, interlace = header
    if interlace or colour not in CHANNELS or depth not in (8, 16):
        raise TerrainError(f'{path}: unsupported PNG (bit depth {depth}, colour type {colour}, '
                           f'interlace {interlace}); use 8/16-bit non-interlaced')
    bytes_per_pixel = CHANNELS[colour] * depth // 8
    raw = zlib.decompress(bytes(compressed))
    pixels = _unfilter(raw, width * bytes_per_pixel, height, bytes_per_pixel)
    if depth == 16:
        samples = pixels.reshape(height, width, CHANNELS[colour], 2)
        values = samples[..., 0, 0].astype(np.int64) * 256 + samples[..., 0, 1]
    else:
        values = pixels.reshape(height, width, CHANNELS[colour])[..., 0].astype(np.int64)
    if colour == 3:
        reds = np.frombuffer(palette, dtype=np.uint8)[0::3].astype(np.int64)
        values = reds[values]
    return values


def _unfilter(raw: bytes, stride: int, rows: int, bpp: int) -> np.ndarray:
    if len(raw) < rows * (stride + 1):
        raise TerrainError('PNG image data is truncated')
    out = np.zeros((rows, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int64)
    for row in range(rows):
        start = row * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).astype(np.int64)
        if kind == 0:
            current = line
        elif kind == 1:
            current = _unfilter_sub(line, bpp)
        elif kind == 2:
            current = (line + previous) & 0xFF
        elif kind in (3, 4):
            current = _unfilter_sequential(line, previous, bpp, kind)
        else:
            raise TerrainError(f'unknown PNG filter type {kind}')
        out[row] = current
        previous = current
    return out


def _unfilter_sub(line: np.ndarray, bpp: int) -> np.ndarray:
    padded = np.zeros(-(-len(line) // bpp) * bpp, dtype=np.int64)
    padded[:len(line)] = line
    return (np.cumsum(padded.reshape(-1, bpp), axis=0).reshape(-1)[:len(line)]) & 0xFF


def _unfilter_sequential(line: np.ndarray, previous: np.ndarray, bpp: int, kind: int) -> np.ndarray:
    current = [0] * len(line)
    above = previous.tolist()
    values = line.tolist()
    for i, value in enumerate(values):
        left = current[i - bpp] if i >= bpp else 0
        up = above[i]
        if kind == 3:
            predictor = (left + up) >> 1
        else:  # Paeth
            upper_left = above[i - bpp] if i >= bpp else 0
            estimate = left + up - upper_left
            pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
        current[i] = (value + predictor) & 0xFF
    return np.asarray(current, dtype=np.int64)


def png_heights(path: Path, z_scale: float, z_offset: float) -> np.ndarray:
    samples = read_png_samples(path)
    return z_offset + z_scale * samples[::-1].astype(np.float64)  # top image row is +y


# --- fractal terrain ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TerrainProperties:
    frequency: float = 0.2
    z_scale: float = 1.0
    octaves: int = 3
    lacunarity: float = 2.0
    gain: float = 0.5
    step_size: float = 0.0
    height_offset: float = 0.0
    seed: int = 0


def _lattice_values(ix: np.ndarray, iy: np.ndarray, octave: int, seed: int) -> np.ndarray:
    """Deterministic pseudo-random values in [-1, 1] per integer lattice point (a 64-bit mix)."""
    with np.errstate(over='ignore'):
        h = (ix.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
             ^ iy.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
             ^ np.uint64((seed * 1000003 + octave * 7919) & 0xFFFFFFFFFFFFFFFF))
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) * 2.0 - 1.0


def _value_noise(x: np.ndarray, y: np.ndarray, octave: int, seed: int) -> np.ndarray:
    x0, y0 = np.floor(x), np.floor(y)
    tx, ty = x - x0, y - y0
    sx, sy = tx * tx * (3 - 2 * tx), ty * ty * (3 - 2 * ty)  # smoothstep
    ix, iy = x0.astype(np.int64), y0.astype(np.int64)
    v00 = _lattice_values(ix, iy, octave, seed)
    v10 = _lattice_values(ix + 1, iy, octave, seed)
    v01 = _lattice_values(ix, iy + 1, octave, seed)
    v11 = _lattice_values(ix + 1, iy + 1, octave, seed)
    return (v00 * (1 - sx) + v10 * sx) * (1 - sy) + (v01 * (1 - sx) + v11 * sx) * sy


def fractal_heights(properties: TerrainProperties, x_samples: int, y_samples: int,
                    x_size: float, y_size: float) -> np.ndarray:
    """Octave value noise sampled on the grid, in metres."""
    if x_samples < 2 or y_samples < 2:
        raise TerrainError(f'a height map needs at least 2x2 samples, got {x_samples}x{y_samples}')
    xs = np.linspace(-x_size / 2.0, x_size / 2.0, x_samples)
    ys = np.linspace(-y_size / 2.0, y_size / 2.0, y_samples)
    grid_x, grid_y = np.meshgrid(xs, ys)  # rows along y
    total = np.zeros_like(grid_x)
    frequency, amplitude = properties.frequency, 1.0
    for octave in range(max(1, properties.octaves)):
        # offset each octave so that lattice points of different octaves do not line up
        total += amplitude * _value_noise(grid_x * frequency + 0.5 * octave,
                                          grid_y * frequency + 0.5 * octave,
                                          octave, properties.seed)
        frequency *= properties.lacunarity
        amplitude *= properties.gain
    heights = total * properties.z_scale
    if properties.step_size > 0.0:
        heights = np.floor(heights / properties.step_size) * properties.step_size
    return heights + properties.height_offset
