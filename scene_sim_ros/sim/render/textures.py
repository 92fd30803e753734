"""Texture images for the GL renderer: PNG (8 bits per channel, not interlaced) decoded with
zlib, no imaging library. Other files give None and the visual is drawn in its plain colour."""

from __future__ import annotations

import functools
import struct
import zlib
from pathlib import Path

import numpy as np

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type -> channels (palette images unsupported)


@functools.lru_cache(maxsize=64)
def read_texture(path: Path) -> np.ndarray | None:
    """HxWx{3,4} uint8 of ``path`` (grey images become RGB), None where unsupported."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if not data.startswith(b'\x89PNG\r\n\x1a\n'):
        return None
    try:
        return _decode_png(data)
    except (ValueError, zlib.error, struct.error, KeyError):
        return None


def _decode_png(data: bytes) -> np.ndarray | None:
    position, idat = 8, []
    width = height = depth = color_type = interlace = 0
    while position < len(data):
        length, kind = struct.unpack('>I4s', data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b'IHDR':
            width, height, depth, color_type, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        position += 12 + length
    if depth != 8 or interlace or color_type not in CHANNELS:
        return None
    channels = CHANNELS[color_type]
    raw = np.frombuffer(zlib.decompress(b''.join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    image = np.zeros((height, stride), dtype=np.int32)
    for y in range(height):
        image[y] = _unfilter(int(rows[y, 0]), rows[y, 1:].astype(np.int32),
                             image[y - 1] if y else np.zeros(stride, np.int32), channels)
    pixels = image.astype(np.uint8).reshape(height, width, channels)
    if channels == 1:
        return np.repeat(pixels, 3, axis=2)
    if channels == 2:
        return np.repeat(pixels[:, :, :1], 3, axis=2)
    return pixels


def _unfilter(kind: int, line: np.ndarray, above: np.ndarray, bpp: int) -> np.ndarray:
    if kind == 0:
        return line
    if kind == 2:
        return (line + above) & 0xFF
    out = line.copy()
    for x in range(len(out)):  # Sub, Average and Paeth depend on the pixel to the left
        left = out[x - bpp] if x >= bpp else 0
        up_left = above[x - bpp] if x >= bpp else 0
        if kind == 1:
            out[x] = (out[x] + left) & 0xFF
        elif kind == 3:
            out[x] = (out[x] + (left + above[x]) // 2) & 0xFF
        else:
            p = left + above[x] - up_left
            pa, pb, pc = abs(p - left), abs(p - above[x]), abs(p - up_left)
            predictor = left if pa <= pb and pa <= pc else above[x] if pb <= pc else up_left
            out[x] = (out[x] + predictor) & 0xFF
    return out
