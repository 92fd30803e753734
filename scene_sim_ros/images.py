"""Image files without ROS or PyBullet: PNG encoding of RGB arrays (``snapshot``, the README
pictures of docs/render_examples.py)."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def encode_png(rgb: np.ndarray) -> bytes:
    """8-bit RGB PNG of an HxWx3 array, every row with the 'Sub' filter (rendered images have
    large flat areas, so this compresses far better than no filter)."""
    height, width, _ = rgb.shape
    data = np.ascontiguousarray(rgb, dtype=np.uint8)
    sub = data.copy()
    sub[:, 1:] = data[:, 1:] - data[:, :-1]  # uint8 arithmetic wraps modulo 256, as PNG wants
    rows = np.hstack([np.ones((height, 1), dtype=np.uint8), sub.reshape(height, width * 3)])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xFFFFFFFF))

    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header)
            + chunk(b'IDAT', zlib.compress(rows.tobytes(), 9)) + chunk(b'IEND', b''))
