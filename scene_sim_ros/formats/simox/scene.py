"""Simox scene files (``<Scene>``) and object files (``<ManipulationObject>``, ``<Obstacle>``).

Scene semantics follow VirtualRobot's ``XML/SceneIO.cpp`` and ``XML/ObjectIO.cpp``:

- ``<Robot name initConfig>`` with ``<File>`` (a robot file), ``<Configuration name>`` of
  ``<Node name value unit>`` entries, ``<GlobalPose><Transform>`` and extra ``<RobotNodeSet>``s.
  The robot's joints start at the ``initConfig`` configuration; all configurations are kept in
  metadata (values in rad or m).
- ``<Obstacle>`` and ``<ManipulationObject>``: either ``<File>`` (an object file, renamed to the
  element's name and placed at its ``<GlobalPose>``) or inline ``<Visualization>``,
  ``<CollisionModel>``, ``<Physics>``, ``<GlobalPose>``, ``<GraspSet>`` (kept as metadata).
  An object becomes a 'static' entity when its ``SimulationType`` is static or kinematic or it
  has no mass; otherwise an 'object'.
- ``<SceneObjectSet>`` of ``<SceneObject name>`` and ``<Trajectory>`` are metadata.

A referenced file that does not exist is skipped with a warning (an error in strict mode).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lxml import etree

from ...errors import SceneLoadError
from ...scene.model import Entity, Link
from ...scene.transforms import IDENTITY, Pose
from .bodies import (
    PhysicsDef,
    ShapeSet,
    collisions_of,
    make_inertial,
    parse_physics,
    parse_shapes,
    visuals_of,
)
from .context import MM, LoadContext, number
from .robot import build_entity, load_robot_def, robot_metadata
from .transforms import parse_transform
from .xml import child, children, read_xml, text_of, unit_factor

OBJECT_TAGS = ('manipulationobject', 'obstacle')


def _global_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose | None:
    pose_element = child(element, 'globalpose')
    return parse_transform(ctx, file, pose_element) if pose_element is not None else None


def _object_entity(ctx: LoadContext, file: Path, element: etree._Element,
                   metadata: dict[str, Any], depth: int = 0) -> Entity | None:
    name = element.get('name') or ''
    file_element = child(element, 'file')
    if file_element is not None:
        path = ctx.resolve(text_of(file_element), file.parent)
        if path is None:
            ctx.warn(file, file_element, f'object file {text_of(file_element)!r} not found; '
                     f'object {name!r} skipped')
            return None
        if depth > 8:
            raise SceneLoadError('object files include each other too deeply', path)
        root = read_xml(path, ctx.diagnostics)
        if root.tag not in OBJECT_TAGS:
            raise SceneLoadError(f'expected <ManipulationObject> or <Obstacle>, found '
                                 f'<{root.tag}>', path, root.sourceline)
        entity = _object_entity(ctx, path, root, metadata, depth + 1)
        if entity is None:
            return None
        pose = _global_pose(ctx, file, element)
        return _renamed(entity, name or entity.name, pose if pose is not None else entity.pose,
                        element.tag == 'obstacle')
    if not name:
        raise SceneLoadError(f'<{element.tag}> needs attribute name', file, element.sourceline)
    visual, collision = ShapeSet(), ShapeSet()
    physics = PhysicsDef()
    collision_given = False
    pose = IDENTITY
    grasp_sets = {}
    for part in children(element):
        if part.tag == 'visualization':
            visual, use_as_collision = parse_shapes(ctx, file, part)
            if use_as_collision and not collision_given:
                collision = visual
        elif part.tag == 'collisionmodel':
            collision, _ = parse_shapes(ctx, file, part)
            collision_given = True
        elif part.tag == 'physics':
            physics = parse_physics(ctx, file, part)
        elif part.tag == 'globalpose':
            pose = parse_transform(ctx, file, part)
        elif part.tag == 'graspset':
            grasp_sets[part.get('name', '')] = {
                'robot_type': part.get('robottype'), 'endeffector': part.get('endeffector'),
                'grasps': [g.get('name', '') for g in children(part, 'grasp')]}
        else:
            ctx.warn(file, part, f'unknown element <{part.tag}> in <{element.tag}> ignored')
    if grasp_sets:
        metadata.setdefault('grasp_sets', {})[name] = grasp_sets
    static = (element.tag == 'obstacle' or physics.mass <= 0.0
              or physics.simulation_type in ('static', 'kinematic'))
    link = Link(name, make_inertial(physics, visual, collision) if not static else
                make_inertial(PhysicsDef(), visual, collision),
                collisions_of(collision, name), visuals_of(visual, name))
    return Entity(name, 'static' if static else 'object', (link,), pose=pose, fixed_base=static,
                  source=str(file))


def _renamed(entity: Entity, name: str, pose: Pose, obstacle: bool) -> Entity:
    from dataclasses import replace
    link = replace(entity.links[0], name=name)
    static = obstacle or entity.kind == 'static'
    if static and entity.kind != 'static':
        link = replace(link, inertial=make_inertial(PhysicsDef(), ShapeSet(), ShapeSet()))
    return replace(entity, name=name, links=(link,), pose=pose,
                   kind='static' if static else entity.kind, fixed_base=static)


def _configuration(ctx: LoadContext, file: Path, element: etree._Element,
                   joint_types: Mapping[str, str]) -> dict[str, float]:
    values: dict[str, float] = {}
    for node in children(element, 'node'):
        name = node.get('name', '')
        raw = number(ctx, file, node, 'value', 0.0)
        joint_type = joint_types.get(name)
        if joint_type is None:
            ctx.warn(file, node, f'configuration {element.get("name")!r} names unknown joint '
                     f'{name!r}')
            continue
        if joint_type == 'prismatic':
            values[name] = raw * (unit_factor(node, 'length', MM) or MM)
        else:
            values[name] = raw * (unit_factor(node, 'angle', 1.0) or 1.0)
    return values


def _scene_robot(ctx: LoadContext, file: Path, element: etree._Element,
                 metadata: dict[str, Any]) -> Entity | None:
    name = element.get('name')
    if not name:
        raise SceneLoadError('scene <Robot> needs attribute name', file, element.sourceline)
    file_element = child(element, 'file')
    if file_element is None:
        raise SceneLoadError(f'scene robot {name!r} has no <File>', file, element.sourceline)
    path = ctx.resolve(text_of(file_element), file.parent)
    if path is None:
        ctx.warn(file, file_element, f'robot file {text_of(file_element)!r} not found; '
                 f'robot {name!r} skipped')
        return None
    robot = load_robot_def(ctx, path)
    joint_types = {n: node.joint.type for n, node in robot.nodes.items()}
    configurations = {c.get('name', ''): _configuration(ctx, file, c, joint_types)
                      for c in children(element, 'configuration')}
    init = element.get('initconfig')
    initial = None
    if init:
        if init not in configurations:
            raise SceneLoadError(f'robot {name!r} has no configuration {init!r}', file,
                                 element.sourceline)
        initial = configurations[init]
    info = robot_metadata(robot)
    info['configurations'] = configurations
    info['init_config'] = init
    for extra in children(element, 'robotnodeset'):
        info['robot_node_sets'] = {**info['robot_node_sets'], extra.get('name', ''): {
            'nodes': [n.get('name', '') for n in children(extra, 'node')],
            'kinematic_root': extra.get('kinematicroot') or robot.root,
            'tcp': extra.get('tcp')}}
    for part in children(element):
        if part.tag not in ('file', 'configuration', 'globalpose', 'robotnodeset'):
            ctx.warn(file, part, f'unknown element <{part.tag}> in scene robot {name!r} ignored')
    metadata.setdefault('robots', {})[name] = info
    return build_entity(robot, name, _global_pose(ctx, file, element) or IDENTITY, initial)


def read_scene(ctx: LoadContext, path: Path, root: etree._Element,
               metadata: dict[str, Any]) -> tuple[str, list[Entity]]:
    name = root.get('name') or path.stem
    entities: list[Entity] = []
    sets: dict[str, list[str]] = {}
    for element in children(root):
        tag = element.tag
        entity = None
        if tag == 'robot':
            entity = _scene_robot(ctx, path, element, metadata)
        elif tag in OBJECT_TAGS:
            entity = _object_entity(ctx, path, element, metadata)
        elif tag == 'sceneobjectset':
            sets[element.get('name', '')] = [o.get('name', '')
                                             for o in children(element, 'sceneobject')]
        elif tag == 'trajectory':
            metadata.setdefault('trajectories', {})[element.get('name', '')] = {
                'robot': element.get('robot'), 'robot_node_set': element.get('robotnodeset'),
                'points': len(children(element, 'point'))}
        else:
            ctx.warn(path, element, f'unknown element <{tag}> in <scene> ignored')
        if entity is not None:
            if any(e.name == entity.name for e in entities):
                ctx.diagnostics.error(path, element.sourceline,
                                      f'two scene entities named {entity.name!r}')
                continue
            entities.append(entity)
    known = {e.name for e in entities}
    for set_name, members in sets.items():
        for member in members:
            if member not in known:
                ctx.warn(path, None, f'scene object set {set_name!r} names unknown object '
                         f'{member!r}')
    if sets:
        metadata['scene_object_sets'] = sets
    return name, entities
