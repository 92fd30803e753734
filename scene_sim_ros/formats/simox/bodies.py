"""The shapes (``<Visualization>``, ``<CollisionModel>``) and ``<Physics>`` of a Simox robot node
or object, and the links' visuals, collisions and inertials made from them; semantics in
:mod:`.robot`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from ...scene.geometry import Box, Cylinder, Shape, Sphere
from ...scene.inertia import Inertia6, box_inertia, sphere_inertia
from ...scene.model import Collision, Inertial, Visual
from ...scene.transforms import IDENTITY, Pose, quat_from_axis_angle, vec3
from .context import MM, LoadContext, number
from .meshes import MeshError
from .transforms import matrix_rows, parse_transform
from .xml import child, children, is_true, text_of, unit_factor

STAND_IN_RADIUS = 0.01


# ---------------------------------------------------------------- geometry

@dataclass
class ShapeSet:
    """Shapes of a visualisation or collision model, in the node frame."""

    parts: list[tuple[Shape, Pose, tuple[float, float, float, float] | None]] = field(default_factory=list)
    points: list[np.ndarray] = field(default_factory=list)  # vertices in the node frame (bbox)

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray] | None:
        if not self.points:
            return None
        stacked = np.vstack(self.points)
        return stacked.min(axis=0), stacked.max(axis=0)


def _box_corners(size: tuple[float, float, float], pose: Pose) -> np.ndarray:
    return np.array([pose.transform_point((sx * size[0] / 2, sy * size[1] / 2, sz * size[2] / 2))
                     for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def _file_shapes(ctx: LoadContext, file: Path, element: etree._Element, out: ShapeSet) -> None:
    name = text_of(element)
    kind = (element.get('type') or 'inventor').lower()
    path = ctx.resolve(name, file.parent)
    if path is None:
        ctx.warn(file, element, f'mesh file {name!r} not found; using a '
                 f'{STAND_IN_RADIUS * 100:g} cm sphere instead')
        out.parts.append((Sphere(STAND_IN_RADIUS), IDENTITY, None))
        out.points.append(np.array([[-STAND_IN_RADIUS] * 3, [STAND_IN_RADIUS] * 3]))
        return
    if kind not in ('inventor', 'coin', 'osg', 'openscenegraph') or \
            path.suffix.lower() not in ('.iv', '.wrl', '.vrml'):
        reason = f'unsupported mesh file {path.name!r} (type {kind!r})'
        data = None
    else:
        try:
            data = ctx.meshes.read(path)
            reason = ''
        except MeshError as err:
            data, reason = None, str(err)
    if data is None:
        ctx.warn(file, element, f'{reason}; using a {STAND_IN_RADIUS * 100:g} cm sphere instead')
        out.parts.append((Sphere(STAND_IN_RADIUS), IDENTITY, None))
        out.points.append(np.array([[-STAND_IN_RADIUS] * 3, [STAND_IN_RADIUS] * 3]))
        return
    low, high = data.bounds
    if is_true(element.get('boundingbox')):
        size = vec3((high - low).tolist())
        center = vec3(((high + low) / 2).tolist())
        out.parts.append((Box(size), Pose(center), data.color))
    else:
        out.parts.append((data.mesh, IDENTITY, data.color))
    out.points.append(np.array([low, high]))


def _primitive_shapes(ctx: LoadContext, file: Path, element: etree._Element, out: ShapeSet) -> None:
    current = IDENTITY
    for primitive in children(element):
        length = unit_factor(primitive, 'length', MM)
        current = current * parse_transform(ctx, file, primitive)
        if primitive.tag == 'box':
            size = vec3([number(ctx, file, primitive, k) * length
                         for k in ('width', 'height', 'depth')])
            out.parts.append((Box(size), current, None))
            out.points.append(_box_corners(size, current))
        elif primitive.tag == 'sphere':
            radius = number(ctx, file, primitive, 'radius') * length
            out.parts.append((Sphere(radius), current, None))
            out.points.append(_box_corners((2 * radius,) * 3, current))
        elif primitive.tag == 'cylinder':
            radius = number(ctx, file, primitive, 'radius') * length
            height = number(ctx, file, primitive, 'height') * length
            along_y = current * Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), -math.pi / 2))
            out.parts.append((Cylinder(radius, height), along_y, None))
            out.points.append(_box_corners((2 * radius, height, 2 * radius), current))
        else:
            ctx.warn(file, primitive, f'unknown primitive <{primitive.tag}> ignored')


def parse_shapes(ctx: LoadContext, file: Path, element: etree._Element) -> tuple[ShapeSet, bool]:
    """Shapes of a ``<Visualization>`` or ``<CollisionModel>`` and whether it is also the
    collision model (``UseAsCollisionModel``)."""
    out = ShapeSet()
    use_as_collision = (child(element, 'useascollisionmodel') is not None
                        or is_true(element.get('useascollisionmodel')))
    if element.get('enable') is not None and not is_true(element.get('enable')):
        return out, False
    for part in children(element):
        if part.tag == 'file':
            _file_shapes(ctx, file, part, out)
        elif part.tag == 'primitives':
            _primitive_shapes(ctx, file, part, out)
        elif part.tag not in ('coordinateaxis', 'useascollisionmodel'):
            ctx.warn(file, part, f'unknown element <{part.tag}> in <{element.tag}> ignored')
    return out, use_as_collision


# ---------------------------------------------------------------- physics

@dataclass
class PhysicsDef:
    mass: float = 0.0
    com: tuple[float, float, float] | None = None
    com_at_bbox_center: bool = False
    inertia: Inertia6 | None = None
    ignore_collisions: list[str] = field(default_factory=list)
    simulation_type: str | None = None
    friction: float | None = None
    defined: bool = False


def parse_physics(ctx: LoadContext, file: Path, element: etree._Element | None) -> PhysicsDef:
    physics = PhysicsDef()
    if element is None:
        return physics
    physics.defined = True
    mass = child(element, 'mass')
    if mass is not None:
        factor = unit_factor(mass, 'weight', None)
        if factor is None:
            ctx.warn(file, mass, '<mass> has no weight unit; reading kg')
            factor = 1.0
        physics.mass = number(ctx, file, mass, 'value') * factor
    com = child(element, 'com')
    if com is not None:
        location = (com.get('location') or 'custom').lower()
        if location == 'visualizationbboxcenter':
            physics.com_at_bbox_center = True
        else:
            if location not in ('joint', 'custom'):
                ctx.warn(file, com, f'unknown CoM location {location!r}; using x/y/z')
            length = unit_factor(com, 'length', MM)
            physics.com = vec3([number(ctx, file, com, k, 0.0) * length for k in 'xyz'])
    matrix = child(element, 'inertiamatrix')
    if matrix is not None:
        rows = matrix_rows(ctx, file, matrix, 3)
        factor = unit_factor(matrix, 'weight', 1.0) * unit_factor(matrix, 'length', 1.0) ** 2
        physics.inertia = (rows[0][0] * factor, rows[0][1] * factor, rows[0][2] * factor,
                           rows[1][1] * factor, rows[1][2] * factor, rows[2][2] * factor)
    for ignore in children(element, 'ignorecollision'):
        if ignore.get('name'):
            physics.ignore_collisions.append(ignore.get('name'))
    simulation = child(element, 'simulationtype')
    if simulation is not None and simulation.get('value'):
        physics.simulation_type = simulation.get('value').strip().lower()
    friction = child(element, 'friction')
    if friction is not None:
        physics.friction = number(ctx, file, friction, 'value')
    known = {'mass', 'com', 'inertiamatrix', 'ignorecollision', 'simulationtype', 'friction'}
    for part in children(element):
        if part.tag not in known:
            ctx.warn(file, part, f'unknown element <{part.tag}> in <physics> ignored')
    return physics


def make_inertial(physics: PhysicsDef, visual: ShapeSet, collision: ShapeSet) -> Inertial:
    if physics.mass <= 0.0:
        return Inertial()
    com = physics.com or (0.0, 0.0, 0.0)
    if physics.com_at_bbox_center:
        box = visual.bounding_box() or collision.bounding_box()
        if box is not None:
            com = vec3(((box[0] + box[1]) / 2).tolist())
    inertia = physics.inertia
    if inertia is None or not any(inertia):
        box = collision.bounding_box() or visual.bounding_box()
        if box is not None:
            size = vec3([max(float(v), 1e-3) for v in box[1] - box[0]])
            inertia = box_inertia(physics.mass, size)
        else:
            inertia = sphere_inertia(physics.mass, 0.05)
    return Inertial(physics.mass, com, inertia)


def visuals_of(shapes: ShapeSet, name: str) -> tuple[Visual, ...]:
    return tuple(Visual(shape, pose, color or (0.8, 0.8, 0.8, 1.0), name=f'{name}_visual_{k}')
                 for k, (shape, pose, color) in enumerate(shapes.parts))


def collisions_of(shapes: ShapeSet, name: str) -> tuple[Collision, ...]:
    return tuple(Collision(shape, pose, name=f'{name}_collision_{k}')
                 for k, (shape, pose, _) in enumerate(shapes.parts))
