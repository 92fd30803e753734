"""A Webots world of a camera facing a grid of small dark boxes on a light wall, and the blob
centres of its image: the checkerboard of the lens tests (issue 46)."""

from __future__ import annotations

import numpy as np

GRID = (-0.6, -0.3, 0.0, 0.3, 0.6)
"""The boxes' lateral and vertical offsets (m) from the optical axis, on a wall 2 m ahead."""
WALL_X = 2.0


def lens_world(width: int, height: int, lens: str = '', device: str = 'Camera',
               extra: str = '', others: str = '') -> str:
    """A robot at 1 m height with ``device`` looking along +x at the grid; ``lens`` the body
    of its ``Lens { }`` node (no lens field when empty); ``others`` more devices on the robot."""
    boxes = '\n'.join(
        f'Solid {{ translation {WALL_X - 0.01} {y} {1 + z} name "dot_{i}_{j}" children [ Shape {{ '
        'appearance Appearance { material Material { diffuseColor 0 0 0 } } '
        'geometry Box { size 0.02 0.06 0.06 } } ] }'
        for i, z in enumerate(GRID) for j, y in enumerate(GRID))
    lens_field = f'lens Lens {{ {lens} }}' if lens else ''
    return f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 10 }}
Background {{ skyColor [ 1 1 1 ] }}
DirectionalLight {{ direction 1 0 0 intensity 1 }}
Solid {{ translation {WALL_X + 0.05} 0 1 name "wall" children [ Shape {{
  appearance Appearance {{ material Material {{ diffuseColor 1 1 1 }} }}
  geometry Box {{ size 0.1 6 6 }} }} ] }}
{boxes}
Robot {{ translation 0 0 1 name "eye" children [
  {device} {{ name "cam" width {width} height {height} fieldOfView 0.7854 {lens_field} {extra} }}
  {others}
] }}
"""


def blob_centres(image: np.ndarray) -> np.ndarray:
    """Darkness-weighted centres (N x 2, x y pixels, OpenCV's pixel centres) of the dark blobs
    of an RGB image, in rows of the grid from top to bottom, each left to right."""
    import cv2

    gray = image.astype(np.float64).mean(axis=2)
    light = np.median(gray)
    darkness = np.clip(light - gray, 0.0, None)
    count, labels = cv2.connectedComponents((darkness > 0.5 * light).astype(np.uint8))
    centres = []
    for label in range(1, count):
        rows, columns = np.nonzero(labels == label)
        if rows.size < 4:
            continue
        # the blob's pixels and a one-pixel ring, weighted by darkness (anti-aliased edges count)
        r0, r1 = max(rows.min() - 1, 0), min(rows.max() + 2, image.shape[0])
        c0, c1 = max(columns.min() - 1, 0), min(columns.max() + 2, image.shape[1])
        patch = darkness[r0:r1, c0:c1]
        yy, xx = np.mgrid[r0:r1, c0:c1]
        centres.append(((patch * xx).sum() / patch.sum(), (patch * yy).sum() / patch.sum()))
    found = np.array(centres)
    found = found[np.argsort(found[:, 1])]  # rows are far apart: chunks of the grid's width
    rows = [found[i:i + len(GRID)] for i in range(0, len(found), len(GRID))]
    return np.concatenate([row[np.argsort(row[:, 0])] for row in rows])


def rows_of(points: np.ndarray, per_row: int = len(GRID)) -> list[np.ndarray]:
    return [points[i:i + per_row] for i in range(0, len(points), per_row)]


def straightness(points: np.ndarray) -> float:
    """The largest distance (px) of a point from the least-squares line through ``points``."""
    centred = points - points.mean(axis=0)
    normal = np.linalg.svd(centred)[2][-1]
    return float(np.abs(centred @ normal).max())
