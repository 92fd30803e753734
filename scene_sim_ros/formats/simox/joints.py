"""Simox ``<Joint>`` elements (type, offset, limits, axis or translation direction, rates) as
:class:`JointDef`; semantics in :mod:`.robot`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from ...errors import SceneLoadError
from ...scene.model import JointType
from ...scene.transforms import vec3
from .context import MM, LoadContext, number
from .xml import children, has_unit, is_true, unit_factor


@dataclass
class JointDef:
    type: JointType = 'fixed'
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)
    offset: float = 0.0  # SI
    initial: float = 0.0  # SI
    limits: tuple[float, float] | None = None
    max_velocity: float | None = None
    max_torque: float | None = None
    propagate: list[tuple[str, float]] = field(default_factory=list)


def _vector(ctx: LoadContext, file: Path, element: etree._Element) -> tuple[float, float, float]:
    return vec3([number(ctx, file, element, k) for k in 'xyz'])


def _limits(ctx: LoadContext, file: Path, element: etree._Element, joint_type: str,
            node: str) -> tuple[float, float] | None:
    kind = 'angle' if joint_type == 'revolute' else 'length'
    factor = unit_factor(element, kind, None)
    if factor is None:
        factor = 1.0 if kind == 'angle' else MM
        if has_unit(element):
            expected = 'an angle' if kind == 'angle' else 'a length'
            ctx.warn(file, element, f'<limits> unit of joint {node!r} is not {expected}; '
                     f'reading {"rad" if kind == "angle" else "mm"}')
        else:
            ctx.warn(file, element, f'<limits> of joint {node!r} has no unit; reading '
                     f'{"rad" if kind == "angle" else "mm"}')
    default = (-math.pi, math.pi) if kind == 'angle' else (-1.0, 1.0)
    lo = number(ctx, file, element, 'lo', default[0] / factor) * factor
    hi = number(ctx, file, element, 'hi', default[1] / factor) * factor
    if is_true(element.get('limitless')):
        return None
    return (lo, hi)


def _rate(element: etree._Element, joint_type: str, per_time: int, file: Path) -> float:
    value = number(None, file, element, 'value', 0.0)
    length = unit_factor(element, 'length', 1.0)
    angle = unit_factor(element, 'angle', 1.0)
    time = unit_factor(element, 'time', 1.0)
    return value * (length if joint_type == 'prismatic' else angle) / time ** per_time


_JOINT_TYPES: dict[str, JointType] = {'fixed': 'fixed', 'revolute': 'revolute', 'prismatic': 'prismatic'}


def parse_joint(ctx: LoadContext, file: Path, element: etree._Element | None, node: str) -> JointDef:
    joint = JointDef()
    if element is None:
        return joint
    written = (element.get('type') or 'fixed').strip().lower()
    joint_type = _JOINT_TYPES.get(written)
    if joint_type is None:
        ctx.warn(file, element, f'unknown joint type {written!r} of node {node!r}; using fixed')
        joint_type = 'fixed'
    joint.type = joint_type
    scale = MM if joint.type == 'prismatic' else 1.0
    joint.offset = number(ctx, file, element, 'offset', 0.0) * scale
    joint.initial = number(ctx, file, element, 'initialvalue', 0.0) * scale
    if joint.type == 'revolute':
        joint.limits = (-math.pi, math.pi)
    elif joint.type == 'prismatic':
        joint.limits = None
    direction_found = False
    for part in children(element):
        tag = part.tag
        if tag == 'limits':
            joint.limits = _limits(ctx, file, part, joint.type, node)
        elif tag == 'axis' and joint.type == 'revolute':
            joint.axis = _vector(ctx, file, part)
            direction_found = True
        elif tag == 'translationdirection' and joint.type == 'prismatic':
            joint.axis = _vector(ctx, file, part)
            direction_found = True
        elif tag == 'maxvelocity':
            joint.max_velocity = _rate(part, joint.type, 1, file)
        elif tag == 'maxtorque':
            joint.max_torque = number(ctx, file, part, 'value', 0.0)
        elif tag == 'propagatejointvalue':
            joint.propagate.append((part.get('name', ''), number(ctx, file, part, 'factor', 1.0)))
        elif tag in ('maxacceleration', 'scalevisualization', 'axis', 'translationdirection'):
            pass
        elif tag in ('dh', 'prejointtransform', 'postjointtransform'):
            ctx.warn(file, part, f'<{tag}> inside <joint> is deprecated in Simox (it refuses it); '
                     "ignored: put it in the node's <Transform>")
        else:
            ctx.warn(file, part, f'unknown element <{tag}> in <joint> of node {node!r} ignored')
    if joint.type == 'prismatic' and not direction_found:
        raise SceneLoadError(f'prismatic joint {node!r} needs <TranslationDirection>', file,
                             element.sourceline)
    norm = math.sqrt(sum(v * v for v in joint.axis))
    if joint.type != 'fixed':
        if norm == 0.0:
            raise SceneLoadError(f'joint {node!r} has a zero axis', file, element.sourceline)
        if abs(norm - 1.0) > 1e-6:
            if joint.type == 'prismatic':  # Simox moves by value * direction: keep the motion
                ctx.warn(file, element, f'translation direction of {node!r} is not a unit '
                         'vector; normalised (joint values scaled by its length)')
            joint.axis = vec3([v / norm for v in joint.axis])
    if joint.limits is not None and joint.type != 'fixed':
        lo, hi = joint.limits
        joint.initial = min(max(joint.initial, lo), hi)
    return joint
