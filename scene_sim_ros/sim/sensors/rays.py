"""Ray-cast sensors: spherical depth images (laser scanners) and distance sensors.

Rays hit collision shapes (PyBullet ``rayTestBatch``), not visuals. Hits on the link the sensor
is mounted on are skipped (the ray is continued behind them), as in SimRobot, where a distance
sensor never sees its own body.

Spherical depth columns run from +fov_x/2 (left, seen from the sensor) to -fov_x/2 (right), i.e.
clockwise seen from above; rows from +fov_y/2 (top) to -fov_y/2 (bottom); a one-row image scans
the sensor's xy plane. The reader's ``angle_min`` is the angle of column 0 and
``angle_increment`` the (negative) step; a ``sensor_msgs/LaserScan`` in the usual counter-
clockwise order is ``ranges = row[::-1]`` with ``angle_min = -reader.angle_min`` and
``angle_increment = -reader.angle_increment``. A full circle (fov_x >= 2*pi) spaces columns by
fov_x / width so that the first and the last ray do not coincide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pybullet as p

from ...scene.transforms import matrix_from_quat
from .base import Reader
from .noise import add_gaussian

MAX_BATCH = p.MAX_RAY_INTERSECTION_BATCH_SIZE
SELF_HIT_STEPS = (1e-3, 1e-2, 5e-2, 2e-1)
"""How far (m) behind a hit on the sensor's own link a continued ray starts, per retry (Bullet
reports a hit at once for a ray that starts just inside a shape's surface)."""
APPROX_SPACING = math.radians(1.0)
"""An ApproxDistanceSensor casts a grid of rays about this far apart (objects narrower than that
angle can slip through), at most APPROX_MAX_RAYS per axis."""
APPROX_MAX_RAYS = 91


def cast_rays(sim: Any, origins: np.ndarray, directions: np.ndarray, length: float,
              ignore: tuple[int, int | Sequence[int]] | None = None) -> np.ndarray:
    """Distance (m) along each unit direction to the first hit within ``length`` (``inf`` for
    none), skipping hits on the ``(body, link or links)`` ``ignore``."""
    origins = np.broadcast_to(origins, directions.shape).astype(np.float64)
    distances = np.full(len(directions), np.inf)
    start = np.zeros(len(directions))
    pending = np.arange(len(directions))
    for step in (*SELF_HIT_STEPS, None):
        if pending.size == 0:
            break
        froms = origins[pending] + directions[pending] * start[pending, None]
        tos = origins[pending] + directions[pending] * length
        hits = _ray_batch(sim, froms, tos)
        bodies, links, fractions = hits[:, 0], hits[:, 1], hits[:, 2]
        remaining = length - start[pending]
        hit = bodies >= 0
        own = hit & (bodies == ignore[0]) & np.isin(links, ignore[1]) if ignore \
            else np.zeros_like(hit)
        done = hit & ~own
        distances[pending[done]] = start[pending[done]] + fractions[done] * remaining[done]
        if step is None:
            break
        start[pending[own]] += fractions[own] * remaining[own] + step
        pending = pending[own & (start[pending] < length)]
    return distances


def _ray_batch(sim: Any, froms: np.ndarray, tos: np.ndarray) -> np.ndarray:
    """(N, 3) rows of body, link, hit fraction (body -1: no hit)."""
    rows = []
    for i in range(0, len(froms), MAX_BATCH):
        results = p.rayTestBatch(froms[i:i + MAX_BATCH].tolist(), tos[i:i + MAX_BATCH].tolist(),
                                 physicsClientId=sim.client)
        rows.extend((r[0], r[1], r[2]) for r in results)
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def column_angles(fov: float, count: int) -> np.ndarray:
    """Angles from +fov/2 downwards; a full circle does not repeat its first ray."""
    if count == 1:
        return np.zeros(1)
    step = fov / count if fov >= 2.0 * math.pi - 1e-9 else fov / (count - 1)
    return fov / 2.0 - step * np.arange(count)


class _RayReader(Reader):
    def __init__(self, sim: Any, entity: str, sensor: Any, directions: np.ndarray) -> None:
        super().__init__(sim, entity, sensor)
        self.directions = directions  # unit vectors in the sensor frame, (N, 3)
        self.ignore = (sim.body_id(entity), sim.own_link_indices(entity, sensor.link))

    def ranges(self) -> np.ndarray:
        pose = self.sensor_pose()
        rotation = np.array(matrix_from_quat(pose.orientation))
        world = self.directions @ rotation.T
        return cast_rays(self.sim, np.asarray(pose.position), world, self.sensor.max_range,
                         self.ignore)

    def to_rep117(self, distances: np.ndarray) -> np.ndarray:
        """+inf beyond ``max_range`` (or no hit), -inf closer than ``min_range``."""
        out = np.where(distances > self.sensor.max_range, np.inf, distances)
        return np.where(out < self.sensor.min_range, -np.inf, out)


def _unit_rays(yaw: np.ndarray, pitch: np.ndarray) -> np.ndarray:
    """Directions (x forward, y left, z up) for every (pitch row, yaw column), shape (H*W, 3)."""
    pitch_grid, yaw_grid = np.meshgrid(pitch, yaw, indexing='ij')
    cos_pitch = np.cos(pitch_grid)
    return np.stack((cos_pitch * np.cos(yaw_grid), cos_pitch * np.sin(yaw_grid),
                     np.sin(pitch_grid)), axis=-1).reshape(-1, 3)


class SphericalDepthReader(_RayReader):
    """HxW float32 range along each ray (REP-118 values), see the module docstring for the order."""

    def __init__(self, sim: Any, entity: str, sensor: Any) -> None:
        yaw = column_angles(sensor.fov_x, sensor.width)
        pitch = column_angles(sensor.fov_y, sensor.height)
        super().__init__(sim, entity, sensor, _unit_rays(yaw, pitch))
        self.angle_min = float(yaw[0])
        self.angle_max = float(yaw[-1])
        self.angle_increment = float(yaw[1] - yaw[0]) if len(yaw) > 1 else 0.0

    def read(self) -> np.ndarray:
        s = self.sensor
        image = self.to_rep117(self.ranges()).reshape(s.height, s.width).astype(np.float32)
        return add_gaussian(self.sim.rng, image, s.noise)


class SingleDistanceReader(_RayReader):
    """Metres to the first hit along +x; +inf if nothing within ``max_range``, -inf if closer than
    ``min_range`` (REP-117, as ``sensor_msgs/Range``)."""

    def __init__(self, sim: Any, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor, np.array([[1.0, 0.0, 0.0]]))

    def read(self) -> float:
        distance = float(self.to_rep117(self.ranges())[0])
        return float(add_gaussian(self.sim.rng, distance, self.sensor.noise))


def _ray_count(fov: float) -> int:
    return min(APPROX_MAX_RAYS, int(math.ceil(fov / APPROX_SPACING)) + 1)


class ApproxDistanceReader(_RayReader):
    """The nearest hit (m, along the ray) within the ``fov_x`` x ``fov_y`` pyramid around +x,
    sampled by a grid of rays; REP-117 values like :class:`SingleDistanceReader`."""

    def __init__(self, sim: Any, entity: str, sensor: Any) -> None:
        ys = np.tan(np.linspace(-sensor.fov_x / 2.0, sensor.fov_x / 2.0, _ray_count(sensor.fov_x)))
        zs = np.tan(np.linspace(-sensor.fov_y / 2.0, sensor.fov_y / 2.0, _ray_count(sensor.fov_y)))
        z_grid, y_grid = np.meshgrid(zs, ys, indexing='ij')
        rays = np.stack((np.ones_like(y_grid), y_grid, z_grid), axis=-1).reshape(-1, 3)
        super().__init__(sim, entity, sensor, rays / np.linalg.norm(rays, axis=1, keepdims=True))

    def read(self) -> float:
        distance = float(self.to_rep117(np.array([self.ranges().min()]))[0])
        return float(add_gaussian(self.sim.rng, distance, self.sensor.noise))
