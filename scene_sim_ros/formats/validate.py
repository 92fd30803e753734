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

from scene_sim_ros import limits

from ..errors import SceneLoadError
from ..scene import Entity, Scene
from ..scene.geometry import Heightfield, Mesh
from ..scene.transforms import Pose

_SKIPPED = frozenset({'metadata', 'warnings'})


def validate(scene: Scene, strict: bool = False) -> Scene:
    """Return ``scene`` (its repairs made, each with a warning), or raise at its first number
    out of contract. ``strict``: a repair is an error instead."""
    file = scene.source
    limits.check_time_step(_number(scene.step_length, 'time step', file), 'time step', file)
    scene = _balance_inertias(scene, strict)
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


def principal_moments(inertia: tuple[float, ...]) -> list[float]:
    """The principal moments of an ``(ixx, ixy, ixz, iyy, iyz, izz)`` inertia, ascending."""
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    return sorted(float(m) for m in np.linalg.eigvalsh(
        np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])))


def breaks_triangle_inequality(moments: list[float]) -> bool:
    """The largest moment exceeds the sum of the others (1 % slack for rounded files): no mass
    distribution has such an inertia, and PyBullet stalls for minutes on one whose largest
    moment is 1e10 times the others."""
    scale = max(abs(m) for m in moments)
    return moments[2] > 1.01 * (moments[0] + moments[1]) + 1e-12 * scale


def _check_inertia(inertia: tuple[float, ...], where: str, file: Path | str | None) -> None:
    """Principal moments must be non-negative: ODE's dMassCheck refuses an inertia that is not
    positive definite (Webots then reports the body's mass as invalid)."""
    moments = principal_moments(inertia)
    scale = max(abs(m) for m in moments)
    if moments[0] < -1e-9 * scale:
        raise SceneLoadError(f'{where} has a negative principal moment of inertia '
                             f'({moments[0]:g} kg m^2); ODE (Webots) refuses an inertia that is '
                             'not positive definite', file)


def _balance_inertias(scene: Scene, strict: bool) -> Scene:
    """Inertias breaking the triangle inequality set to the mean of their principal moments
    (MuJoCo's ``balanceinertia``: "silently set all three diagonal elements to their average
    value"), one warning per link; with ``strict`` the first is an error."""
    warnings: list[str] = []
    entities = []
    for entity in scene.entities:
        links, changed = [], False
        for link in entity.links:
            repaired = _balanced(link, entity, scene, strict)
            if repaired is not None:
                link, warning = repaired
                warnings.append(warning)
                changed = True
            links.append(link)
        entities.append(dataclasses.replace(entity, links=tuple(links)) if changed else entity)
    if not warnings:
        return scene
    return dataclasses.replace(scene, entities=tuple(entities),
                               warnings=(*scene.warnings, *warnings))


def _balanced(link: Any, entity: Entity, scene: Scene, strict: bool) -> tuple[Any, str] | None:
    inertia = link.inertial.inertia
    if not all(math.isfinite(v) for v in inertia) or not any(inertia):
        return None   # the number checks report it; a zero inertia is a point mass
    moments = principal_moments(inertia)
    scale = max(abs(m) for m in moments)
    if moments[0] < -1e-9 * scale or not breaks_triangle_inequality(moments):
        return None
    file = entity.source or scene.source
    where = located(file, link.name)
    shown = ', '.join(f'{m:g}' for m in moments)
    if strict:
        raise SceneLoadError(f'link {link.name!r} of {entity.name!r}: principal moments of '
                             f'inertia {shown} kg m^2 break the triangle inequality (the largest '
                             'exceeds the sum of the others; strict)', *where)
    mean = sum(moments) / 3.0
    inertial = dataclasses.replace(link.inertial, inertia=(mean, 0.0, 0.0, mean, 0.0, mean))
    location = f'{where[0]}:{where[1]}: ' if where[1] else f'{where[0]}: ' if where[0] else ''
    return (dataclasses.replace(link, inertial=inertial),
            f'{location}link {link.name!r} of {entity.name!r}: principal moments of inertia '
            f'{shown} kg m^2 break the triangle inequality; set to their mean {mean:g} as '
            "MuJoCo's balanceinertia does (RaiSim, ODE and Bullet load it as it is; --strict "
            'refuses it)')


def located(file: str | Path | None, name: str) -> tuple[str | Path | None, int | None]:
    """(file, line) of the first line of ``file`` naming ``name``: a ``name`` attribute or
    Webots field first, else any quoted mention; the line is None where none does."""
    if file is None:
        return None, None
    try:
        text = Path(file).read_text(encoding='utf-8', errors='replace')
    except OSError:
        return file, None
    for quoted in (f'name="{name}"', f"name='{name}'", f'name "{name}"', f'"{name}"', f"'{name}'"):
        at = text.find(quoted)
        if at >= 0:
            return file, text.count('\n', 0, at) + 1
    return file, None


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
