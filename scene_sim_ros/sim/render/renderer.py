"""The GL camera renderer of one simulation: poses per frame, culling, LOD, one pass, readback.

Per frame only link poses are read from the engine (``Simulator.handle_frames``; bodies that
physics never moves only when the world changes); every camera then culls the scene's bounding
spheres against its frustum, picks each shape's level of detail (:mod:`.lod`), writes the
visible instances and draws them with one instanced call per shape, level and kind of
material. One pass fills colour, linear depth and segmentation (:mod:`.shaders`); what is
asked for is read back.

Colour-only views due at the same time render as a batch (:meth:`GlRenderer.draw_colour`):
viewports of one framebuffer, one clear, the per-world work (poses, bounding spheres, level
tables) done once, read back later (:mod:`.colour_batch`). Each draw uses the program compiled
for its kind of material and the scene's lights (:class:`.shaders.ProgramKey`, uniforms by
:mod:`.uniforms`). On Game.ros2's 28 NAO cameras a round takes 40 ms here, 134 ms one view
at a time when issue 47 was filed (bench/vision_round.py).
"""

from __future__ import annotations

import itertools
import math
import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from scene_sim_ros.sim.render.atlas import MAX_HEIGHT, shelf_layout
from scene_sim_ros.sim.render.colour_batch import ColourBatch, drawn, finish_colour_batch
from scene_sim_ros.sim.render.context import gl_current, gl_flush
from scene_sim_ros.sim.render.culling import boxes_in_view, frustum_planes, spheres_in_view
from scene_sim_ros.sim.render.drawables import (
    DrawList,
    ShapeGroup,
    ShapeLibrary,
    build_draw_list,
    quaternion_matrices,
)
from scene_sim_ros.sim.render.lod import MAX_ERROR_PIXELS
from scene_sim_ros.sim.render.shaders import (
    BACKGROUND_FRAGMENT,
    BACKGROUND_VERTEX,
    LIGHTING_PHONG,
    LIGHTINGS,
    VERTEX,
    ProgramKey,
    fragment_shader,
    scene_lights,
)
from scene_sim_ros.sim.render.uniforms import PassUniforms
from scene_sim_ros.sim.simulator import Simulator

_shared: dict[str, Any] = {}


class Bounds(NamedTuple):
    """Per drawable, in the world: bounding sphere and oriented bounding box."""

    centres: np.ndarray  # (N, 3)
    radii: np.ndarray  # (N,)
    box_centres: np.ndarray  # (N, 3)
    axes: np.ndarray  # (N, 3, 3): the box's axes as columns
    half_extents: np.ndarray  # (N, 3)


class Draw(NamedTuple):
    """One instanced draw call: ``rows`` of ``shape`` at level of detail ``level``, whose
    materials all have (``specular``) or all lack a specular colour."""

    shape: ShapeGroup
    level: int
    specular: bool
    rows: np.ndarray


@dataclass(frozen=True)
class ColourView:
    """One view of a batched colour round (matrices as column-major lists, as for
    :meth:`GlRenderer.render`)."""

    view: list[float]
    projection: list[float]
    eye: np.ndarray
    width: int
    height: int
    fov_y: float


_serials = itertools.count(1)


def _shared_objects(ctx: Any) -> dict[str, Any]:
    """One set of shader programs (by :class:`ProgramKey`), background pass, shape library and
    set of framebuffers (by size) per process, as there is one context (call with it
    current)."""
    if not _shared:
        background = ctx.program(vertex_shader=BACKGROUND_VERTEX,
                                 fragment_shader=BACKGROUND_FRAGMENT)
        corners = ctx.buffer(np.array([-1.0, -1.0, 3.0, -1.0, -1.0, 3.0], dtype='f4'))
        _shared.update(programs={}, library=ShapeLibrary(ctx), framebuffers={},
                       contents={},  # framebuffer size -> serial of the render it holds
                       background=background,
                       background_vao=ctx.vertex_array(background, [(corners, '2f', 'in_corner')]))
    return _shared


class GlRenderer:
    """Renders views of ``sim``; :meth:`moved` after the world changed (poses set, bodies
    added or removed), :meth:`stepped` after physics moved things."""

    def __init__(self, sim: Simulator, lighting: str = 'phong') -> None:
        with gl_current() as ctx:
            self.ctx = ctx
            shared = _shared_objects(ctx)
        self._programs, self.library = shared['programs'], shared['library']
        self._framebuffers = shared['framebuffers']
        self._background, self._background_vao = shared['background'], shared['background_vao']
        self._sim = sim if isinstance(sim, weakref.ProxyTypes) else weakref.proxy(sim)
        self.lighting = LIGHTINGS[lighting]
        self._draw_list: DrawList | None = None
        self._entities: tuple[Any, ...] = ()  # held, so that identity comparisons hold
        self._slot_matrices: np.ndarray | None = None
        self._world: np.ndarray | None = None
        self._world_bounds: Bounds | None = None
        self._tables: tuple[DrawList, np.ndarray, np.ndarray] | None = None
        self.drawn_ids: np.ndarray = np.zeros(0, dtype=np.int32)
        """Segmentation values of the instances the last render drew (for tests)."""
        self.triangles_drawn = 0

    def moved(self) -> None:
        """Poses were set (or bodies added, removed, rebuilt): reread every slot next frame and
        rebuild the draw list if the built entities changed."""
        self._slot_matrices = None
        self._world = None

    def stepped(self) -> None:
        self._world = None

    # -- per frame -----------------------------------------------------------------------
    def _world_matrices(self) -> tuple[DrawList, np.ndarray]:
        entities = tuple(self._sim.built_entities())
        if (self._draw_list is None or len(entities) != len(self._entities)
                or any(a is not b for a, b in zip(entities, self._entities))):
            self._entities = entities
            self._draw_list = build_draw_list(self._sim, self.library,
                                              surfaces=self.lighting == LIGHTING_PHONG)
            self._slot_matrices = None
        draw_list = self._draw_list
        if self._world is None:
            self._slot_matrices = self._read_slots(draw_list, self._slot_matrices)
            self._world = np.einsum('nij,njk->nik', self._slot_matrices[draw_list.slot],
                                    draw_list.offset)
            self._world_bounds = None
        return draw_list, self._world

    def _bounds(self, draw_list: DrawList, world: np.ndarray) -> Bounds:
        """World bounding spheres and boxes of every drawable, once per world state (every
        camera of a round culls against the same ones)."""
        if self._world_bounds is None:
            groups = draw_list.groups
            rotations, origins = world[:, :3, :3], world[:, :3, 3]

            def placed(local: np.ndarray) -> np.ndarray:
                return np.einsum('nij,nj->ni', rotations, local[draw_list.group]) + origins

            self._world_bounds = Bounds(
                placed(np.array([g.centre for g in groups])),
                np.array([g.radius for g in groups])[draw_list.group],
                placed(np.array([g.box_centre for g in groups])), rotations,
                np.array([g.half_extents for g in groups])[draw_list.group])
        return self._world_bounds

    def _read_slots(self, draw_list: DrawList, previous: np.ndarray | None) -> np.ndarray:
        """Row-major engine frames of every (body, link) slot (of the moving ones only when
        ``previous`` holds the others)."""
        count = len(draw_list.slots)
        positions = np.zeros((count, 3))
        quaternions = np.tile([0.0, 0.0, 0.0, 1.0], (count, 1))
        wanted = [slot for slot in range(count)
                  if previous is None or not draw_list.static_slots[slot]]
        if wanted:
            read_positions, read_quaternions = self._sim.handle_frames(
                [draw_list.slots[slot] for slot in wanted])
            positions[wanted], quaternions[wanted] = read_positions, read_quaternions
        matrices = np.zeros((count, 4, 4))
        matrices[:, :3, :3] = quaternion_matrices(quaternions)
        matrices[:, :3, 3] = positions
        matrices[:, 3, 3] = 1.0
        if previous is not None:
            keep = draw_list.static_slots
            matrices[keep] = previous[keep]
        return matrices

    # -- per camera ----------------------------------------------------------------------
    def render(self, view: list[float], projection: list[float], eye: np.ndarray,
               width: int, height: int, fov_y: float, depth: bool = True,
               mask: bool = True) -> tuple[np.ndarray, Any, Any, int]:
        """Draw one view (matrices as column-major lists, as for ``getCameraImage``) and read
        back RGB (HxWx3 uint8), and where asked for, metres along the optical axis (HxW
        float32, inf: nothing) and the segmentation value ``body + ((link + 1) << 24)`` (HxW
        int32, -1: nothing), else None; plus a serial number with which :meth:`read_more` reads
        the others later. One pass fills all three; reading back costs (0.4 ms for RGB at
        640x480, 5 ms for all three), so only what is asked for is read."""
        with gl_current():
            fbo = self._render(view, projection, eye, width, height, fov_y)
            serial = next(_serials)
            _shared['contents'][(width, height)] = serial
            return (_read_rgb(fbo, width, height), _read_depth(fbo, width, height) if depth
                    else None, _read_mask(fbo, width, height) if mask else None, serial)

    def draw_colour(self, views: list[ColourView]) -> ColourBatch:
        """Draw every view in ``views`` as one batch: viewports of one colour-only framebuffer
        (:mod:`.atlas`), one clear to the background colour, lights set once, bounds computed
        once. The pixels are read back when first asked for (:meth:`ColourBatch.image`, on
        any thread), so that llvmpipe rasterises while the caller goes on; the next batch
        reads this one first. The images of :meth:`render` (whose depth and id outputs have no
        attachment here), but where llvmpipe snaps a window coordinate at an atlas offset to
        the other side of an edge (12 of 5.4 million pixels in the game's round). Views that
        would make the atlas higher than :data:`.atlas.MAX_HEIGHT` are drawn as more batches
        (each read before the next is drawn)."""
        if not views:
            return ColourBatch(None, (0, 0), [])
        positions, size = shelf_layout([(v.width, v.height) for v in views])
        if size[1] > MAX_HEIGHT and len(views) > 1:
            half = len(views) // 2
            first = self.draw_colour(views[:half])
            first.image(0)
            return ColourBatch.joined(first, self.draw_colour(views[half:]), half)
        with gl_current():
            finish_colour_batch()
            draw_list, world = self._world_matrices()
            fbo = self._colour_framebuffer(size)
            fbo.use()
            self.ctx.scissor = None
            fbo.clear(*self._background_colour(), 1.0, depth=1.0, viewport=(0, 0, *size))
            self.ctx.enable(self.ctx.DEPTH_TEST | self.ctx.CULL_FACE)
            uniforms = self.pass_uniforms()
            for view, (x, y) in zip(views, positions):
                box = (x, y, view.width, view.height)
                self.ctx.viewport = self.ctx.scissor = box
                uniforms.set_camera(view.view, view.projection, view.eye, view.width,
                                    view.height)
                self._draw(draw_list, world, uniforms, view.view, view.projection, view.eye,
                           view.height, view.fov_y)
                gl_flush()
            self.ctx.scissor = None
            return drawn(ColourBatch(fbo, size, [(x, y, v.width, v.height)
                                                 for v, (x, y) in zip(views, positions)]))

    def read_more(self, serial: int, width: int, height: int, depth: bool,
                  mask: bool) -> tuple[Any, Any] | None:
        """Depth and/or mask of render ``serial``, if its framebuffer still holds it (no other
        view of that size was rendered since), else None."""
        with gl_current():
            if _shared['contents'].get((width, height)) != serial:
                return None
            fbo = self._framebuffers[(width, height)]
            return (_read_depth(fbo, width, height) if depth else None,
                    _read_mask(fbo, width, height) if mask else None)

    def _render(self, view: list[float], projection: list[float], eye: np.ndarray,
                width: int, height: int, fov_y: float) -> Any:
        draw_list, world = self._world_matrices()
        fbo = self._framebuffer(width, height)
        fbo.use()
        fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
        self.ctx.disable(self.ctx.DEPTH_TEST | self.ctx.CULL_FACE)
        self._background['background'].value = self._background_colour()
        self._background_vao.render()
        self.ctx.enable(self.ctx.DEPTH_TEST | self.ctx.CULL_FACE)
        uniforms = self.pass_uniforms()
        uniforms.set_camera(view, projection, eye, width, height)
        self._draw(draw_list, world, uniforms, view, projection, eye, height, fov_y)
        return fbo

    def pass_uniforms(self) -> PassUniforms:
        """The uniforms of one pass over the scene as it is lit now."""
        return PassUniforms(scene_lights(self._sim.scene, self.lighting), self.lighting)

    def _background_colour(self) -> tuple[float, float, float]:
        r, g, b = (float(min(1.0, max(0.0, c))) for c in self._sim.scene.background[:3])
        return r, g, b

    def _draw(self, draw_list: DrawList, world: np.ndarray, uniforms: PassUniforms,
              view: list[float], projection: list[float], eye: np.ndarray, height: int,
              fov_y: float) -> None:
        draws = self.visible_draws(draw_list, world, view, projection, eye, height, fov_y)
        self.drawn_ids = (np.concatenate([d.rows['id'] for d in draws]) if draws
                          else np.zeros(0, dtype=np.int32))
        self.triangles_drawn = 0
        for draw in draws:
            self.upload(draw)
            self.submit(draw, uniforms)
            self.triangles_drawn += len(draw.shape.levels[draw.level].triangles.indices) * len(
                draw.rows)

    @staticmethod
    def upload(draw: Draw) -> None:
        """The instance rows of ``draw`` into its shape's buffer."""
        draw.shape.instance_buffers[draw.level].write(draw.rows.tobytes())

    def submit(self, draw: Draw, uniforms: PassUniforms) -> None:
        """The draw call of ``draw`` (after :meth:`upload`) with the program it needs."""
        shape = draw.shape
        textured = shape.texture is not None
        program = self._program(ProgramKey(
            self.lighting, uniforms.kinds, textured,
            draw.specular and self.lighting == LIGHTING_PHONG))
        uniforms.prepare(program)
        if textured:
            shape.texture.use(0)
        self.library.vao(shape, draw.level, program).render(instances=len(draw.rows))

    def _program(self, key: ProgramKey) -> Any:
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = self.ctx.program(
                vertex_shader=VERTEX, fragment_shader=fragment_shader(key))
        return program

    def visible_draws(self, draw_list: DrawList, world: np.ndarray, view: list[float],
                      projection: list[float], eye: np.ndarray, height: int,
                      fov_y: float) -> list[Draw]:
        """The instanced calls one view needs: one per shape, level of detail and kind of
        material (specular or not) with an instance inside the frustum (bounding sphere and
        box)."""
        if not len(world):
            return []
        bounds = self._bounds(draw_list, world)
        centres, radii = bounds.centres, bounds.radii
        matrix = (np.asarray(projection).reshape(4, 4).T @ np.asarray(view).reshape(4, 4).T)
        planes = frustum_planes(matrix)
        visible = np.flatnonzero(spheres_in_view(planes, centres, radii))
        visible = visible[boxes_in_view(planes, bounds.box_centres[visible],
                                        bounds.axes[visible], bounds.half_extents[visible])]
        distance = np.maximum(np.linalg.norm(centres[visible] - eye, axis=1) - radii[visible],
                              1e-6)
        pixels_per_radian = height / (2.0 * math.tan(fov_y / 2.0))
        level = self._levels(draw_list, visible, distance, pixels_per_radian)
        group, specular = draw_list.group[visible], draw_list.specular[visible]
        order = np.lexsort((specular, level, group))
        visible, group, level, specular = (visible[order], group[order], level[order],
                                           specular[order])
        rows = draw_list.instance[visible].copy()
        rows['model'] = world[visible].transpose(0, 2, 1)  # GLSL reads columns
        if not len(visible):
            return []
        keys = (group * 16 + level) * 2 + specular
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        ends = np.r_[starts[1:], len(keys)]
        return [Draw(draw_list.groups[int(group[a])], int(level[a]), bool(specular[a]),
                     rows[a:b]) for a, b in zip(starts, ends)]

    def _levels(self, draw_list: DrawList, visible: np.ndarray, distance: np.ndarray,
                pixels_per_radian: float) -> np.ndarray:
        """Coarsest level whose error stays below the pixel threshold and that may be drawn at
        that distance (errors and nearest distances grow with the level, so counting the
        levels that qualify gives the index)."""
        errors, nearest = self._level_tables(draw_list)
        group = draw_list.group[visible]
        allowed = ((errors[group] * pixels_per_radian <= MAX_ERROR_PIXELS * distance[:, None])
                   & (distance[:, None] >= nearest[group]))
        return allowed.sum(axis=1).astype(np.int64)

    def _level_tables(self, draw_list: DrawList) -> tuple[np.ndarray, np.ndarray]:
        """Per shape group the errors and nearest distances of its levels beyond the first
        (inf, 0 where it has fewer), once per draw list."""
        if self._tables is None or self._tables[0] is not draw_list:
            most = max(len(g.levels) for g in draw_list.groups)
            errors = np.full((len(draw_list.groups), most), np.inf)
            nearest = np.zeros((len(draw_list.groups), most))
            for i, g in enumerate(draw_list.groups):
                errors[i, :len(g.levels)] = [lv.error for lv in g.levels]
                nearest[i, :len(g.levels)] = [lv.nearest for lv in g.levels]
            self._tables = (draw_list, errors[:, 1:], nearest[:, 1:])
        return self._tables[1], self._tables[2]

    def _colour_framebuffer(self, size: tuple[int, int]) -> Any:
        """RGBA8 + depth only: a clear to the background colour replaces the background pass
        (which exists to put 0 into the float depth and int id attachments, which a clear of
        an int attachment cannot do portably), and fill writes one attachment, not three. One
        per process, grown to the largest batch so far (the batches' sizes change with the
        cameras a step renders), drawn and read in its lower left ``size``."""
        fbo = self._framebuffers.get('colour')
        if fbo is not None and fbo.size[0] >= size[0] and fbo.size[1] >= size[1]:
            return fbo
        if fbo is not None:
            size = (max(size[0], fbo.size[0]), max(size[1], fbo.size[1]))
            for attachment in (*fbo.color_attachments, fbo.depth_attachment):
                attachment.release()
            fbo.release()
        fbo = self.ctx.framebuffer([self.ctx.renderbuffer(size, 4)],
                                   self.ctx.depth_renderbuffer(size))
        self._framebuffers['colour'] = fbo
        return fbo

    def _framebuffer(self, width: int, height: int) -> Any:
        fbo = self._framebuffers.get((width, height))
        if fbo is None:
            ctx = self.ctx
            size = (width, height)
            fbo = ctx.framebuffer([ctx.renderbuffer(size, 4),
                                   ctx.renderbuffer(size, 1, dtype='f4'),
                                   ctx.renderbuffer(size, 1, dtype='i4')],
                                  ctx.depth_renderbuffer(size))
            self._framebuffers[(width, height)] = fbo
        return fbo


def _read_rgb(fbo: Any, width: int, height: int) -> np.ndarray:
    rgb = np.frombuffer(fbo.read(components=3, attachment=0, alignment=1), dtype=np.uint8)
    return np.ascontiguousarray(rgb.reshape(height, width, 3)[::-1])


def _read_depth(fbo: Any, width: int, height: int) -> np.ndarray:
    """Metres; the background pass and the clear leave 0 where nothing was drawn (drawn
    surfaces lie beyond the near plane, > 0)."""
    depth = np.frombuffer(fbo.read(components=1, attachment=1, dtype='f4'),
                          dtype=np.float32).reshape(height, width)[::-1]
    return np.where(depth > 0.0, depth, np.float32(np.inf)).astype(np.float32)


def _read_mask(fbo: Any, width: int, height: int) -> np.ndarray:
    ids = np.frombuffer(fbo.read(components=1, attachment=2, dtype='i4'),
                        dtype=np.int32).reshape(height, width)[::-1]
    return ids - 1
