"""Shared offscreen rendering for the image sensors.

A sensor frame is REP-103 body-aligned (x forward, y left, z up); OpenGL's camera looks along
-z with y up and x right, so the view matrix maps sensor ``x -> -z``, ``y -> -x``, ``z -> y``.
Matrices are flat column-major lists, as OpenGL and TinyRenderer take them. The projection is
built from both opening angles, so ``fov_x`` and ``fov_y`` are honoured independently of the
pixel aspect.

:class:`RenderCache` renders each view at most once per simulation step: a Camera, a DepthCamera
and a SegmentationCamera at the same pose, size and opening angles share one render (with
TinyRenderer the segmentation mask is only requested when someone needs it and the background
is recognised from the depth buffer; the GL pass gives all three at once).

Two renderers, chosen per simulation (its ``renderer`` argument, else ``$SCENE_SIM_ROS_RENDERER``,
else ``auto``) and held with its frame cache by the simulation's :class:`Rendering`:

- ``gl``: :mod:`scene_sim_ros.sim.render`, OpenGL on a headless EGL context (Mesa llvmpipe
  without a GPU): shapes uploaded once, per-camera frustum culling, levels of detail, colour,
  depth and segmentation in one pass, Phong lighting from the scene's surfaces and lights.
- ``tiny``: the engine's software renderer (:meth:`~scene_sim_ros.sim.simulator.Simulator.draw_software`:
  PyBullet's TinyRenderer), a rasteriser that draws every triangle of the scene for every frame.

``auto`` picks ``gl`` where an EGL context can be made (decided on the first rendered frame, so
processes without cameras never make one) and falls back to ``tiny`` with one warning naming
what is missing. PyBullet's own EGL plugin is never loaded: it crashes beside a second EGL
context in the same process; the former value ``egl`` now means ``gl``.
"""

from __future__ import annotations

import logging
import math
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple, cast

import numpy as np

from scene_sim_ros.scene.transforms import Pose, matrix_from_quat
from scene_sim_ros.sim.simulator import Simulator

RENDERERS = ('auto', 'gl', 'tiny')
LEGACY_RENDERERS = {'egl': 'gl'}  # PyBullet's EGL plugin is retired: the GL renderer replaces it
LIGHTING_ENV = 'SCENE_SIM_ROS_GL_LIGHTING'
"""'phong' (default) or 'tiny': the GL renderer's lighting law (see render.shaders)."""
_log = logging.getLogger(__name__)
BACKGROUND_DEPTH = np.float32(1.0 - 1e-7)
"""Depth-buffer values at or above this were not drawn: the clear value (1.0) of the far plane."""


def view_matrix(pose: Pose) -> list[float]:
    """Column-major OpenGL view matrix of a sensor at ``pose`` (x forward, y left, z up)."""
    r = np.array(matrix_from_quat(pose.orientation))  # columns: sensor axes in the world
    # camera axes in the world: x_gl = -y_sensor, y_gl = z_sensor, z_gl = -x_sensor
    cam = np.column_stack((-r[:, 1], r[:, 2], -r[:, 0]))
    view = np.eye(4)
    view[:3, :3] = cam.T
    view[:3, 3] = -cam.T @ np.asarray(pose.position)
    return view.T.ravel().tolist()


def projection_matrix(fov_x: float, fov_y: float, near: float, far: float) -> list[float]:
    """Column-major OpenGL perspective projection with independent opening angles."""
    proj = np.zeros((4, 4))
    proj[0, 0] = 1.0 / math.tan(fov_x / 2.0)
    proj[1, 1] = 1.0 / math.tan(fov_y / 2.0)
    proj[2, 2] = -(far + near) / (far - near)
    proj[2, 3] = -2.0 * far * near / (far - near)
    proj[3, 2] = -1.0
    return proj.T.ravel().tolist()


def linearize_depth(buffer: np.ndarray, near: float, far: float) -> np.ndarray:
    """Metres along the optical axis from a [0, 1] depth buffer (``inf`` where nothing was drawn).

    float32 throughout (no temporaries beyond the result): relative error ~1e-5 at 10 m with
    near = 0.01, far = 100, far below the depth buffer's own quantisation.
    """
    z = np.asarray(buffer, dtype=np.float32)
    depth = np.multiply(z, np.float32(far - near))
    np.subtract(np.float32(far), depth, out=depth)
    np.divide(np.float32(far * near), depth, out=depth)
    depth[z >= BACKGROUND_DEPTH] = np.inf
    return depth


@dataclass(frozen=True, slots=True)
class View:
    """What a render depends on, apart from the clipping planes."""

    pose: tuple[float, float, float, float, float, float, float]  # position + orientation
    width: int
    height: int
    fov_x: float
    fov_y: float

    @staticmethod
    def of(pose: Pose, width: int, height: int, fov_x: float, fov_y: float) -> View:
        return View(pose.position + pose.orientation, int(width), int(height), float(fov_x),
                    float(fov_y))

    def matrices(self, near: float, far: float) -> tuple[list[float], list[float], np.ndarray]:
        """The renderers' inputs: view matrix, projection matrix (clipping at ``near``,
        ``far``) and the eye's position."""
        pose = Pose(self.pose[:3], self.pose[3:])
        return (view_matrix(pose), projection_matrix(self.fov_x, self.fov_y, near, far),
                np.asarray(pose.position))


class _DrawnColour(NamedTuple):
    """A colour view drawn in a batch: its clipping range and what reads it back."""

    near: float
    far: float
    image: Callable[[], np.ndarray]


@dataclass(slots=True)
class Frame:
    """One rendered view: RGB (HxWx3 uint8, background filled in), the depth as TinyRenderer's
    raw buffer (HxW float32 in [0, 1]) or, from the GL renderer, already in metres
    (``linear_depth``, inf for nothing), body/link mask (HxW int32, -1 for nothing) or None."""

    near: float
    far: float
    rgb: np.ndarray
    depth_buffer: np.ndarray | None
    mask: np.ndarray | None
    linear_depth: np.ndarray | None = None
    serial: int = 0  # the GL render it came from (its other outputs can be read later)

    @property
    def has_depth(self) -> bool:
        return self.depth_buffer is not None or self.linear_depth is not None

    def covers(self, near: float, far: float, need_mask: bool, need_depth: bool = True) -> bool:
        return (self.near <= near and self.far >= far and (self.mask is not None or not need_mask)
                and (self.has_depth or not need_depth))

    def depth(self) -> np.ndarray:
        if self.linear_depth is not None:
            return self.linear_depth.copy()
        assert self.depth_buffer is not None
        return linearize_depth(self.depth_buffer, self.near, self.far)


def renderer_policy(renderer: str | None = None) -> str:
    """'auto', 'gl' or 'tiny' from ``renderer`` or ``$SCENE_SIM_ROS_RENDERER`` ('egl' -> 'gl')."""
    policy = renderer or os.environ.get('SCENE_SIM_ROS_RENDERER') or 'auto'
    if policy in LEGACY_RENDERERS:
        _log.info("renderer 'egl' (PyBullet's EGL plugin) is retired; using 'gl' instead")
        policy = LEGACY_RENDERERS[policy]
    if policy not in RENDERERS:
        raise ValueError(f'unknown renderer {policy!r}; expected one of {RENDERERS}')
    return policy


_warned_fallback = False


class Rendering:
    """The renderer of one simulation, owned by it (``sim.rendering``): the policy given when
    the simulation was made ('auto', 'gl' or 'tiny'; ValueError otherwise), the backend that
    draws (resolved on the first rendered frame) and the :class:`RenderCache` of its frames.
    A reset keeps all three."""

    def __init__(self, sim: Simulator, renderer: str | None = None) -> None:
        self.policy = renderer_policy(renderer)
        self._sim = weakref.proxy(sim)
        self._backend: str | None = None
        self._cache: RenderCache | None = None

    def engine_draws(self) -> bool:
        """Whether the engine's software renderer draws the images, i.e. the engine needs
        every visual shape. Asked before the world is built; 'auto' is resolved here (one GL
        context per process). Without visual shapes a large scene builds in a fraction of the
        time and memory: PyBullet copies every visual mesh for TinyRenderer (Game.ros2: 3.5 s
        and about 190 MB)."""
        if self.policy == 'gl':
            return False  # and where no context can be made the first frame says so
        return self.backend() == 'tiny'

    def backend(self) -> str:
        """'gl' or 'tiny', resolved on first use: 'gl' where the policy says so (raising
        :class:`~scene_sim_ros.sim.render.GlUnavailable` when no context can be made); 'auto'
        falls back to 'tiny' with one warning per process, also in ``sim.warnings``."""
        if self._backend is None:
            self._backend = self._resolve()
        return self._backend

    def _resolve(self) -> str:
        if self.policy == 'tiny':
            return 'tiny'
        from scene_sim_ros.sim.render import egl_problem
        problem = egl_problem()
        if problem is None:
            return 'gl'
        if self.policy == 'gl':
            from scene_sim_ros.sim.render import GlUnavailable
            raise GlUnavailable(f"renderer 'gl' is not available: {problem}")
        self._warn_fallback(problem)
        return 'tiny'

    def _warn_fallback(self, problem: str) -> None:
        global _warned_fallback
        message = f'cameras render with TinyRenderer (slow): {problem}'
        if not _warned_fallback:
            _warned_fallback = True
            _log.warning(message)
            self._sim.warnings.append(message)

    def cache(self) -> RenderCache:
        """The one :class:`RenderCache` of the simulation (created on first use)."""
        if self._cache is None:
            self._cache = RenderCache(self._sim, self.backend())
        return self._cache

    def invalidate(self) -> None:
        """Forget the rendered frames: bodies were moved, added or removed between steps."""
        if self._cache is not None:
            self._cache.invalidate(world_changed=True)


def renderer_of(sim: Simulator) -> str:
    """The backend that renders ``sim``'s images, 'gl' or 'tiny' (:meth:`Rendering.backend`)."""
    return sim.rendering.backend()


class RenderCache:
    """Renders views of one simulation, each at most once until :meth:`invalidate` (or until the
    simulation time changes)."""

    def __init__(self, sim: Simulator, backend: str) -> None:
        self._sim = sim
        self.backend = backend
        self._gl: Any = None
        if self.backend == 'gl':
            from scene_sim_ros.sim.render.renderer import GlRenderer
            self._gl = GlRenderer(sim, os.environ.get(LIGHTING_ENV, 'phong'))
        self._frames: dict[View, Frame] = {}
        self._drawn: dict[View, _DrawnColour] = {}  # drawn as a batch, not read back yet
        self._time: float | None = None
        self.renders = 0
        """How many ``getCameraImage`` calls were made (for tests and benchmarks)."""

    def invalidate(self, world_changed: bool = False) -> None:
        """Forget rendered frames; ``world_changed``: bodies were moved, added or removed
        outside a physics step (the GL renderer then rereads even fixed bodies)."""
        self._frames.clear()
        self._drawn.clear()
        if self._gl is not None:
            if world_changed:
                self._gl.moved()
            else:
                self._gl.stepped()

    @property
    def gl(self) -> Any:
        """The :class:`~scene_sim_ros.sim.render.renderer.GlRenderer` (None with 'tiny')."""
        return self._gl

    def frame(self, view: View, near: float, far: float, need_mask: bool = False,
              need_depth: bool = True) -> Frame:
        """The frame of ``view`` valid now, rendered only if no cached one covers the request
        (a GL frame read without depth or mask gets them from its render where it can)."""
        self._forget_other_times()
        drawn = self._drawn.pop(view, None)
        if drawn is not None:
            self._frames[view] = Frame(drawn.near, drawn.far, drawn.image(), None, None)
        cached = self._frames.get(view)
        if cached is not None and cached.covers(near, far, need_mask, need_depth):
            return cached
        if cached is not None and self._complete(cached, view, near, far, need_mask, need_depth):
            return cached
        if cached is not None:  # widen the clipping range so that both requests are served
            near, far = min(near, cached.near), max(far, cached.far)
            need_mask = need_mask or cached.mask is not None
            need_depth = need_depth or cached.has_depth
        frame = self._render(view, near, far, need_mask, need_depth)
        self._frames[view] = frame
        return frame

    def _forget_other_times(self) -> None:
        """The cached frames show the world at one simulation time: drop them once it moved."""
        time = self._sim.time
        if time != self._time:
            self.invalidate()
            self._time = time

    def render_colour(self, requests: list[tuple[View, float, float]]) -> None:
        """Draw the colour of every ``(view, near, far)`` not cached now, as one batch
        (:meth:`~scene_sim_ros.sim.render.renderer.GlRenderer.draw_colour`); later
        :meth:`frame` calls for them are served from it (read back then), and
        :meth:`colour_later` hands one out to be read back on another thread. With
        TinyRenderer, which has no batch, nothing happens here and each view renders when
        read."""
        if self._gl is None:
            return
        self._forget_other_times()
        wanted: dict[View, tuple[float, float]] = {}
        for view, near, far in requests:
            cached = self._frames.get(view) or self._drawn.get(view)
            if cached is not None and cached.near <= near and cached.far >= far:
                continue
            if view in wanted:  # one render covering both clipping ranges
                near, far = min(near, wanted[view][0]), max(far, wanted[view][1])
            wanted[view] = (near, far)
        if not wanted:
            return
        from scene_sim_ros.sim.render.renderer import ColourView
        views = [ColourView(*v.matrices(near, far), v.width, v.height, v.fov_y)
                 for v, (near, far) in wanted.items()]
        batch = self._gl.draw_colour(views)
        for index, (view, (near, far)) in enumerate(wanted.items()):
            self._frames.pop(view, None)
            self._drawn[view] = _DrawnColour(near, far, partial(batch.image, index))
        self.renders += len(views)

    def colour_later(self, view: View, near: float, far: float) -> Callable[[], np.ndarray] | None:
        """The colour image of ``view`` that :meth:`render_colour` drew now, as a callable
        that reads it back (on any thread, later: the caller goes on while llvmpipe
        rasterises); None where it was not drawn so or was already read."""
        self._forget_other_times()
        drawn = self._drawn.get(view)
        if drawn is None or drawn.near > near or drawn.far < far:
            return None
        return drawn.image

    def _complete(self, frame: Frame, view: View, near: float, far: float, need_mask: bool,
                  need_depth: bool) -> bool:
        """Read what ``frame`` lacks from the GL framebuffer that still holds its render."""
        if self._gl is None or not frame.covers(near, far, False, False):
            return False
        more = self._gl.read_more(frame.serial, view.width, view.height,
                                  need_depth and not frame.has_depth,
                                  need_mask and frame.mask is None)
        if more is None:
            return False
        depth, mask = more
        if depth is not None:
            frame.linear_depth = depth
        if mask is not None:
            frame.mask = mask
        return True

    def _render(self, view: View, near: float, far: float, need_mask: bool,
                need_depth: bool = True) -> Frame:
        if self._gl is not None:
            return self._render_gl(view, near, far, need_mask, need_depth)
        view_m, projection, _ = view.matrices(near, far)
        rgba, depth_buffer, mask = self._sim.draw_software(
            view.width, view.height, view_m, projection, need_mask)
        self.renders += 1
        rgb = _with_background(rgba, depth_buffer >= BACKGROUND_DEPTH, self._sim.scene.background)
        return Frame(near, far, rgb, depth_buffer, mask)

    def _render_gl(self, view: View, near: float, far: float, need_mask: bool,
                   need_depth: bool) -> Frame:
        rgb, depth, mask, serial = self._gl.render(
            *view.matrices(near, far), view.width, view.height, view.fov_y, need_depth,
            need_mask)
        self.renders += 1
        # the background is drawn in GL
        return Frame(near, far, rgb, None, mask, linear_depth=depth, serial=serial)


def _with_background(rgba: np.ndarray, background: np.ndarray,
                     color: tuple[float, ...]) -> np.ndarray:
    """HxWx3 uint8 RGB of TinyRenderer's HxWx4 ``rgba``, ``color`` (RGB(A) in [0, 1]) where
    ``background`` (HxW bool). The fill works on whole pixels (one 32-bit word each): a
    masked store of three bytes per pixel costs about three times as much."""
    fill = np.round(np.clip(color[:3], 0.0, 1.0) * 255.0).astype(np.uint8)
    word = np.append(fill, np.uint8(255)).view(np.uint32)[0]
    pixels = np.ascontiguousarray(rgba).view(np.uint32)[..., 0]
    filled = np.where(background, word, pixels)
    return np.ascontiguousarray(filled.view(np.uint8).reshape(*background.shape, 4)[..., :3])


def invalidate_renders(sim: Simulator) -> None:
    """Forget ``sim``'s rendered frames: call after moving things between steps (set_pose, reset,
    spawn, delete); physics steps and time changes invalidate them anyway."""
    sim.rendering.invalidate()


def render_cache(sim: Simulator) -> RenderCache:
    """The one :class:`RenderCache` of ``sim`` (created on first use)."""
    return cast(Rendering, sim.rendering).cache()
