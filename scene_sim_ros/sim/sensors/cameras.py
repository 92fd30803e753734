"""Rendered image sensors: colour, perspective depth and object segmentation.

Perspective depth out of range follows SimRobot's DepthImageSensor (sources cited in
:mod:`.rays`): ``max_range`` where nothing is drawn (its far plane), and here ``min_range`` for
geometry closer than ``min_range``; the ROS ``image_raw`` turns those into +inf/-inf (REP-118).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.sensors.lens import LensRemap, distorts
from scene_sim_ros.sim.sensors.noise import add_color_noise, add_gaussian
from scene_sim_ros.sim.sensors.projection import ProjectionRemap
from scene_sim_ros.sim.sensors.rays import clamp_to_range
from scene_sim_ros.sim.sensors.rendering import Frame, RenderCache, View, render_cache
from scene_sim_ros.sim.simulator import Simulator

DEPTH_NEAR = 0.01
"""Near clipping plane of depth renders (m) unless ``min_range`` is smaller: objects between it
and ``min_range`` are seen and read as ``min_range`` (too close) rather than clipped away."""

LINK_BITS = 24
"""PyBullet's object-and-link mask: ``body + ((link + 1) << 24)``."""


class _RenderedReader(Reader):
    """Renders through the simulation's shared :class:`RenderCache`, only when read."""

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.cache = render_cache(sim)
        lens = getattr(sensor, 'lens', None)
        self.lens = (LensRemap(lens, sensor.width, sensor.height)
                     if lens is not None and distorts(lens) else None)

    def frame(self, near: float, far: float, need_mask: bool = False,
              need_depth: bool = True) -> Frame:
        return self.cache.frame(self.view(), near, far, need_mask, need_depth)

    def view(self) -> View:
        s = self.sensor
        return View.of(self.sensor_pose(), s.width, s.height, s.fov_x, s.fov_y)

    def colour_requests(self) -> list[tuple[View, float, float]]:
        """The colour-only renders a :meth:`read` needs now, for :func:`render_together`;
        none for the sensors that read depth or segmentation."""
        return []

    def after_step(self) -> None:
        self.cache.invalidate()

    def reset(self) -> None:
        self.cache.invalidate()


class CameraReader(_RenderedReader):
    """HxWx3 uint8 RGB, lit by the scene's first light, scene background where nothing is hit;
    through the sensor's lens (:mod:`.lens`) where it has one, before the noise (Webots applies
    its lens pass before the colour noise, ``WbWrenCamera::setupCameraPostProcessing``).
    A 'spherical' or 'cylindrical' camera merges 90-degree renders (:mod:`.projection`)."""

    reads = model.Camera

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.projection = (None if sensor.projection == 'planar' else
                           ProjectionRemap(sensor.projection, sensor.width, sensor.height,
                                           sensor.fov_x))

    def read(self) -> np.ndarray:
        s = self.sensor
        if self.projection is not None:
            return add_color_noise(self.sim.rng, self._merged(), s.noise)
        rgb = self.frame(s.near, s.far, need_depth=False).rgb
        rgb = self.lens.color(rgb) if self.lens is not None else rgb.copy()
        return add_color_noise(self.sim.rng, rgb, s.noise)

    def colour_requests(self) -> list[tuple[View, float, float]]:
        s = self.sensor
        return [(view, s.near, s.far) for view in self._views()]

    def read_later(self) -> Callable[[], np.ndarray] | None:
        """What :meth:`read` returns now, as a callable that reads it back later, on any
        thread (a read-only view: copy it before changing it), where the batched round
        (:func:`render_together`) drew it and nothing is left to do to it (planar, no lens,
        no noise); else None."""
        s = self.sensor
        if self.projection is not None or self.lens is not None or s.noise > 0.0:
            return None
        return self.cache.colour_later(self.view(), s.near, s.far)

    def _views(self) -> list[View]:
        if self.projection is None:
            return [self.view()]
        size, fov = self.projection.size, self.projection.fov
        return [View.of(pose, size, size, fov, fov)
                for pose in self.projection.views(self.sensor_pose())]

    def _merged(self) -> np.ndarray:
        assert self.projection is not None
        renders = [self.cache.frame(view, self.sensor.near, self.sensor.far,
                                    need_depth=False).rgb for view in self._views()]
        return self.projection.color(renders)


class DepthCameraReader(_RenderedReader):
    """HxW float32 metres along the optical axis, clamped to ``[min_range, max_range]`` as in
    SimRobot: ``max_range`` where nothing is within range, ``min_range`` where something is
    closer (the ROS image has +inf/-inf there, REP-118). Noise is added before the clamp, after
    the lens (nearest neighbour, see :mod:`.lens`)."""

    reads = model.DepthCamera

    def read(self) -> np.ndarray:
        s = self.sensor
        near = min(DEPTH_NEAR, max(s.min_range, 1e-3))
        depth = self.frame(near, s.max_range).depth()
        if self.lens is not None:  # before the noise, as Webots' post-processing order
            depth = self.lens.depth(depth, s.max_range)
        depth = add_gaussian(self.sim.rng, depth, s.noise)
        return clamp_to_range(depth, s.min_range, s.max_range)


def render_together(readers: Iterable[Reader]) -> None:
    """Render the colour images ``readers`` will read now as one batch (one pass over the
    scene, see :meth:`~.rendering.RenderCache.render_colour`); their reads then come from the
    cache. Readers of depth or segmentation are left to render when read."""
    by_cache: dict[int, tuple[RenderCache, list[tuple[View, float, float]]]] = {}
    for reader in readers:
        if isinstance(reader, _RenderedReader):
            requests = reader.colour_requests()
            if requests:
                by_cache.setdefault(id(reader.cache), (reader.cache, []))[1].extend(requests)
    for cache, requests in by_cache.values():
        cache.render_colour(requests)


def entity_color(name: str) -> tuple[int, int, int]:
    """A stable colour for an entity name (never black, which marks the background)."""
    digest = hashlib.blake2b(name.encode(), digest_size=3).digest()
    return (digest[0] | 0x20, digest[1] | 0x20, digest[2] | 0x20)


class SegmentationCameraReader(_RenderedReader):
    """HxWx3 uint8, one stable colour per entity (:func:`entity_color`), black for background.

    After a read, :attr:`labels` (HxW int32) gives per pixel the index of the entity hit in
    :attr:`entity_names` (-1 for none) and :attr:`link_indices` the PyBullet link index (-1 for
    the root or none); both are computed when first asked for.
    """

    reads = model.SegmentationCamera

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.entity_names: list[str] = []
        self._index_of_name: dict[str, int] = {}
        self._mask = np.full((sensor.height, sensor.width), -1, dtype=np.int32)
        self._bodies = self._mask
        self._label_of_body = np.full(1, -1, dtype=np.int32)

    def read(self) -> np.ndarray:
        mask = self.frame(self.sensor.near, self.sensor.far, need_mask=True,
                          need_depth=False).mask
        assert mask is not None  # need_mask=True: the frame has one
        self._mask = mask
        # body ids shifted by one, so that "nothing" (-1) is index 0; the link bits drop out
        self._bodies = (mask + 1) & ((1 << LINK_BITS) - 1)
        present = np.flatnonzero(np.bincount(self._bodies.ravel()))
        self._label_of_body = np.full(int(present[-1]) + 1, -1, dtype=np.int32)
        for shifted in present[present > 0]:
            self._label_of_body[shifted] = self._entity_index(int(shifted) - 1)
        colors = np.array([(0, 0, 0)] + [entity_color(n) for n in self.entity_names],
                          dtype=np.uint8)
        return np.take(colors, self._label_of_body + 1, axis=0).take(self._bodies, axis=0)

    @property
    def labels(self) -> np.ndarray:
        return np.take(self._label_of_body, self._bodies)

    @property
    def link_indices(self) -> np.ndarray:
        return np.where(self._mask >= 0, (self._mask >> LINK_BITS) - 1, -1).astype(np.int32)

    def _entity_index(self, body: int) -> int:
        # by name, not body id: a deleted entity's body id comes back for another entity
        name = self.sim.entity_of_body(body) or f'body{body}'
        index = self._index_of_name.get(name)
        if index is None:
            index = self._index_of_name[name] = len(self.entity_names)
            self.entity_names.append(name)
        return index
