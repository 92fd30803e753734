"""Objects of a RaiSim world: primitives, compounds, meshes, the ground, height maps and
articulated systems, with their shapes, inertia and appearance."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from scene_sim_ros import limits

from ...errors import SceneLoadError
from ...scene import (
    Box,
    Capsule,
    Collision,
    Cylinder,
    Entity,
    Heightfield,
    Inertial,
    Link,
    MeshFile,
    Plane,
    Sphere,
    Visual,
)
from ...scene.geometry import GREY, RGBA, Shape
from ...scene.inertia import Inertia6, combine, primitive_inertia, rotate_inertia, sphere_inertia
from ...scene.transforms import IDENTITY, Pose, Vec3, quat_normalized
from .. import paths
from .. import urdf as urdf_format
from . import sensors, terrain
from .node import SEPARATORS, Node

COLORS: dict[str, RGBA] = {
    'red': (0.8, 0.1, 0.1, 1.0), 'green': (0.1, 0.7, 0.1, 1.0), 'blue': (0.1, 0.2, 0.8, 1.0),
    'white': (1.0, 1.0, 1.0, 1.0), 'black': (0.05, 0.05, 0.05, 1.0),
    'gray': (0.5, 0.5, 0.5, 1.0), 'grey': (0.5, 0.5, 0.5, 1.0),
    'yellow': (0.9, 0.8, 0.1, 1.0), 'orange': (1.0, 0.5, 0.0, 1.0),
    'purple': (0.5, 0.1, 0.6, 1.0), 'brown': (0.5, 0.3, 0.1, 1.0),
}
PRIMITIVES = ('sphere', 'box', 'capsule', 'cylinder')


def _state_pose(node: Node) -> tuple[Pose, Vec3, Vec3]:
    state = node.child('state')
    if state is None:
        return IDENTITY, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    position = state.vec3('pos', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    wxyz = state.vector('quat', 4, (1.0, 0.0, 0.0, 0.0)) or (1.0, 0.0, 0.0, 0.0)
    try:
        orientation = quat_normalized((wxyz[1], wxyz[2], wxyz[3], wxyz[0]))
    except ValueError:
        state.error('quat must not be zero')
        orientation = IDENTITY.orientation
    linear = state.vec3('lin_vel', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    angular = state.vec3('ang_vel', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    state.finish()
    return Pose(position, orientation), linear, angular


def _primitive_shape(node: Node) -> Shape | None:
    dim = node.child('dim')
    if dim is None:
        node.error(f'<{node.element.tag}> needs <dim>')
        return None
    shape: Shape | None
    if node.tag == 'sphere':
        shape = Sphere(dim.number('radius', 0.0) or 0.0)
    elif node.tag == 'box':
        shape = Box((dim.number('x', 0.0) or 0.0, dim.number('y', 0.0) or 0.0,
                     dim.number('z', 0.0) or 0.0))
    elif node.tag == 'capsule':
        shape = Capsule(dim.number('radius', 0.0) or 0.0, dim.number('height', 0.0) or 0.0)
    else:
        shape = Cylinder(dim.number('radius', 0.0) or 0.0, dim.number('height', 0.0) or 0.0)
    dim.finish()
    return shape


def shape_inertia(shape: Shape, mass: float) -> Inertia6:
    """Inertia of a uniform solid ``shape`` of ``mass`` about its centre (anything but a
    primitive: that of a 0.1 m sphere)."""
    primitive = primitive_inertia(shape, mass)
    return primitive if primitive is not None else sphere_inertia(mass, 0.1)


def shape_volume(shape: Shape) -> float:
    if isinstance(shape, Sphere):
        return 4.0 / 3.0 * math.pi * shape.radius ** 3
    if isinstance(shape, Box):
        return shape.size[0] * shape.size[1] * shape.size[2]
    if isinstance(shape, Capsule):
        return math.pi * shape.radius ** 2 * (shape.length + 4.0 / 3.0 * shape.radius)
    if isinstance(shape, Cylinder):
        return math.pi * shape.radius ** 2 * shape.length
    return 0.0


def _given_inertia(node: Node) -> Inertia6 | None:
    inertia = node.child('inertia')
    if inertia is None:
        return None
    xx, xy, xz, yy, yz, zz = (inertia.number(k, 0.0) or 0.0 for k in ('xx', 'xy', 'xz', 'yy', 'yz', 'zz'))
    inertia.finish()
    return (xx, xy, xz, yy, yz, zz)


def _appearance(node: Node) -> RGBA | None:
    """The colour of ``appearance``; ``None`` when hidden."""
    text = (node.get('appearance') or '').strip()
    if not text:
        return GREY
    if text.lower() == 'hidden':
        return None
    parts = [p for p in SEPARATORS.split(text) if p]
    if len(parts) in (3, 4):
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if values:
            return (values[0], values[1], values[2], values[3] if len(values) == 4 else 1.0)
    return COLORS.get(text.lower(), GREY)


def _common(node: Node, link: Link, pose: Pose, linear: Vec3, angular: Vec3) -> Entity:
    body_type = (node.get('body_type') or 'dynamic').lower()
    if body_type not in ('dynamic', 'kinematic', 'static'):
        node.warn(f'unknown body_type {body_type!r}; dynamic assumed')
        body_type = 'dynamic'
    name = node.get('name') or node.tag
    return Entity(name=name, kind='static' if body_type == 'static' else 'object',
                  links=(link,), pose=pose, fixed_base=body_type == 'static',
                  kinematic=body_type == 'kinematic',
                  linear_velocity=linear if body_type != 'static' else (0.0, 0.0, 0.0),
                  angular_velocity=angular if body_type != 'static' else (0.0, 0.0, 0.0),
                  collision_group=node.integer('collision_group'),
                  collision_mask=node.integer('collision_mask'), source=str(node.file))


def _single_link(name: str, shape: Shape, inertial: Inertial, material: str | None,
                 color: RGBA | None, pose: Pose = IDENTITY) -> Link:
    visuals = () if color is None else (Visual(shape, pose, color, name=f'{name}_visual'),)
    return Link(name, inertial, (Collision(shape, pose, material, f'{name}_collision'),), visuals)


def _primitive(node: Node) -> Entity | None:
    shape = _primitive_shape(node)
    if shape is None:
        return None
    mass = node.number('mass', 1.0) or 0.0
    inertia = _given_inertia(node) or shape_inertia(shape, mass)
    pose, linear, angular = _state_pose(node)
    name = node.get('name') or node.tag
    com = node.vec3('com', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    link = _single_link(name, shape, Inertial(mass, com, inertia),
                        node.get('material'), _appearance(node))
    entity = _common(node, link, pose, linear, angular)
    node.finish(('dim', 'inertia', 'state'))
    return entity


def _compound(node: Node) -> Entity | None:
    mass = node.number('mass', 1.0) or 0.0
    com = node.vec3('com', None)
    given = _given_inertia(node)
    compound_color = _appearance(node)
    material = node.get('material')
    name = node.get('name') or 'compound'
    children = node.child('children')
    collisions: list[Collision] = []
    visuals: list[Visual] = []
    parts = []
    if children is None:
        node.error('<compound> needs <children>')
        return None
    for child in children.children():
        if child.tag not in PRIMITIVES:
            child.warn(f'<{child.element.tag}> is not a compound child (sphere, box, capsule, '
                       'cylinder); ignored')
            continue
        shape = _primitive_shape(child)
        if shape is None:
            continue
        pose, _, _ = _state_pose(child)
        child_mass = child.number('mass')
        child_name = child.get('name') or f'{name}_{child.tag}{len(collisions)}'
        collisions.append(Collision(shape, pose, child.get('material') or material,
                                    child_name))
        color = _appearance(child) if child.has('appearance') else compound_color
        if color is not None:
            visuals.append(Visual(shape, pose, color, name=f'{child_name}_visual'))
        parts.append((shape, pose, child_mass))
        child.finish(('dim', 'state'))
    children.finish(PRIMITIVES)
    inertial = _compound_inertial(parts, mass, com, given)
    link = Link(name, inertial, tuple(collisions), tuple(visuals))
    pose, linear, angular = _state_pose(node)
    entity = _common(node, link, pose, linear, angular)
    node.finish(('inertia', 'children', 'state'))
    return entity


def _compound_inertial(parts: list[tuple[Shape, Pose, float | None]], mass: float,
                       com: Vec3 | None, given: Inertia6 | None) -> Inertial:
    if given is not None:
        return Inertial(mass, com or (0.0, 0.0, 0.0), given)
    volumes = [shape_volume(shape) for shape, _, _ in parts]
    weights = [m if m is not None else v for (_, _, m), v in zip(parts, volumes)]
    total = sum(weights)
    if total <= 0.0:
        return Inertial(mass, com or (0.0, 0.0, 0.0), sphere_inertia(mass, 0.1))
    pieces = []
    for (shape, pose, _), weight in zip(parts, weights):
        part_mass = mass * weight / total  # scaled so that the parts add up to the given mass
        pieces.append((part_mass, pose.position,
                       rotate_inertia(shape_inertia(shape, part_mass), pose.orientation)))
    total_mass, centre, inertia = combine(pieces)
    return Inertial(total_mass, com or centre, inertia)


def _mesh(node: Node) -> Entity | None:
    path = node.path('file_name')
    name = node.get('name') or 'mesh'
    mass = node.number('mass', 1.0) or 0.0
    scale = node.vec3('scale', (1.0, 1.0, 1.0)) or (1.0, 1.0, 1.0)
    com = node.vec3('com', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    inertia = _given_inertia(node)
    color = _appearance(node)
    material = node.get('material')
    pose, linear, angular = _state_pose(node)
    entity = None
    if path is None:
        node.error('<mesh> needs file_name')
    elif not paths.is_file(path):
        node.warn(f'mesh file {path} not found; object {name!r} dropped')
    else:
        if inertia is None:
            node.warn(f'mesh {name!r} without <inertia>: using that of a 0.1 m solid sphere')
            inertia = sphere_inertia(mass, 0.1)
        shape = MeshFile(path.resolve(), scale)
        link = _single_link(name, shape, Inertial(mass, com, inertia), material, color)
        entity = _common(node, link, pose, linear, angular)
    node.used.update(('body_type', 'collision_group', 'collision_mask'))
    node.finish(('inertia', 'state'))
    return entity


def _ground(node: Node) -> Entity | None:
    height = node.number('height', 0.0) or 0.0
    name = node.get('name') or 'ground'
    color = _appearance(node)
    link = _single_link(name, Plane(), Inertial(), node.get('material'), color)
    entity = Entity(name=name, kind='static', links=(link,), pose=Pose((0.0, 0.0, height)),
                    fixed_base=True, collision_group=node.integer('collision_group'),
                    collision_mask=node.integer('collision_mask'), source=str(node.file))
    node.finish()
    return entity


def _heightmap(node: Node) -> Entity | None:
    name = node.get('name') or 'heightmap'
    center = (node.number('center_x', 0.0) or 0.0, node.number('center_y', 0.0) or 0.0)
    color = _appearance(node)
    material = node.get('material')
    field_ = _heightfield(node)
    if field_ is None:
        node.finish(('terrain_properties',))
        return None
    link = _single_link(name, field_, Inertial(), material, color)
    entity = Entity(name=name, kind='static', links=(link,),
                    pose=Pose((center[0], center[1], 0.0)), fixed_base=True,
                    collision_group=node.integer('collision_group'),
                    collision_mask=node.integer('collision_mask'), source=str(node.file))
    node.finish(('terrain_properties',))
    return entity


def _heightfield(node: Node) -> Heightfield | None:
    try:
        if node.has('text'):
            path = node.path('text')
            if path is None:
                return None
            text_map = terrain.read_text_height_map(path)
            return Heightfield(text_map.heights, text_map.x_size, text_map.y_size)
        x_size, y_size = node.number('x_size'), node.number('y_size')
        if node.has('png'):
            path = node.path('png')
            z_scale = node.number('z_scale', 1.0) or 0.0
            z_offset = node.number('z_offset', 0.0) or 0.0
            if path is None or x_size is None or y_size is None:
                node.error('a PNG height map needs png, x_size and y_size')
                return None
            if not paths.is_file(path):
                node.warn(f'height-map image {path} not found; a flat height map at z_offset '
                          'stands in for it')
                return Heightfield(np.full((2, 2), z_offset), x_size, y_size)
            return Heightfield(terrain.png_heights(path, z_scale, z_offset), x_size, y_size)
        x_samples, y_samples = node.integer('x_sample'), node.integer('y_sample')
        if x_size is None or y_size is None or x_samples is None or y_samples is None:
            node.error('a height map needs x_sample, y_sample, x_size and y_size '
                       '(or text="file")')
            return None
        if node.has('height'):
            heights = node.vector('height', None) or ()
            return Heightfield(terrain.heights_from_vector(list(heights), x_samples, y_samples),
                               x_size, y_size)
        properties = node.child('terrain_properties')
        if properties is None:
            node.error('a height map needs height, text, png or <terrain_properties>')
            return None
        props = terrain.TerrainProperties(
            frequency=properties.number('frequency', 0.2) or 0.0,
            z_scale=properties.number('z_scale', 1.0) or 0.0,
            octaves=properties.integer('fractal_octaves', 3) or 1,
            lacunarity=properties.number('fractal_lacunarity', 2.0) or 2.0,
            gain=properties.number('fractal_gain', 0.5) or 0.0,
            step_size=properties.number('step_size', 0.0) or 0.0,
            height_offset=properties.number('height_offset', 0.0) or 0.0,
            seed=properties.integer('seed', 0) or 0)
        properties.finish()
        return Heightfield(terrain.fractal_heights(props, x_samples, y_samples, x_size, y_size),
                           x_size, y_size)
    except (terrain.TerrainError, OSError) as err:
        node.error(str(err))
        return None


def _articulated_system(node: Node) -> Entity | None:
    name = node.get('name') or 'robot'
    urdf_path = node.path('urdf_path')
    res_dir = node.path('res_dir')
    group, mask = node.integer('collision_group'), node.integer('collision_mask')
    state = node.child('state')
    node.finish(('state',))
    if urdf_path is None:
        node.error('<articulated_system> needs urdf_path')
        return None
    try:
        text = limits.read_text(urdf_path)
    except SceneLoadError as err:
        node.error(f'cannot read URDF: {err}')
        return None
    try:
        model = urdf_format.parse_urdf(text, file=urdf_path, name=name,
                                       res_dir=res_dir or urdf_path.parent,
                                       strict=node.loader.strict)
    except SceneLoadError as err:
        node.error(f'in URDF of {name!r}: {err}')
        return None
    node.loader.warnings.extend(model.warnings)
    entity = sensors.attach_sensor_sets(model, urdf_path, res_dir, node.loader.warnings,
                                        node.loader.metadata, node.loader.strict)
    entity = dataclasses.replace(entity, collision_group=group, collision_mask=mask)
    if state is not None:
        entity = _articulated_state(state, model, entity)
    return entity


def _articulated_state(state: Node, model: urdf_format.UrdfModel, entity: Entity) -> Entity:
    joints = model.joint_order
    base = 7 if model.floating else 0
    qpos = state.vector('qpos', None)
    qvel = state.vector('qvel', None)
    state.finish()
    if qpos is not None:
        if len(qpos) != base + len(joints):
            state.error(f'qpos has {len(qpos)} values; {entity.name!r} needs {base + len(joints)}'
                        f' ({"7 for the floating base + " if base else ""}{len(joints)} joints)')
            return entity
        if base:
            w, x, y, z = qpos[3:7]
            try:
                orientation = quat_normalized((x, y, z, w))
            except ValueError:
                state.error('qpos base quaternion must not be zero')
                orientation = IDENTITY.orientation
            entity = dataclasses.replace(entity, pose=Pose((qpos[0], qpos[1], qpos[2]),
                                                           orientation))
        entity = urdf_format.with_initial_positions(entity, dict(zip(joints, qpos[base:])))
    if qvel is not None:
        dofs = (6 if base else 0) + len(joints)
        if len(qvel) != dofs:
            state.error(f'qvel has {len(qvel)} values; {entity.name!r} needs {dofs}')
            return entity
        if base:
            entity = dataclasses.replace(entity, linear_velocity=(qvel[0], qvel[1], qvel[2]),
                                         angular_velocity=(qvel[3], qvel[4], qvel[5]))
        if any(v != 0.0 for v in qvel[(6 if base else 0):]):
            state.warn('initial joint velocities are not supported; they start at rest')
    return entity


OBJECTS: dict[str, Callable[[Node], Entity | None]] = {
    'sphere': _primitive, 'box': _primitive, 'capsule': _primitive, 'cylinder': _primitive,
    'compound': _compound, 'mesh': _mesh, 'ground': _ground, 'heightmap': _heightmap,
    'articulated_system': _articulated_system,
}
