"""Collision and visual shapes of the scene model as PyBullet shapes, created once and shared.

Mapping of the model's shapes:

- ``Box``, ``Sphere``, ``Cylinder``, ``Capsule``, ``Plane``: PyBullet primitives (same axes).
- ``Mesh`` (inline triangles): written once per content digest as a Wavefront ``.obj`` file in
  the simulation's mesh directory and loaded by file name (PyBullet's shape *arrays* take no
  inline vertices). Collision meshes of movable links become their convex hull (what Bullet can
  simulate); on fixed bases they stay concave triangle meshes.
- ``MeshFile``: loaded by path with its scale (.obj and .stl; other formats are skipped with a
  warning).
- ``Torus``: a generated mesh for drawing; for collision, ring segments, each a convex hull, so
  that the hole stays open.
- ``Heightfield``: PyBullet height field (collision only, a link's only collision shape), drawn
  by the same height field. PyBullet ignores a height field's collision frame, so the builder
  moves the body by :meth:`ShapeCache.heightfield_frame` instead (root links only).
- A ``Plane`` is drawn as a thin 200 m x 200 m box just below z = 0.

All shapes of one link form one PyBullet collision shape and one visual shape
(``createCollisionShapeArray``/``createVisualShapeArray``); colours are set per part with
``changeVisualShape(shapeIndex=...)``. :class:`ShapeCache` keys every created shape by its content
and placement, so identical links (14 NAOs) share their shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pybullet as pb

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.scene import (
    Box,
    Capsule,
    Collision,
    Cylinder,
    Heightfield,
    Mesh,
    MeshFile,
    Plane,
    Pose,
    Sphere,
    Torus,
    Visual,
)
from scene_sim_ros.scene.geometry import Shape
from scene_sim_ros.sim.meshes import (
    PLANE_VISUAL_SIZE,
    PLANE_VISUAL_THICKNESS,
    mesh_file,
    torus_mesh,
    torus_segments,
)

PYBULLET_MESH_SUFFIXES = ('.obj', '.stl')
# PyBullet keeps 16 shapes of one shape array and ignores the rest; a flag for a 17th writes out
# of its bounds (a segfault), so a link's collision parts beyond it are left out with a warning
PYBULLET_MAX_PARTS = 16


@dataclass
class _Part:
    """One entry of a PyBullet shape array."""

    shape_type: int
    pose: Pose
    radius: float = 0.0
    half_extents: Sequence[float] = (0.0, 0.0, 0.0)
    length: float = 0.0
    file_name: str = ''
    mesh_scale: Sequence[float] = (1.0, 1.0, 1.0)
    plane_normal: Sequence[float] = (0.0, 0.0, 1.0)
    heightfield: Heightfield | None = None


@dataclass
class ShapeCache:
    """Creates PyBullet collision/visual shapes for links, sharing identical ones.

    ``mesh_dir`` receives the .obj files of inline meshes; ``warnings`` collects shapes that
    could not be created (unsupported mesh file formats, misplaced height fields). Without
    ``visuals`` no visual shape is made (PyBullet draws nothing: the gl renderer draws from the
    scene model).
    """

    client: int
    mesh_dir: Path
    warnings: list[str] = field(default_factory=list)
    visuals: bool = True
    _collision: dict[tuple[tuple[tuple[Shape, Pose], ...], bool], int] = field(default_factory=dict)
    _visual: dict[tuple[tuple[Shape, Pose], ...], int] = field(default_factory=dict)

    def clear(self) -> None:
        """Forget every shape (after ``resetSimulation`` removed them)."""
        self._collision.clear()
        self._visual.clear()

    # -- collision -------------------------------------------------------------------------
    def collision_shape(self, collisions: Sequence[Collision], concave: bool,
                        owner: str = 'a link') -> int:
        """The compound collision shape of a link's ``collisions`` (-1 when there are none);
        ``owner`` names the link in a warning."""
        key = (tuple((c.shape, c.pose) for c in collisions), concave)
        if key not in self._collision:
            parts = [part for c in collisions for part in self._collision_parts(c.shape, c.pose)]
            if len(parts) > PYBULLET_MAX_PARTS:
                self.warnings.append(
                    f'{owner} has {len(parts)} collision shapes (a torus is 16); PyBullet takes '
                    f'{PYBULLET_MAX_PARTS} per link, the other {len(parts) - PYBULLET_MAX_PARTS} '
                    'are left out')
                parts = parts[:PYBULLET_MAX_PARTS]
            self._collision[key] = self._create(parts, collision=True, concave=concave)
        return self._collision[key]

    @staticmethod
    def heightfield_frame(collisions: Sequence[Collision]) -> Pose | None:
        """Where the link frame of a height field link must be moved for the terrain to sit at
        its heights (None without a height field).

        PyBullet centres a height field between its lowest and highest sample and ignores
        ``collisionFramePosition``/``Orientation`` for ``GEOM_HEIGHTFIELD``; so the builder moves
        the *body* by this pose instead (the field's mount pose shifted up by its mid height).
        """
        for collision in collisions:
            if isinstance(collision.shape, Heightfield):
                heights = collision.shape.heights
                middle = (float(heights.min()) + float(heights.max())) / 2.0
                return collision.pose * Pose((0.0, 0.0, middle))
        return None

    def _collision_parts(self, shape: Shape, pose: Pose) -> list[_Part]:
        if isinstance(shape, Torus):
            return [self._mesh_part(piece, pose) for piece in torus_segments(shape)]
        return self._parts(shape, pose)

    # -- visual ----------------------------------------------------------------------------
    def visual_shape(self, visuals: Sequence[Visual]) -> int:
        """The visual shape of a link's ``visuals`` (-1 when there are none); part ``i`` of the
        result is ``visuals[i]`` (colours are set per body, see :func:`apply_colors`)."""
        if not self.visuals:
            return -1
        key = tuple((v.shape, v.pose) for v in visuals)
        if key not in self._visual:
            parts = []
            for visual in visuals:
                shape_parts = self._visual_parts(visual.shape, visual.pose)
                if len(shape_parts) != 1:
                    raise AssertionError('every visual is exactly one PyBullet part')
                parts += shape_parts
            self._visual[key] = self._create(parts, collision=False, concave=False)
        return self._visual[key]

    def _visual_parts(self, shape: Shape, pose: Pose) -> list[_Part]:
        if isinstance(shape, Torus):
            return [self._mesh_part(torus_mesh(shape.major_radius, shape.minor_radius), pose)]
        if isinstance(shape, Plane):
            size = PLANE_VISUAL_SIZE / 2.0
            below = pose * Pose((0.0, 0.0, -PLANE_VISUAL_THICKNESS / 2.0))
            return [_Part(pb.GEOM_BOX, below, half_extents=(size, size,
                                                             PLANE_VISUAL_THICKNESS / 2.0))]
        if isinstance(shape, MeshFile) and shape.path.suffix.lower() not in PYBULLET_MESH_SUFFIXES:
            # keep part indices aligned with the visuals: an invisible speck stands in
            return [_Part(pb.GEOM_SPHERE, pose, radius=1e-6)]
        return self._parts(shape, pose)

    # -- shared ----------------------------------------------------------------------------
    def _mesh_part(self, mesh: Mesh, pose: Pose) -> _Part:
        return _Part(pb.GEOM_MESH, pose, file_name=str(mesh_file(mesh, self.mesh_dir)))

    def _parts(self, shape: Shape, pose: Pose) -> list[_Part]:
        if isinstance(shape, Box):
            return [_Part(pb.GEOM_BOX, pose, half_extents=tuple(s / 2.0 for s in shape.size))]
        if isinstance(shape, Sphere):
            return [_Part(pb.GEOM_SPHERE, pose, radius=shape.radius)]
        if isinstance(shape, Cylinder):
            return [_Part(pb.GEOM_CYLINDER, pose, radius=shape.radius, length=shape.length)]
        if isinstance(shape, Capsule):
            return [_Part(pb.GEOM_CAPSULE, pose, radius=shape.radius, length=shape.length)]
        if isinstance(shape, Plane):
            return [_Part(pb.GEOM_PLANE, pose)]
        if isinstance(shape, Mesh):
            return [self._mesh_part(shape, pose)]
        if isinstance(shape, MeshFile):
            if shape.path.suffix.lower() not in PYBULLET_MESH_SUFFIXES:
                self.warnings.append(f'{shape.path}: mesh format not supported by PyBullet '
                                     f'(use .obj or .stl); shape skipped')
                return []
            return [_Part(pb.GEOM_MESH, pose, file_name=str(shape.path), mesh_scale=shape.scale)]
        if isinstance(shape, Heightfield):
            return [_Part(pb.GEOM_HEIGHTFIELD, pose, heightfield=shape)]
        raise TypeError(f'unknown shape {shape!r}')

    def _create(self, parts: list[_Part], *, collision: bool, concave: bool) -> int:
        try:
            return self._create_parts(parts, collision=collision, concave=concave)
        except pb.error:  # PyBullet says no more than this; the file is the usual culprit
            files = ', '.join(sorted({p.file_name for p in parts if p.file_name}))
            kind = 'collision' if collision else 'visual'
            raise SceneLoadError(f'PyBullet cannot create a {kind} shape'
                                 + (f' from {files}' if files else '')) from None

    def _create_parts(self, parts: list[_Part], *, collision: bool, concave: bool) -> int:
        if not parts:
            return -1
        fields = [p for p in parts if p.heightfield is not None]
        if fields:
            if len(parts) > 1:
                self.warnings.append("a height field must be its link's only shape; "
                                     'the other shapes of that link were dropped')
            return self._create_heightfield(fields[0], collision)
        flags = pb.GEOM_FORCE_CONCAVE_TRIMESH if concave else 0
        if len(parts) == 1:
            return self._create_single(parts[0], collision, flags)
        kwargs = dict(
            shapeTypes=[p.shape_type for p in parts],
            radii=[p.radius for p in parts],
            halfExtents=[list(p.half_extents) for p in parts],
            lengths=[p.length for p in parts],
            fileNames=[p.file_name for p in parts],
            meshScales=[list(p.mesh_scale) for p in parts],
            planeNormals=[list(p.plane_normal) for p in parts],
            physicsClientId=self.client,
        )
        if collision:
            return pb.createCollisionShapeArray(
                collisionFramePositions=[p.pose.position for p in parts],
                collisionFrameOrientations=[p.pose.orientation for p in parts],
                flags=[flags] * len(parts), **kwargs)
        return pb.createVisualShapeArray(
            visualFramePositions=[p.pose.position for p in parts],
            visualFrameOrientations=[p.pose.orientation for p in parts], **kwargs)

    def _create_single(self, part: _Part, collision: bool, flags: int) -> int:
        # PyBullet spells a cylinder's length 'height' for collision, 'length' for visual shapes
        length_key = 'height' if collision else 'length'
        kwargs = dict(radius=part.radius, halfExtents=list(part.half_extents),
                      **{length_key: part.length}, meshScale=list(part.mesh_scale),
                      planeNormal=list(part.plane_normal),
                      physicsClientId=self.client)
        if part.file_name:
            kwargs['fileName'] = part.file_name
        if collision:
            return pb.createCollisionShape(part.shape_type, flags=flags,
                                           collisionFramePosition=part.pose.position,
                                           collisionFrameOrientation=part.pose.orientation,
                                           **kwargs)
        return pb.createVisualShape(part.shape_type, visualFramePosition=part.pose.position,
                                    visualFrameOrientation=part.pose.orientation, **kwargs)

    def _create_heightfield(self, part: _Part, collision: bool) -> int:
        field_ = part.heightfield
        assert field_ is not None
        rows, columns = field_.heights.shape
        kwargs = dict(meshScale=[field_.size_x / max(columns - 1, 1),
                                 field_.size_y / max(rows - 1, 1), 1.0],
                      heightfieldData=field_.heights.ravel().tolist(),
                      numHeightfieldRows=columns, numHeightfieldColumns=rows,
                      physicsClientId=self.client)
        if collision:  # placed by moving the body: see heightfield_frame
            return pb.createCollisionShape(pb.GEOM_HEIGHTFIELD, **kwargs)
        # PyBullet draws a height field only as the visual of its own collision shape
        return -1


def apply_colors(client: int, body: int, link_index: int, visuals: Sequence[Visual],
                 textures: dict[Path, int], warnings: list[str]) -> None:
    """Colour (and texture) each part of a link's visual shape as its model visual says;
    ``textures`` caches loaded textures (-1: could not be loaded, reported in ``warnings``)."""
    if len(visuals) == 1:
        _color_part(client, body, link_index, -1, visuals[0], textures, warnings)
        return
    for index, visual in enumerate(visuals):
        _color_part(client, body, link_index, index, visual, textures, warnings)


def check_textures(visuals: Sequence[Visual], textures: dict[Path, int],
                   warnings: list[str]) -> None:
    """Warn of the textures of ``visuals`` no renderer draws, once each, where PyBullet holds
    no visual shapes (no texture is loaded into it)."""
    from scene_sim_ros.sim.render.textures import texture_problem

    for visual in visuals:
        if visual.texture is not None and visual.texture not in textures:
            problem = texture_problem(visual.texture)
            textures[visual.texture] = -1
            if problem is not None:
                warnings.append(f'{problem}; drawn in plain colour')


def _color_part(client: int, body: int, link_index: int, shape_index: int, visual: Visual,
                textures: dict[Path, int], warnings: list[str]) -> None:
    kwargs: dict[str, int | list[float]] = dict(rgbaColor=list(visual.color), physicsClientId=client)
    if shape_index >= 0:
        kwargs['shapeIndex'] = shape_index
    if visual.texture is not None:
        if visual.texture not in textures:
            textures[visual.texture] = _load_texture(client, visual.texture, warnings)
        if textures[visual.texture] >= 0:
            kwargs['textureUniqueId'] = textures[visual.texture]
    pb.changeVisualShape(body, link_index, **kwargs)


def _load_texture(client: int, path: Path, warnings: list[str]) -> int:
    """PyBullet's texture id of ``path``, -1 (with a warning) where the GL renderer would not
    draw it either (see render.textures) or PyBullet cannot load it."""
    from scene_sim_ros.sim.render.textures import readable_by_pybullet, texture_problem

    problem = texture_problem(path)
    if problem is not None:
        warnings.append(f'{problem}; drawn in plain colour')
        return -1
    try:
        return pb.loadTexture(str(readable_by_pybullet(path)), physicsClientId=client)
    except pb.error:
        warnings.append(f'{path}: PyBullet cannot load this texture; drawn in plain colour')
        return -1
