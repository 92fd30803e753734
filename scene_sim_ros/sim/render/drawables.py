"""What the GL renderer draws: every visual of every link, grouped by shape for instancing.

Each distinct (shape, texture) is uploaded once (all its levels of detail) and shared by every
link and camera that shows it: 14 NAOs draw their parts from one set of buffers. A
:class:`Drawable` row ties one visual to the PyBullet (body, link) that carries it, its fixed
offset from that link's reported centre-of-mass frame, its material and its segmentation value
(``body + ((link + 1) << 24)``, PyBullet's object-and-link mask), so that only link poses change
from frame to frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scene_sim_ros.scene import Capsule, Cylinder, Mesh, Pose, Sphere, Visual
from scene_sim_ros.sim.render.lod import Level, levels_of, round_levels
from scene_sim_ros.sim.render.tessellation import Triangles, triangles_of
from scene_sim_ros.sim.render.textures import read_texture
from scene_sim_ros.sim.simulator import Simulator

INSTANCE = np.dtype([('model', '<f4', (4, 4)), ('diffuse', '<f4', 4), ('ambient', '<f4', 4),
                     ('specular', '<f4', 4), ('emission', '<f4', 4), ('id', '<i4')])
INSTANCE_FORMAT = '4f 4f 4f 4f 4f 4f 4f 4f 1i /i'
INSTANCE_ATTRIBUTES = ('in_model_0', 'in_model_1', 'in_model_2', 'in_model_3', 'in_diffuse',
                       'in_ambient', 'in_specular', 'in_emission', 'in_id')
DEFAULT_SHININESS = 16.0


def pose_matrix(pose: Pose) -> np.ndarray:
    """Row-major 4x4 matrix of ``pose``."""
    matrix = np.eye(4)
    matrix[:3, :3] = quaternion_matrices(np.asarray([pose.orientation]))[0]
    matrix[:3, 3] = pose.position
    return matrix


def quaternion_matrices(q: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices of (N, 4) x, y, z, w quaternions."""
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], 1)


@dataclass
class ShapeGroup:
    """One uploaded shape: vertex, index and instance buffers per level of detail, and a vertex
    array per level and program variant (:class:`.shaders.ProgramKey`) that draws it."""

    levels: list[Level]
    centre: np.ndarray  # bounding sphere in the shape frame
    radius: float
    box_centre: np.ndarray  # bounding box of every level in the shape frame
    half_extents: np.ndarray
    texture: Any = None
    vertex_buffers: list[tuple[Any, Any]] = field(default_factory=list)  # per level
    instance_buffers: list[Any] = field(default_factory=list)  # per level
    vaos: dict[tuple[int, int], Any] = field(default_factory=dict)  # (level, program) -> vao
    capacity: int = 0


class ShapeLibrary:
    """Uploaded shapes of one GL context, keyed by content (kept across simulations)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self._groups: dict[tuple[Any, Path | None], ShapeGroup | None] = {}
        self._levels: dict[Any, list[Level] | None] = {}
        self._textures: dict[Path, Any] = {}

    def group(self, shape: Any, texture: Path | None) -> ShapeGroup | None:
        key = (_shape_key(shape), texture)
        if key not in self._groups:
            levels = self._shape_levels(shape)
            if levels is not None and texture is not None:
                levels = levels[:1]  # simplified levels keep no texture coordinates
            self._groups[key] = None if levels is None else self._upload(levels, texture)
        return self._groups[key]

    def ensure_capacity(self, group: ShapeGroup, count: int) -> None:
        """Instance buffers (and their vertex arrays) for at least ``count`` instances."""
        if count <= group.capacity:
            return
        for vao in group.vaos.values():
            vao.release()
        for buffer in group.instance_buffers:
            buffer.release()
        group.vaos, group.instance_buffers = {}, []
        group.capacity = max(count, 2 * group.capacity)
        if not group.vertex_buffers:
            for level in group.levels:
                t = level.triangles
                group.vertex_buffers.append((
                    self.ctx.buffer(np.hstack([t.positions, t.normals, t.uvs]).astype('f4')),
                    self.ctx.buffer(t.indices.astype('u4'))))
        group.instance_buffers = [self.ctx.buffer(reserve=group.capacity * INSTANCE.itemsize)
                                  for _ in group.vertex_buffers]

    def vao(self, group: ShapeGroup, level: int, program: Any) -> Any:
        """The vertex array that draws ``level`` of ``group`` with ``program`` (one per program
        variant, sharing the buffers; attributes a variant compiled out are skipped)."""
        key = (level, program.glo)
        vao = group.vaos.get(key)
        if vao is None:
            vertices, indices = group.vertex_buffers[level]
            vao = group.vaos[key] = self.ctx.vertex_array(
                program,
                [(vertices, '3f 3f 2f', 'in_position', 'in_normal', 'in_uv'),
                 (group.instance_buffers[level], INSTANCE_FORMAT, *INSTANCE_ATTRIBUTES)],
                index_buffer=indices, index_element_size=4, skip_errors=True)
        return vao

    def _shape_levels(self, shape: Any) -> list[Level] | None:
        key = _shape_key(shape)
        if key not in self._levels:
            self._levels[key] = _levels_of_shape(shape)
        return self._levels[key]

    def _upload(self, levels: list[Level], texture_path: Path | None) -> ShapeGroup:
        centre, radius = levels[0].triangles.bounding_sphere
        corners = np.concatenate([level.triangles.positions for level in levels])
        low, high = corners.min(axis=0), corners.max(axis=0)
        texture = None
        if texture_path is not None:
            if texture_path not in self._textures:
                image = read_texture(texture_path, self.ctx.info['GL_MAX_TEXTURE_SIZE'])
                self._textures[texture_path] = None if image is None else self._texture(image)
            texture = self._textures[texture_path]
        return ShapeGroup(levels, centre, radius, (low + high) / 2.0, (high - low) / 2.0,
                          texture)

    def _texture(self, image: np.ndarray) -> Any:
        height, width, channels = image.shape
        texture = self.ctx.texture((width, height), channels, np.ascontiguousarray(image[::-1]))
        texture.build_mipmaps()
        texture.repeat_x = texture.repeat_y = True
        return texture


def _levels_of_shape(shape: Any) -> list[Level] | None:
    """Round primitives tessellated again with fewer segments, other shapes simplified."""
    if isinstance(shape, (Sphere, Cylinder, Capsule)):
        return round_levels(shape)
    triangles: Triangles | None = triangles_of(shape)
    return None if triangles is None or not len(triangles.indices) else levels_of(triangles)


def _shape_key(shape: Any) -> Any:
    return ('mesh', shape.digest) if isinstance(shape, Mesh) else shape


@dataclass
class DrawList:
    """Every visual of a simulation as rows: link slot, offset, group, material, id."""

    slots: list[tuple[int, int]]  # (body, link) whose pose each slot holds; link -1: the base
    slot: np.ndarray  # (N,) slot of each drawable
    offset: np.ndarray  # (N, 4, 4) visual frame in the reported (centre-of-mass) link frame
    group: np.ndarray  # (N,) index into groups
    groups: list[ShapeGroup]
    instance: np.ndarray  # (N,) INSTANCE rows with everything but the model matrix
    static_slots: np.ndarray  # (S,) bool: slots of bodies that never move by physics
    specular: np.ndarray  # (N,) bool: the material has a specular colour


def build_draw_list(sim: Simulator, library: ShapeLibrary, surfaces: bool = True) -> DrawList:
    """Rows for every visual of ``sim``; ``surfaces`` False: materials from the visuals' single
    colours only (what TinyRenderer's law is given)."""
    slots: dict[tuple[int, int], int] = {}
    static: list[bool] = []
    rows: list[tuple[int, np.ndarray, int, tuple[tuple[float, ...] | int, ...]]] = []
    groups: list[ShapeGroup] = []
    group_index: dict[int, int] = {}
    for built in sim.built_entities():
        fixed = bool(built.fixed) and not built.movable_joints
        for link in built.entity.links:
            index = built.link_index[link.name]
            body, local = built.locate(index)
            link_frame = built.inertial_inverse[index]
            for visual in link.visuals or _collisions_as_visuals(link):
                if visual.color[3] <= 0.0:
                    continue  # PyBullet draws nothing with alpha 0 either
                group = library.group(visual.shape, visual.texture)
                if group is None:
                    continue
                key = (body, local)
                if key not in slots:
                    slots[key] = len(slots)
                    static.append(fixed)
                if id(group) not in group_index:
                    group_index[id(group)] = len(groups)
                    groups.append(group)
                offset = pose_matrix(link_frame) @ pose_matrix(visual.pose)
                rows.append((slots[key], offset, group_index[id(group)],
                             material_of(visual, surfaces) + (body + ((local + 1) << 24),)))
    instance = np.zeros(len(rows), dtype=INSTANCE)
    for i, (_, _, _, (diffuse, ambient, specular, emission, seg)) in enumerate(rows):
        instance[i]['diffuse'], instance[i]['ambient'] = diffuse, ambient
        instance[i]['specular'], instance[i]['emission'] = specular, emission
        instance[i]['id'] = seg
    for g, count in zip(*np.unique([r[2] for r in rows] or [0], return_counts=True)):
        if rows:
            library.ensure_capacity(groups[int(g)], int(count))
    return DrawList(list(slots), np.array([r[0] for r in rows], dtype=np.int64),
                    np.array([r[1] for r in rows]).reshape(-1, 4, 4),
                    np.array([r[2] for r in rows], dtype=np.int64), groups, instance,
                    np.array(static, dtype=bool),
                    np.asarray(instance['specular'][:, :3].any(axis=1), dtype=bool))


def _collisions_as_visuals(link: Any) -> tuple[Visual, ...]:
    """What PyBullet draws for a link without visuals: its collision shapes, in white (so both
    renderers show, and segment, the same bodies)."""
    return tuple(Visual(c.shape, c.pose, color=(1.0, 1.0, 1.0, 1.0)) for c in link.collisions)


def material_of(visual: Any, surfaces: bool = True) -> tuple[tuple[float, ...], ...]:
    """(diffuse rgba, ambient rgb + shininess, specular rgb + 0, emission rgb + 0) of a visual:
    its Surface where the model has one (and ``surfaces``), else its colour as diffuse and
    ambient colour."""
    surface = getattr(visual, 'surface', None) if surfaces else None
    color = tuple(visual.color)
    if surface is None:
        return (color, (*color[:3], DEFAULT_SHININESS), (0.0, 0.0, 0.0, 0.0), (0.0,) * 4)
    return ((*surface.diffuse[:3], color[3]), (*surface.ambient[:3], surface.shininess),
            (*surface.specular[:3], 0.0), (*surface.emission[:3], 0.0))
