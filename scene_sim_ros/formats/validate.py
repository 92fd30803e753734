"""The numeric contract of every loaded scene, checked once after any loader (format-neutral).

Every number in the scene model must be finite (``inf`` is allowed only where a field documents
it, e.g. a sensor's open range) and within ``max_magnitude``; the time step is positive and at
most ``max_time_step``; masses and inertia diagonals are not negative; meshes stay within
``max_triangles``. A violation is a :class:`SceneLoadError` naming the entity and the field, so
that nothing non-finite reaches PyBullet (where a NaN time step or a 1e308 kg mass became NaN
poses).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SceneLoadError
from ..scene import Entity, Scene
from ..scene.geometry import Heightfield, Mesh
from ..scene.transforms import Pose
from . import limits

_SKIPPED = frozenset({'metadata', 'warnings'})


def validate(scene: Scene) -> Scene:
    """Return ``scene`` unchanged, or raise at its first number out of contract."""
    file = scene.source
    limits.check_time_step(_number(scene.step_length, 'time step', file), 'time step', file)
    checker = _Checker(limits.current(), file)
    for f in dataclasses.fields(scene):
        if f.name not in _SKIPPED and f.name != 'entities':
            checker.walk(getattr(scene, f.name), f.name)
    for entity in scene.entities:
        _check_entity(checker, entity, file)
    _check_coincident(scene.entities, file)
    return scene


# movable entities that may start at one position: PyBullet's first step takes 0.4 s for 20
# boxes inside each other, 8.5 s for 40 and 66 s for 60 (a RaiSim world whose <state> was lost)
MAX_COINCIDENT = 16


def _check_coincident(entities: tuple[Entity, ...], file: Path | None) -> None:
    at: dict[tuple[float, ...], list[str]] = {}
    for entity in entities:
        if not (entity.fixed_base or entity.kind == 'static' or entity.kinematic):
            at.setdefault(tuple(round(v, 6) for v in entity.pose.position), []).append(
                entity.name)
    for position, names in at.items():
        if len(names) > MAX_COINCIDENT:
            shown = ', '.join(map(repr, names[:4]))
            raise SceneLoadError(f'{len(names)} movable entities ({shown}, ...) start at the same '
                                 f'position {position}, inside each other; PyBullet takes '
                                 'minutes to push that many apart: give them distinct positions',
                                 file)


def _number(value: Any, what: str, file: Path | None) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise SceneLoadError(f'{what} is {value!r}, not a number', file) from None


def _check_entity(checker: _Checker, entity: Entity, file: Path | None) -> None:
    where = f'entity {entity.name!r}'
    checker.file = entity.source or file
    for name in ('collision_group', 'collision_mask'):
        value = getattr(entity, name)
        if value is not None and not -2**31 <= value < 2**32:
            raise SceneLoadError(f'{where} {name} {value} does not fit in 32 bits', checker.file)
    for f in dataclasses.fields(entity):
        if f.name not in ('links', 'joints', 'sensors', 'urdf', 'source'):
            checker.walk(getattr(entity, f.name), f'{where} {f.name}')
    for link in entity.links:
        here = f'{where} link {link.name!r}'
        checker.walk(link, here)
        if link.inertial.mass < 0:
            raise SceneLoadError(f'{here} has mass {link.inertial.mass:g} kg; masses must not '
                                 'be negative', checker.file)
        _check_inertia(link.inertial.inertia, here, checker.file)
    _check_tree(entity, where, checker.file)
    for joint in entity.joints:
        checker.walk(joint, f'{where} joint {joint.name!r}')
    for sensor in entity.sensors:
        checker.walk(sensor, f'{where} sensor {sensor.name!r}', allow_inf=True)
        _check_image_size(sensor, f'{where} sensor {sensor.name!r}', checker.file)


def _check_image_size(sensor: Any, where: str, file: Path | str | None) -> None:
    """An image sensor has at least one pixel a side and at most ``max_image_pixels``."""
    width, height = getattr(sensor, 'width', None), getattr(sensor, 'height', None)
    if width is None or height is None:
        return
    if width < 1 or height < 1:
        raise SceneLoadError(f'{where} is {width}x{height} pixels; an image needs at least '
                             'one pixel a side', file)
    if width * height > limits.current().max_image_pixels:
        raise limits.exceeded('max_image_pixels', f'{where} is {width}x{height} pixels', file)


def _check_tree(entity: Entity, where: str, file: Path | str | None) -> None:
    """Joints connect known links, and each link but the root has exactly one parent."""
    if not entity.links:
        raise SceneLoadError(f'{where} has no links', file)
    names = {link.name for link in entity.links}
    parents: dict[str, str] = {}
    for joint in entity.joints:
        for end in (joint.parent, joint.child):
            if end not in names:
                raise SceneLoadError(f'{where} joint {joint.name!r} names an unknown link '
                                     f'{end!r}', file)
        if joint.child in parents or joint.child == entity.links[0].name:
            raise SceneLoadError(f'{where} link {joint.child!r} has more than one parent '
                                 f'(joints {parents.get(joint.child)!r} and {joint.name!r})',
                                 file)
        parents[joint.child] = joint.name
        length = math.sqrt(sum(a * a for a in joint.axis))
        if joint.movable and not abs(length - 1.0) < 1e-6:
            raise SceneLoadError(f'{where} joint {joint.name!r} has axis {joint.axis}, not a unit '
                                 'vector (zero or too large to normalise in the file)', file)


def _check_inertia(inertia: tuple[float, ...], where: str, file: Path | str | None) -> None:
    """Principal moments must be non-negative and obey the triangle inequality (each at most
    the sum of the others, 1 % slack for rounded files): PyBullet stalls on a body whose
    inertia no mass distribution has (one moment 1e10 times the others)."""
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    moments = sorted(np.linalg.eigvalsh(np.array([[ixx, ixy, ixz], [ixy, iyy, iyz],
                                                  [ixz, iyz, izz]])))
    scale = max(abs(m) for m in moments)
    if moments[0] < -1e-9 * scale:
        raise SceneLoadError(f'{where} has a negative principal moment of inertia '
                             f'({moments[0]:g} kg m^2)', file)
    if moments[2] > 1.01 * (moments[0] + moments[1]) + 1e-12 * scale:
        raise SceneLoadError(f'{where} has an impossible inertia: principal moments '
                             f'{moments[0]:g}, {moments[1]:g}, {moments[2]:g} kg m^2 (the '
                             'largest must not exceed the sum of the others)', file)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


class _Checker:
    def __init__(self, settings: limits.Limits, file: Path | str | None):
        self.settings = settings
        self.file = file

    def walk(self, value: Any, what: str, allow_inf: bool = False) -> None:
        kind = type(value)
        if kind is float:  # the common case first: a whole scene is walked number by number
            if not -self.settings.max_magnitude <= value <= self.settings.max_magnitude:
                self.number(value, what, allow_inf)  # NaN, inf or too large
            return
        if kind is tuple:
            for item in value:
                self.walk(item, what, allow_inf)
            return
        if isinstance(value, (bool, int)) or value is None or isinstance(value, (str, Path)):
            return  # integers are counts, indices and bit masks
        if isinstance(value, float):
            self.number(value, what, allow_inf)
        elif isinstance(value, Mesh):
            limits.check_triangles(len(value.triangles), what, self.file)
            self.array(value.vertices, f'{what} vertices')
        elif isinstance(value, Heightfield):
            self.array(value.heights, f'{what} heights')
            self.walk((value.size_x, value.size_y), what)
        elif isinstance(value, np.ndarray):
            self.array(value, what)
        elif isinstance(value, Pose):
            self.walk(value.position, f'{what} position')
            self.walk(value.orientation, f'{what} orientation')
            if not sum(q * q for q in value.orientation) > 1e-12:
                raise SceneLoadError(f'{what} orientation {value.orientation} is not a rotation '
                                     '(a zero quaternion)', self.file)
        elif dataclasses.is_dataclass(value):
            for name in _field_names(kind):
                self.walk(getattr(value, name), f'{what} {name}', allow_inf)
        elif isinstance(value, (tuple, list)):
            for item in value:
                self.walk(item, what, allow_inf)

    def number(self, value: float, what: str, allow_inf: bool) -> None:
        if math.isnan(value) or (math.isinf(value) and not allow_inf):
            raise SceneLoadError(f'{what} is {value}, not a finite number', self.file)
        if math.isfinite(value) and abs(value) > self.settings.max_magnitude:
            raise limits.exceeded('max_magnitude', f'{what} is {value:g}', self.file)

    def array(self, values: np.ndarray, what: str) -> None:
        if values.size == 0 or values.dtype.kind != 'f':
            return
        if not np.isfinite(values).all():
            raise SceneLoadError(f'{what} has a non-finite number', self.file)
        if float(np.abs(values).max()) > self.settings.max_magnitude:
            raise limits.exceeded('max_magnitude', f'{what} has {float(np.abs(values).max()):g}',
                                  self.file)
