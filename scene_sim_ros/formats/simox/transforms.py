"""Simox ``<Transform>`` elements (translation, roll-pitch-yaw, quaternion, 3x3 and 4x4
matrices, DH) as poses; semantics in :mod:`.robot`."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ...errors import SceneLoadError
from ...scene.transforms import (
    IDENTITY,
    Pose,
    quat_from_axis_angle,
    quat_from_matrix,
    quat_from_rpy,
    quat_normalized,
    vec3,
)
from .context import MM, LoadContext, number
from .xml import child, children, unit_factor


def matrix_rows(ctx: LoadContext, file: Path, element: etree._Element, size: int) -> list[list[float]]:
    rows = [[1.0 if r == c else 0.0 for c in range(size)] for r in range(size)]
    for r in range(size):
        row = child(element, f'row{r + 1}')
        if row is not None:
            rows[r] = [number(ctx, file, row, f'c{c + 1}') for c in range(size)]
    return rows


def _dh_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    angle = unit_factor(element, 'angle', 1.0)
    length = unit_factor(element, 'length', MM)
    theta = number(ctx, file, element, 'theta', 0.0) * angle
    d = number(ctx, file, element, 'd', 0.0) * length
    a = number(ctx, file, element, 'a', 0.0) * length
    alpha = number(ctx, file, element, 'alpha', 0.0) * angle
    return (Pose(orientation=quat_from_axis_angle((0.0, 0.0, 1.0), theta))
            * Pose((0.0, 0.0, d)) * Pose((a, 0.0, 0.0))
            * Pose(orientation=quat_from_axis_angle((1.0, 0.0, 0.0), alpha)))


def _translation_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    length = unit_factor(element, 'length', MM)
    return Pose(vec3([number(ctx, file, element, k) * length for k in 'xyz']))


def _rpy_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    angle = unit_factor(element, 'angle', None)
    if angle is None:
        ctx.warn(file, element, f'<{element.tag}> has no angle unit; reading radians')
        angle = 1.0
    r, p, y = (number(ctx, file, element, k) * angle for k in ('roll', 'pitch', 'yaw'))
    return Pose(orientation=quat_normalized(quat_from_rpy(r, p, y)))


def _quaternion_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    q = tuple(number(ctx, file, element, k) for k in 'xyzw')
    try:
        return Pose(orientation=quat_normalized(q))
    except ValueError:
        raise SceneLoadError('zero quaternion', file, element.sourceline) from None


def _matrix3_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    return Pose(orientation=quat_from_matrix(matrix_rows(ctx, file, element, 3)))


def _matrix4_pose(ctx: LoadContext, file: Path, element: etree._Element) -> Pose:
    rows = matrix_rows(ctx, file, element, 4)
    length = unit_factor(element, 'length', MM)
    pose = Pose.from_matrix4(rows)
    return Pose(vec3([v * length for v in pose.position]), pose.orientation)


TRANSFORM_ELEMENTS = {
    'translation': _translation_pose, 'trans': _translation_pose,
    'rollpitchyaw': _rpy_pose, 'rpy': _rpy_pose,
    'quaternion': _quaternion_pose, 'quat': _quaternion_pose,
    'matrix3x3': _matrix3_pose, 'matrix4x4': _matrix4_pose, 'dh': _dh_pose,
}


def parse_transform(ctx: LoadContext, file: Path, element: etree._Element | None) -> Pose:
    """The pose of a ``<Transform>`` element (or of the first one inside ``element``)."""
    if element is None:
        return IDENTITY
    if element.tag != 'transform':
        element = child(element, 'transform')
        if element is None:
            return IDENTITY
    pose = IDENTITY
    for part in children(element):
        handler = TRANSFORM_ELEMENTS.get(part.tag)
        if handler is None:
            ctx.warn(file, part, f'unknown element <{part.tag}> in <transform> ignored')
            continue
        pose = pose * handler(ctx, file, part)
    return pose
