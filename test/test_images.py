"""PNG encoding (scene_sim_ros.images): what a PNG decoder reads back is the array given."""

import zlib

import numpy as np

from scene_sim_ros.images import encode_png


def _decode(data: bytes) -> np.ndarray:
    """Width, height and pixels of an 8-bit RGB PNG with 'Sub'-filtered rows (one IDAT)."""
    assert data.startswith(b'\x89PNG\r\n\x1a\n')
    width, height = int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')
    at = data.index(b'IDAT')
    length = int.from_bytes(data[at - 4:at], 'big')
    rows = np.frombuffer(zlib.decompress(data[at + 4:at + 4 + length]), np.uint8)
    rows = rows.reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 1).all()  # every row: filter type 1 (Sub)
    deltas = rows[:, 1:].reshape(height, width, 3).astype(np.int64)
    return (np.cumsum(deltas, axis=1) % 256).astype(np.uint8)


def test_png_round_trip_of_random_pixels():
    rgb = np.random.default_rng(7).integers(0, 256, (13, 9, 3), dtype=np.uint8)
    assert (_decode(encode_png(rgb)) == rgb).all()


def test_png_of_a_flat_image_is_small():
    flat = np.full((240, 320, 3), (40, 120, 40), dtype=np.uint8)
    assert len(encode_png(flat)) < 2000  # the Sub filter turns flat rows into zeros
