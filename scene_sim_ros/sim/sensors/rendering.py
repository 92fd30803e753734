"""Shared offscreen rendering for the image sensors.

A sensor frame is REP-103 body-aligned (x forward, y left, z up); OpenGL's camera looks along
-z with y up and x right, so the view matrix maps sensor ``x -> -z``, ``y -> -x``, ``z -> y``.
Matrices go to PyBullet as flat column-major lists. The projection is built from both opening
angles, so ``fov_x`` and ``fov_y`` are honoured independently of the pixel aspect.

:class:`RenderCache` renders each view at most once per simulation step: a Camera, a DepthCamera
and a SegmentationCamera at the same pose, size and opening angles share one render (with
TinyRenderer the segmentation mask is only requested when someone needs it and the background
is recognised from the depth buffer; the GL pass gives all three at once).

Two renderers, chosen per simulation by :func:`prepare_rendering` (``renderer`` argument, else
``$SCENE_SIM_ROS_RENDERER``, else ``auto``):

- ``gl``: :mod:`scene_sim_ros.sim.render`, OpenGL on a headless EGL context (Mesa llvmpipe
  without a GPU): shapes uploaded once, per-camera frustum culling, levels of detail, colour,
  depth and segmentation in one pass, Phong lighting from the scene's surfaces and lights.
- ``tiny``: PyBullet's TinyRenderer (``getCameraImage``), a software rasteriser that draws every
  triangle of the scene for every frame.

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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pybullet as p

from ...scene.transforms import Pose, matrix_from_quat

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


def _light_arguments(scene: Any) -> dict[str, Any]:
    """``getCameraImage`` lighting from the scene's first light (PyBullet's defaults without)."""
    lights = getattr(scene, 'lights', ())
    return tiny_light_arguments(lights[0] if lights else None)


def tiny_light_arguments(light: Any) -> dict[str, Any]:
    """``getCameraImage`` lighting arguments for ``light`` (None: PyBullet's defaults)."""
    if light is None:
        return {}
    if light.kind == 'directional':
        towards_light = [-c for c in light.direction]
    else:
        towards_light = list(light.position)
    ambient = sum(light.ambient[:3]) / 3.0
    diffuse = max(light.diffuse[:3]) or 1.0
    return {
        'lightDirection': towards_light,
        'lightColor': [c / diffuse for c in light.diffuse[:3]],
        'lightAmbientCoeff': min(1.0, max(ambient, 0.0)),
        'lightDiffuseCoeff': min(1.0, diffuse),
        'lightSpecularCoeff': min(1.0, max(light.specular[:3])) * 0.2,
    }


_POLICIES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_BACKENDS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_warned_fallback = False


def renderer_policy(renderer: str | None = None) -> str:
    """'auto', 'gl' or 'tiny' from ``renderer`` or ``$SCENE_SIM_ROS_RENDERER`` ('egl' -> 'gl')."""
    policy = renderer or os.environ.get('SCENE_SIM_ROS_RENDERER') or 'auto'
    if policy in LEGACY_RENDERERS:
        _log.info("renderer 'egl' (PyBullet's EGL plugin) is retired; using 'gl' instead")
        policy = LEGACY_RENDERERS[policy]
    if policy not in RENDERERS:
        raise ValueError(f'unknown renderer {policy!r}; expected one of {RENDERERS}')
    return policy


def prepare_rendering(sim: Any, scene: Any, renderer: str | None = None) -> str:
    """Record the renderer policy of ``sim`` ('auto', 'gl' or 'tiny'; ValueError otherwise).

    Nothing is loaded here: the backend is resolved on the first rendered frame
    (:func:`renderer_of`). Calling it again (e.g. after a reset) keeps the first policy.
    """
    if sim not in _POLICIES:
        _POLICIES[sim] = renderer_policy(renderer)
    return _POLICIES[sim]


def pybullet_draws(sim: Any) -> bool:
    """Whether TinyRenderer draws ``sim``'s images, i.e. PyBullet needs every visual shape.

    Asked before the world is built; 'auto' is resolved here (one GL context per process).
    Without visual shapes a large scene builds in a fraction of the time and memory: PyBullet
    copies every visual mesh for TinyRenderer (Game.ros2: 3.5 s and about 190 MB).
    """
    policy = _POLICIES.get(sim) or renderer_policy()
    if policy == 'gl':
        return False  # and where no context can be made the first frame says so
    return renderer_of(sim) == 'tiny'


def renderer_of(sim: Any) -> str:
    """The backend that renders ``sim``'s images, 'gl' or 'tiny' (resolved on first use).

    'gl' where the policy says so and raises :class:`~scene_sim_ros.sim.render.GlUnavailable`
    when no context can be made; 'auto' falls back to 'tiny' with one warning per process,
    also appended to ``sim.warnings``.
    """
    backend = _BACKENDS.get(sim)
    if backend is not None:
        return backend
    policy = _POLICIES.get(sim) or renderer_policy()
    if policy == 'tiny':
        backend = 'tiny'
    else:
        from ..render import egl_problem
        problem = egl_problem()
        if problem is None:
            backend = 'gl'
        elif policy == 'gl':
            from ..render import GlUnavailable
            raise GlUnavailable(f"renderer 'gl' is not available: {problem}")
        else:
            backend = 'tiny'
            _warn_fallback(sim, problem)
    _BACKENDS[sim] = backend
    return backend


def _warn_fallback(sim: Any, problem: str) -> None:
    global _warned_fallback
    message = f'cameras render with TinyRenderer (slow): {problem}'
    if not _warned_fallback:
        _warned_fallback = True
        _log.warning(message)
        warnings = getattr(sim, 'warnings', None)
        if isinstance(warnings, list):
            warnings.append(message)


class RenderCache:
    """Renders views of one simulation, each at most once until :meth:`invalidate` (or until the
    simulation time changes)."""

    def __init__(self, sim: Any) -> None:
        self._sim = weakref.proxy(sim)
        self.backend = renderer_of(sim)
        self._gl: Any = None
        if self.backend == 'gl':
            from ..render.renderer import GlRenderer
            self._gl = GlRenderer(sim, os.environ.get(LIGHTING_ENV, 'phong'))
        self._frames: dict[View, Frame] = {}
        self._time: float | None = None
        self.renders = 0
        """How many ``getCameraImage`` calls were made (for tests and benchmarks)."""

    def invalidate(self, world_changed: bool = False) -> None:
        """Forget rendered frames; ``world_changed``: bodies were moved, added or removed
        outside a physics step (the GL renderer then rereads even fixed bodies)."""
        self._frames.clear()
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
        time = self._sim.time
        if time != self._time:
            self.invalidate()
            self._time = time
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
        pose = Pose(view.pose[:3], view.pose[3:])
        if self._gl is not None:
            return self._render_gl(view, pose, near, far, need_mask, need_depth)
        flags = (p.ER_SEGMENTATION_MASK_OBJECT_AND_LINKINDEX if need_mask
                 else p.ER_NO_SEGMENTATION_MASK)
        _, _, rgba, depth, mask = p.getCameraImage(
            view.width, view.height, view_matrix(pose),
            projection_matrix(view.fov_x, view.fov_y, near, far),
            renderer=p.ER_TINY_RENDERER, flags=flags, physicsClientId=self._sim.client,
            **_light_arguments(self._sim.scene))
        self.renders += 1
        shape = (view.height, view.width)
        depth_buffer = np.reshape(np.asarray(depth, dtype=np.float32), shape)
        rgb = _with_background(np.reshape(np.asarray(rgba, dtype=np.uint8), (*shape, 4)),
                               depth_buffer >= BACKGROUND_DEPTH, self._sim.scene.background)
        return Frame(near, far, rgb, depth_buffer,
                     np.reshape(np.asarray(mask, dtype=np.int32), shape) if need_mask else None)


    def _render_gl(self, view: View, pose: Pose, near: float, far: float, need_mask: bool,
                   need_depth: bool) -> Frame:
        rgb, depth, mask, serial = self._gl.render(
            view_matrix(pose), projection_matrix(view.fov_x, view.fov_y, near, far),
            np.asarray(pose.position), view.width, view.height, view.fov_y, need_depth,
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


_CACHES: weakref.WeakKeyDictionary[Any, RenderCache] = weakref.WeakKeyDictionary()


def invalidate_renders(sim: Any) -> None:
    """Forget ``sim``'s rendered frames: call after moving things between steps (set_pose, reset,
    spawn, delete); physics steps and time changes invalidate them anyway."""
    cache = _CACHES.get(sim)
    if cache is not None:
        cache.invalidate(world_changed=True)


def render_cache(sim: Any) -> RenderCache:
    """The one :class:`RenderCache` of ``sim`` (created on first use)."""
    cache = _CACHES.get(sim)
    if cache is None:
        cache = _CACHES[sim] = RenderCache(sim)
    return cache
