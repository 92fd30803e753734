"""Ray-cast sensors: spherical depth images (laser scanners) and distance sensors.

Rays hit collision shapes (``Simulator.cast_rays``: PyBullet's ``rayTestBatch``, MuJoCo's
``mj_multiRay``), not visuals. Hits on the link the sensor is mounted on are skipped (MuJoCo
excludes its body; PyBullet's rays are continued behind them, :mod:`scene_sim_ros.sim.ray_casts`),
as in SimRobot, where a distance sensor never sees its own body.

Spherical depth columns run from +fov_x/2 (left, seen from the sensor) to -fov_x/2 (right), i.e.
clockwise seen from above; rows from +fov_y/2 (top) to -fov_y/2 (bottom); a one-row image scans
the sensor's xy plane. The reader's ``angle_min`` is the angle of column 0 and
``angle_increment`` the (negative) step; a ``sensor_msgs/LaserScan`` in the usual counter-
clockwise order is ``ranges = row[::-1]`` with ``angle_min = -reader.angle_min`` and
``angle_increment = -reader.angle_increment``. A full circle (fov_x >= 2*pi) spaces columns by
fov_x / width so that the first and the last ray do not coincide.

Out of range, ``Simulation.read`` returns what SimRobot returns: a reading is clamped to
``[min_range, max_range]`` - no hit within ``max_range`` reads ``max_range``, a hit closer than
``min_range`` reads ``min_range``. Gaussian noise is added to hits before the clamp, never to
"no hit". The ROS layer turns the limits into REP-117/REP-118 values
(:func:`scene_sim_ros.ros.bridge.conversions.to_rep117`): a reading ``>= max_range`` becomes +inf, one
``<= min_range`` (when ``min_range > 0``) -inf. SimRobot's value cannot tell a hit exactly at
``max_range`` (or ``min_range``) from no hit (a hit too close), so both are treated as out of
range there; a hit within float32 precision of a limit is therefore published as +inf/-inf.

What SimRobot does (bhuman/SimRobot; Core2 on ODE at 5710337c3b18, the last commit before
a21086e "Replace ODE with MuJoCo" - the same logic at 7348c36e8611; Core3 at HEAD 2bf4e575fcba):

- SingleDistanceSensor, Core2: Src/SimRobotCore2/Simulation/Sensors/SingleDistanceSensor.cpp:26
  (an ODE ray of length ``max``), :94-104 (nearest contact; below ``min`` -> ``min``; no contact
  -> ``max``). Core3: Src/SimRobotCore3/Simulation/Sensors/SingleDistanceSensor.cpp:62-70
  (``mj_ray``; no hit (< 0) -> ``max``, ``< min`` -> ``min``, ``> max`` -> ``max``).
- ApproxDistanceSensor, Core2 only (removed with ODE in a21086e, not in Core3):
  Src/SimRobotCore2/Simulation/Sensors/ApproxDistanceSensor.cpp:126-138 (search starts at
  ``max``^2; below ``min`` -> ``min``; nothing -> ``max``).
- DepthImageSensor (Core2 and Core3, same file and lines in both):
  Src/SimRobotCore{2,3}/Simulation/Sensors/DepthImageSensor.cpp:46 (spherical only with one
  row), :97-99 (near plane ``max(min, 1 mm)``, far plane ``max``), :245-246 (perspective: the
  linearised depth buffer, an empty pixel gives the far plane = ``max``), :260 (spherical:
  ``min(range, max)``). Nothing is clamped to ``min`` there: geometry nearer than the near plane
  is clipped away and the pixel shows what lies behind it. Here the rays start at the sensor and
  a too-close hit reads ``min_range``, as SimRobot's distance sensors do.

Sensors from other formats follow the same rule: the scene model does not record which
simulator a sensor came from (``Scene.format`` names the loader of the scene file, not of
entities added later). Webots' DistanceSensor agrees (out of range it returns its lookup
table's value at the largest distance, which is ``max_range`` in metres here); Webots' Lidar and
RangeFinder return +inf both beyond ``maxRange`` and closer than ``minRange``, which the ROS
topics give (+inf/-inf) but ``Simulation.read`` does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.scene.transforms import matrix_from_quat
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.noise import add_gaussian
from scene_sim_ros.sim.simulator import Simulator

APPROX_SPACING = math.radians(1.0)
"""An ApproxDistanceSensor casts a grid of rays about this far apart (objects narrower than that
angle can slip through), at most APPROX_MAX_RAYS per axis."""
APPROX_MAX_RAYS = 91


def cast_rays(sim: Simulator, origins: np.ndarray, directions: np.ndarray, length: float,
              ignore: tuple[int, int | Sequence[int]] | None = None) -> np.ndarray:
    """Distance (m) along each unit direction to the first hit within ``length`` (``inf`` for
    none), looking past hits on the ``(body, link or links)`` ``ignore``."""
    origins = np.broadcast_to(origins, directions.shape).astype(np.float64)
    exclude: tuple[tuple[int, int], ...] = ()
    if ignore is not None:
        body, links = ignore
        exclude = tuple((body, link) for link in np.atleast_1d(links).tolist())
    hits = sim.cast_rays(origins, origins + directions * length, exclude)
    return np.where(hits[:, 0] >= 0, hits[:, 2] * length, np.inf)


def own_links(sim: Simulator, entity: str, link: str) -> tuple[int, tuple[int, ...]]:
    """The ``ignore`` of :func:`cast_rays` for a sensor on ``link``: its body and the engine links
    of that model link (its own and its helpers', which one body holds)."""
    own = sim.link_handles(entity, link)
    return own[0][0], tuple(index for _, index in own)


def column_angles(fov: float, count: int) -> np.ndarray:
    """Angles from +fov/2 downwards; a full circle does not repeat its first ray."""
    if count == 1:
        return np.zeros(1)
    step = fov / count if fov >= 2.0 * math.pi - 1e-9 else fov / (count - 1)
    return fov / 2.0 - step * np.arange(count)


class _RayReader(Reader):
    def __init__(self, sim: Simulator, entity: str, sensor: Any, directions: np.ndarray) -> None:
        super().__init__(sim, entity, sensor)
        self.directions = directions  # unit vectors in the sensor frame, (N, 3)
        self.ignore = own_links(sim, entity, sensor.link)

    def ranges(self) -> np.ndarray:
        pose = self.sensor_pose()
        rotation = np.array(matrix_from_quat(pose.orientation))
        world = self.directions @ rotation.T
        return cast_rays(self.sim, np.asarray(pose.position), world, self.sensor.max_range,
                         self.ignore)

    def limited(self, distances: np.ndarray) -> np.ndarray:
        """Noisy ``distances`` (``inf`` for no hit) clamped to the sensor's range (SimRobot)."""
        noisy = add_gaussian(self.sim.rng, distances, self.sensor.noise)
        return clamp_to_range(noisy, self.sensor.min_range, self.sensor.max_range)


def clamp_to_range(values: Any, min_range: float, max_range: float) -> Any:
    """SimRobot's out-of-range values: ``values`` clamped to ``[min_range, max_range]`` (no hit,
    ``inf``, reads ``max_range``); nan stays nan; the dtype is kept."""
    array = np.asarray(values)
    return np.clip(array, array.dtype.type(min_range), array.dtype.type(max_range))


def _unit_rays(yaw: np.ndarray, pitch: np.ndarray) -> np.ndarray:
    """Directions (x forward, y left, z up) for every (pitch row, yaw column), shape (H*W, 3)."""
    pitch_grid, yaw_grid = np.meshgrid(pitch, yaw, indexing='ij')
    cos_pitch = np.cos(pitch_grid)
    return np.stack((cos_pitch * np.cos(yaw_grid), cos_pitch * np.sin(yaw_grid),
                     np.sin(pitch_grid)), axis=-1).reshape(-1, 3)


def column_times(sensor: Any) -> np.ndarray:
    """Seconds from the start of a sweep at which each column is measured: a ``rotating`` head
    with a ``frequency`` sweeps its columns in order (column 0 first, clockwise seen from above,
    as Webots turns its head: ``WbLidar::prePhysicsStep`` rotates it by ``-2*pi*f*dt`` per step)
    over one
    revolution, column ``j`` at ``j / (width * frequency)``; a fixed head measures every column
    at once (time 0). Webots file references are to src/webots/nodes/WbLidar.cpp at cyberbotics/
    webots 0160e6b01d1c, by function."""
    if not (getattr(sensor, 'rotating', False) and getattr(sensor, 'frequency', 0.0) > 0.0):
        return np.zeros(sensor.width)
    return np.arange(sensor.width) / (sensor.width * sensor.frequency)


class SphericalDepthReader(_RayReader):
    """HxW float32 range along each ray, clamped to ``[min_range, max_range]`` (``max_range``
    where a ray hits nothing, as SimRobot); see the module docstring for the order.

    Rows are spread evenly over ``fov_y`` from the top, as Webots spreads a lidar's layers
    (``WbLidar::updatePointCloud``: ``phi_i = verticalFieldOfView / 2 - i * verticalFieldOfView
    / (numberOfLayers - 1)``, layer 0 on top), and raised by the sensor's ``tilt`` (Webots adds
    ``tiltAngle`` to every layer's ``phi`` there). ``layer_elevations`` holds them (rad,
    row order); ``directions`` the unit rays in the sensor frame, row-major."""

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        yaw = column_angles(sensor.fov_x, sensor.width)
        pitch = column_angles(sensor.fov_y, sensor.height) + getattr(sensor, 'tilt', 0.0)
        super().__init__(sim, entity, sensor, _unit_rays(yaw, pitch))
        self.angle_min = float(yaw[0])
        self.angle_max = float(yaw[-1])
        self.angle_increment = float(yaw[1] - yaw[0]) if len(yaw) > 1 else 0.0
        self.layer_elevations = pitch
        self.column_times = column_times(sensor)

    def read(self) -> np.ndarray:
        s = self.sensor
        image = self.ranges().reshape(s.height, s.width).astype(np.float32)
        return self.limited(image)


class SingleDistanceReader(_RayReader):
    """Metres to the first hit along +x; ``max_range`` if nothing within ``max_range``,
    ``min_range`` if closer than that (SimRobot; the ROS ``Range`` has +inf/-inf there)."""

    reads = model.SingleDistanceSensor

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor, np.array([[1.0, 0.0, 0.0]]))

    def read(self) -> float:
        return float(self.limited(self.ranges())[0])


def _ray_count(fov: float) -> int:
    return min(APPROX_MAX_RAYS, int(math.ceil(fov / APPROX_SPACING)) + 1)


class ApproxDistanceReader(_RayReader):
    """The nearest hit (m, along the ray) within the ``fov_x`` x ``fov_y`` pyramid around +x,
    sampled by a grid of rays; out-of-range values like :class:`SingleDistanceReader`."""

    reads = model.ApproxDistanceSensor

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        ys = np.tan(np.linspace(-sensor.fov_x / 2.0, sensor.fov_x / 2.0, _ray_count(sensor.fov_x)))
        zs = np.tan(np.linspace(-sensor.fov_y / 2.0, sensor.fov_y / 2.0, _ray_count(sensor.fov_y)))
        z_grid, y_grid = np.meshgrid(zs, ys, indexing='ij')
        rays = np.stack((np.ones_like(y_grid), y_grid, z_grid), axis=-1).reshape(-1, 3)
        super().__init__(sim, entity, sensor, rays / np.linalg.norm(rays, axis=1, keepdims=True))

    def read(self) -> float:
        return float(self.limited(np.array([self.ranges().min()]))[0])
