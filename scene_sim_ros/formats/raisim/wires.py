"""``<wire>`` elements of a RaiSim world: their ends (a point on a body or a frame of an
articulated system), stretch type and length, and :func:`link_poses` that places the ends."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

from ...scene import Entity, Wire
from ...scene.model import WireKind, WireStretch
from ...scene.transforms import IDENTITY, Pose, Vec3, quat_from_axis_angle
from .node import Node


def wire(node: Node, entities: list[Entity]) -> Wire | None:
    by_name: dict[str, Entity] = {}
    for entity in entities:
        by_name.setdefault(entity.name, entity)
    name = node.get('name') or f'wire{node.line}'
    kind = (node.get('type') or 'stiff').lower()
    stretch = _wire_stretch(node)
    stiffness = node.number('stiffness')
    tension = node.number('tension')
    length = node.number('length')
    ends = []
    for tag in ('object1', 'object2'):
        end = node.child(tag)
        if end is None:
            node.error(f'<wire> {name!r} needs <{tag}>')
            return None
        ends.append(_wire_end(end, by_name))
    node.finish(('object1', 'object2'))
    end_a, end_b = ends
    if end_a is None or end_b is None:
        return None
    (body_a, point_a, world_a), (body_b, point_b, world_b) = end_a, end_b
    if length is None:
        length = math.dist(world_a, world_b)
    if kind not in ('stiff', 'compliant', 'custom'):
        node.warn(f'wire type {kind!r} not supported; treated as stiff')
        kind = 'stiff'
    if kind == 'compliant':
        if stiffness is None:
            node.warn(f'compliant wire {name!r} has no stiffness; 1000 N/m assumed')
        stiffness = stiffness if stiffness is not None else 1000.0
    else:
        stiffness = None
    if kind == 'custom' and tension is None:
        node.warn(f'custom wire {name!r}: its tension is set by a RaiSim program at run time; '
                  f'none given (tension attribute), so it pulls with 0 N')
    return Wire(name, body_a, point_a, body_b, point_b, length, stiffness,
                kind=cast(WireKind, kind), stretch=stretch, tension=tension or 0.0)


def _wire_stretch(node: Node) -> WireStretch:
    """RaiSim's ``stretch_type``: STRETCH_RESISTANCE_ONLY (default), COMPRESSION_RESISTANCE_ONLY
    or BOTH."""
    raw = (node.get('stretch_type') or '').lower()
    if not raw or 'stretch' in raw:
        return 'stretch'
    if 'compression' in raw:
        return 'compression'
    if 'both' in raw:
        return 'both'
    node.warn(f'unknown stretch_type {raw!r}; stretch resistance only assumed')
    return 'stretch'


def _wire_end(node: Node, by_name: Mapping[str, Entity]
              ) -> tuple[str, Vec3, Vec3] | None:
    """``entity/link``, the point in the link frame and its initial world position."""
    name = node.get('name') or ''
    entity = by_name.get(name)
    position = node.vec3('pos', (0.0, 0.0, 0.0)) or (0.0, 0.0, 0.0)
    node.raw('local_index')
    frame = node.get('frame')
    node.finish()
    if entity is None:
        node.error(f'wire end names unknown object {name!r}')
        return None
    link_name = entity.links[0].name
    if frame:
        frame_link = _frame_link(entity, frame)
        if frame_link is None:
            node.error(f'{name!r} has no frame {frame!r}')
            return None
        link_name = frame_link
    world = link_poses(entity)[link_name].transform_point(position)
    return f'{entity.name}/{link_name}', position, world


def _frame_link(entity: Entity, frame: str) -> str | None:
    for link in entity.links:
        if link.name == frame:
            return link.name
    for joint in entity.joints:
        if joint.name == frame:
            return joint.child
    return None


def link_poses(entity: Entity) -> dict[str, Pose]:
    """World poses of an entity's links at the joints' initial positions."""
    poses = {entity.links[0].name: entity.pose}
    for joint in entity.joints:  # depth-first order: parents come first
        parent = poses.get(joint.parent, entity.pose)
        motion = IDENTITY
        if joint.type == 'revolute':
            motion = Pose(orientation=quat_from_axis_angle(joint.axis, joint.initial_position))
        elif joint.type == 'prismatic':
            q = joint.initial_position
            motion = Pose((joint.axis[0] * q, joint.axis[1] * q, joint.axis[2] * q))
        poses[joint.child] = parent * joint.origin * motion
    return poses
