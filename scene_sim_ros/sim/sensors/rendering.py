"""Shared offscreen rendering for the image sensors.

A sensor frame is REP-103 body-aligned (x forward, y left, z up); OpenGL's camera looks along
-z with y up and x right, so the view matrix maps sensor ``x -> -z``, ``y -> -x``, ``z -> y``.
Matrices go to PyBullet as flat column-major lists. The projection is built from both opening
angles, so ``fov_x`` and ``fov_y`` are honoured independently of the pixel aspect.

:class:`RenderCache` renders each view at most once per simulation step: a Camera, a DepthCamera
and a SegmentationCamera at the same pose, size and opening angles share one
``getCameraImage`` call (the segmentation mask is only requested when someone needs it; the
background is recognised from the depth buffer, which costs nothing extra).

Two PyBullet renderers exist on a machine without a GPU: TinyRenderer (a software rasteriser
that scales with pixels x triangles) and the EGL plugin, which on Mesa llvmpipe rasterises with
OpenGL on all cores. Measured on this project's dev machine (2 cores, r2d2 + plane, ms/frame,
without / with segmentation mask): TinyRenderer 7 / 30 / 110 and EGL 17-32 / 17-22 / 30-44 at
160x120 / 320x240 / 640x480; loading the plugin costs ~0.25 s per simulation. The plugin must be
loaded before the first body is created (it only sees visual shapes registered after it), and
once loaded it serves every ``getCameraImage`` of that client, so the choice is made once per
simulation by :func:`prepare_rendering`, which the Simulation calls right after connecting:
``auto`` (the default) picks EGL when the scene has an image sensor of at least
:data:`EGL_MIN_PIXELS` pixels, TinyRenderer otherwise, and falls back to TinyRenderer where the
plugin does not load. ``SCENE_SIM_ROS_RENDERER=tiny|egl|auto`` (or the ``renderer`` argument)
overrides.

The EGL plugin ignores ``changeVisualShape(shapeIndex=...)``: the last colour/texture set on a
link paints all of its parts (measured: red, blue and green boxes of one link all render green).
``auto`` therefore keeps TinyRenderer for scenes with a link whose visuals differ in colour or
texture (Game.ros2's field and NAOs: with EGL the green carpet renders white).
"""

from __future__ import annotations

import importlib.util
import math
import os
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import pybullet as p

from ...scene.sensors import IMAGE_SENSORS
from ...scene.transforms import Pose, matrix_from_quat

EGL_MIN_PIXELS = 30_000
"""From this many pixels on, ``auto`` renders with EGL (measured crossover ~ 200x150)."""

RENDERERS = ('auto', 'tiny', 'egl')
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
    """One ``getCameraImage`` result: RGB (HxWx3 uint8, background filled in), raw depth buffer
    (HxW float32 in [0, 1]), body/link mask (HxW int32, -1 for nothing) or ``None``."""

    near: float
    far: float
    rgb: np.ndarray
    depth_buffer: np.ndarray
    mask: np.ndarray | None

    def covers(self, near: float, far: float, need_mask: bool) -> bool:
        return self.near <= near and self.far >= far and (self.mask is not None or not need_mask)

    def depth(self) -> np.ndarray:
        return linearize_depth(self.depth_buffer, self.near, self.far)

    def background(self) -> np.ndarray:
        return self.depth_buffer >= BACKGROUND_DEPTH


def _light_arguments(scene: Any) -> dict[str, Any]:
    """``getCameraImage`` lighting from the scene's first light (PyBullet's defaults without)."""
    lights = getattr(scene, 'lights', ())
    if not lights:
        return {}
    light = lights[0]
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


_BACKENDS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def choose_renderer(scene: Any, renderer: str | None = None) -> str:
    """'tiny' or 'egl' for ``scene`` under the ``renderer`` policy ('auto', 'tiny', 'egl')."""
    renderer = renderer or os.environ.get('SCENE_SIM_ROS_RENDERER', 'auto')
    if renderer not in RENDERERS:
        raise ValueError(f'unknown renderer {renderer!r}; expected one of {RENDERERS}')
    if renderer != 'auto':
        return renderer
    pixels = [s.width * s.height for e in scene.entities for s in e.sensors
              if isinstance(s, IMAGE_SENSORS)
              and getattr(s, 'projection', 'perspective') == 'perspective']
    if not pixels or max(pixels) < EGL_MIN_PIXELS or _has_multicoloured_link(scene):
        return 'tiny'
    return 'egl'


def _has_multicoloured_link(scene: Any) -> bool:
    """Whether a link has visuals of different colours or textures (which EGL cannot show)."""
    for entity in scene.entities:
        for link in entity.links:
            looks = {(tuple(v.color), v.texture) for v in getattr(link, 'visuals', ())}
            if len(looks) > 1:
                return True
    return False


def prepare_rendering(sim: Any, scene: Any, renderer: str | None = None) -> str:
    """Choose and set up the renderer of ``sim`` (call it before creating any body).

    Returns the renderer in use, 'tiny' or 'egl'. Calling it again (e.g. after a reset) keeps
    the first choice.
    """
    if sim in _BACKENDS:
        return _BACKENDS[sim]
    chosen = choose_renderer(scene, renderer)
    if chosen == 'egl' and not _load_egl_plugin(sim.client):
        chosen = 'tiny'
    _BACKENDS[sim] = chosen
    return chosen


def _load_egl_plugin(client: int) -> bool:
    spec = importlib.util.find_spec('eglRenderer')
    if spec is None or not spec.origin:
        return False
    return p.loadPlugin(spec.origin, '_eglRendererPlugin', physicsClientId=client) >= 0


def renderer_of(sim: Any) -> str:
    """The renderer :func:`prepare_rendering` set up for ``sim`` ('tiny' without it)."""
    return _BACKENDS.get(sim, 'tiny')


class RenderCache:
    """Renders views of one simulation, each at most once until :meth:`invalidate` (or until the
    simulation time changes)."""

    def __init__(self, sim: Any) -> None:
        self._sim = weakref.proxy(sim)
        self._flag = (p.ER_BULLET_HARDWARE_OPENGL if renderer_of(sim) == 'egl'
                      else p.ER_TINY_RENDERER)
        self._frames: dict[View, Frame] = {}
        self._time: float | None = None
        self.renders = 0
        """How many ``getCameraImage`` calls were made (for tests and benchmarks)."""

    def invalidate(self) -> None:
        self._frames.clear()

    def frame(self, view: View, near: float, far: float, need_mask: bool = False) -> Frame:
        """The frame of ``view`` valid now, rendered only if no cached one covers the request."""
        time = self._sim.time
        if time != self._time:
            self._frames.clear()
            self._time = time
        cached = self._frames.get(view)
        if cached is not None and cached.covers(near, far, need_mask):
            return cached
        if cached is not None:  # widen the clipping range so that both requests are served
            near, far = min(near, cached.near), max(far, cached.far)
            need_mask = need_mask or cached.mask is not None
        frame = self._render(view, near, far, need_mask)
        self._frames[view] = frame
        return frame

    def _render(self, view: View, near: float, far: float, need_mask: bool) -> Frame:
        pose = Pose(view.pose[:3], view.pose[3:])
        flags = (p.ER_SEGMENTATION_MASK_OBJECT_AND_LINKINDEX if need_mask
                 else p.ER_NO_SEGMENTATION_MASK)
        _, _, rgba, depth, mask = p.getCameraImage(
            view.width, view.height, view_matrix(pose),
            projection_matrix(view.fov_x, view.fov_y, near, far),
            renderer=self._flag, flags=flags, physicsClientId=self._sim.client,
            **_light_arguments(self._sim.scene))
        self.renders += 1
        shape = (view.height, view.width)
        rgb = np.array(np.reshape(rgba, (*shape, 4))[:, :, :3], dtype=np.uint8)
        depth_buffer = np.reshape(np.asarray(depth, dtype=np.float32), shape)
        frame = Frame(near, far, rgb, depth_buffer,
                      np.reshape(np.asarray(mask, dtype=np.int32), shape) if need_mask else None)
        background = self._sim.scene.background
        rgb[frame.background()] = np.round(np.clip(background[:3], 0.0, 1.0) * 255.0)
        return frame


_CACHES: weakref.WeakKeyDictionary[Any, RenderCache] = weakref.WeakKeyDictionary()


def invalidate_renders(sim: Any) -> None:
    """Forget ``sim``'s rendered frames: call after moving things between steps (set_pose, reset,
    spawn, delete); physics steps and time changes invalidate them anyway."""
    cache = _CACHES.get(sim)
    if cache is not None:
        cache.invalidate()


def render_cache(sim: Any) -> RenderCache:
    """The one :class:`RenderCache` of ``sim`` (created on first use)."""
    cache = _CACHES.get(sim)
    if cache is None:
        cache = _CACHES[sim] = RenderCache(sim)
    return cache
