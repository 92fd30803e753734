"""Per-camera frustum culling of bounding spheres.

The six planes come from the rows of the view-projection matrix (Gribb & Hartmann): a point p
is inside when ``(row3 +- row_k) . (p, 1) >= 0`` for k = x, y, z; a sphere is culled only when it
lies entirely outside one plane, so nothing that touches the view is ever dropped.
"""

from __future__ import annotations

import numpy as np


def frustum_planes(view_projection: np.ndarray) -> np.ndarray:
    """(6, 4) normalised planes ``n . p + d >= 0`` inside, from a row-major 4x4 matrix."""
    m = np.asarray(view_projection, dtype=np.float64)
    planes = np.array([m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1], m[3] + m[2],
                       m[3] - m[2]])
    return planes / np.linalg.norm(planes[:, :3], axis=1, keepdims=True)


def spheres_in_view(planes: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Boolean mask of the spheres (centres (N, 3), radii (N,)) that may be visible."""
    distances = centres @ planes[:, :3].T + planes[:, 3]  # (N, 6)
    return (distances >= -radii[:, None]).all(axis=1)
