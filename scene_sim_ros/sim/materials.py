"""Contact parameters per link, fitted to the scene's per-material-pair values.

Scene formats (SimRobot ``Material``/``Friction``, Webots ``ContactProperties``) give friction per
*pair* of materials; PyBullet has one coefficient per link and combines two links' values
(Bullet's ``btManifoldResult``):

- friction and restitution: the product ``f_a * f_b``;
- rolling friction: ``r_a * f_b + r_b * f_a``.

The approximation: every material gets one coefficient, fitted by least squares so that the
combined values match the scene's pair table. Friction and restitution are fitted in log space
(``log f_a + log f_b = log f_ab``), rolling friction linearly once friction is known. A weak prior
(weight :data:`PRIOR_WEIGHT`) pulls each material towards the value that reproduces
``Scene.contact_defaults`` against itself: materials in no pair (and links without a material,
the material '') keep the defaults. Pairs between a material of a movable entity and one of a
fixed entity (what touches the floor) are fitted as firmly as the table, with the default where
the table has no entry: a ball whose pair with the carpet says 0.3 next to robots whose feet have
no pair with it (default 1.0) gives ball 0.3, carpet 1.0, feet 1.0 exactly. Other unlisted pairs
get whatever the product gives (the ball against a foot: 0.3, not 1.0), the price of per-link
coefficients.
A link's material is that of its first collision shape that names one.

Rolling friction: the scene gives a deceleration (m/s^2) of a rolling body (SimRobot subtracts
``rollingFriction * stepLength`` from the velocity of a sphere, capsule or cylinder per contact
step). Bullet's rolling friction limits the relative angular velocity with a torque of
``mu_r * N``; for a solid ball of radius r rolling without slipping on a level floor that torque
decelerates it at ``a = mu_r * g / ((1 + I / (m r^2)) r)`` (``m a = -F``,
``I a / r = F r - mu_r m g``), with the body's own inertia I (a solid ball, ``I = 0.4 m r^2``:
``a = mu_r g / (1.4 r)``; measured in PyBullet: mu_r 0.001 and 0.00357 at r 0.05 m give 0.140 and
0.500 m/s^2, as predicted). The fit works on decelerations, with materials only static entities
use held at 0 (the floor does not roll: the pair's value goes to the rolling body), and
:func:`rolling_coefficient` turns a link's fitted value into Bullet's ``mu_r`` with the radius
of its first round collision shape; links without one get 0, as in SimRobot.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from scene_sim_ros.scene import Capsule, Cylinder, Link, Scene, Sphere
from scene_sim_ros.scene.transforms import quat_rotate

DEFAULT_MATERIAL = ''
SOLID_BALL_ROLLING_FACTOR = 1.4  # 1 + I / (m r^2) of a solid sphere
ROUND_SHAPES = (Sphere, Capsule, Cylinder)
MIN_COEFFICIENT = 1e-6
PRIOR_WEIGHT = 0.01  # pull of a material towards the default, against the pair table


@dataclass(frozen=True, slots=True)
class LinkContact:
    """What ``changeDynamics`` receives for one link."""

    friction: float
    rolling_friction: float  # a deceleration in m/s^2 (see rolling_coefficient)
    restitution: float


def rolling_coefficient(link: Link, deceleration: float, gravity: float) -> float:
    """Bullet's rolling friction coefficient of ``link`` for a fitted ``deceleration`` (m/s^2):
    ``(1 + I / (m r^2)) r a / g`` with the radius r of its first round collision shape and the
    link's own moment of inertia I about the rolling axis (:func:`rolling_factor`), 0 without
    a round shape."""
    if deceleration <= 0.0 or gravity <= 0.0:
        return 0.0
    for collision in link.collisions:
        if isinstance(collision.shape, ROUND_SHAPES):
            radius = collision.shape.radius
            return rolling_factor(link, collision) * radius * deceleration / gravity
    return 0.0


def rolling_factor(link: Link, collision: Any) -> float:
    """``1 + I / (m r^2)`` of ``link`` rolling on ``collision`` (a sphere: I the mean principal
    moment; a cylinder or capsule: the moment about its axis). A solid ball gives 1.4, B-Human's
    ball (0.045 kg, inertia of a 5 mm sphere, 50 mm radius) 1.004. Without mass or inertia:
    :data:`SOLID_BALL_ROLLING_FACTOR`."""
    mass = link.inertial.mass
    radius = collision.shape.radius
    xx, xy, xz, yy, yz, zz = link.inertial.inertia
    if mass <= 0.0 or radius <= 0.0 or max(xx, yy, zz) <= 0.0:
        return SOLID_BALL_ROLLING_FACTOR
    if isinstance(collision.shape, Sphere):
        moment = (xx + yy + zz) / 3.0
    else:
        axis = np.array(quat_rotate(collision.pose.orientation, (0.0, 0.0, 1.0)))
        tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        moment = float(axis @ tensor @ axis)
    return 1.0 + moment / (mass * radius * radius)


def link_material(link: Link) -> str:
    """The material name of ``link`` (its first named collision material), '' when none."""
    for collision in link.collisions:
        if collision.material:
            return collision.material
    return DEFAULT_MATERIAL


def fit_materials(scene: Scene,
                  extra_materials: AbstractSet[str] = frozenset()) -> dict[str, LinkContact]:
    """Per-material coefficients for every material used by a link of ``scene`` (and
    ``extra_materials``) plus the default material ''."""
    used = {DEFAULT_MATERIAL, *extra_materials}
    static: set[str] = set()
    movable: set[str] = set()
    for entity in scene.entities:
        materials = {link_material(link) for link in entity.links}
        used.update(materials)
        (static if entity.fixed_base or entity.kind == 'static' else movable).update(materials)
    # contacts of movable things with the static world (feet, wheels, balls on a floor) matter
    # most: an unlisted such pair is fitted to the default as firmly as the listed pairs
    touching = {frozenset((a, b)) for a in movable for b in static}
    names = sorted(used)
    defaults = scene.contact_defaults
    table = {}
    for pair in scene.material_pairs:
        table[frozenset((pair.material_a, pair.material_b))] = pair

    def pair_value(a: str, b: str, attribute: str, default: float) -> float:
        pair = table.get(frozenset((a, b)))
        value = getattr(pair, attribute) if pair is not None else None
        return default if value is None else value

    def pairs(attribute: str) -> list[tuple[str, str, float]]:
        out = []
        for key in sorted(set(table) | touching, key=sorted):
            a, b = sorted(key) if len(key) == 2 else (next(iter(key)),) * 2
            pair = table.get(key)
            value = getattr(pair, attribute) if pair is not None else None
            if value is None:
                if key not in touching:
                    continue
                value = getattr(defaults, attribute)
            if a in used and b in used:
                out.append((a, b, value))
        return out

    friction = _fit_product(names, pairs('friction'), defaults.friction)
    restitution = _fit_product(names, pairs('restitution'), defaults.restitution)
    rolling = _fit_rolling(names, pairs('rolling_friction'), friction, defaults.rolling_friction,
                           static - movable)
    return {name: LinkContact(friction[name], rolling[name], restitution[name]) for name in names}


def _fit_product(names: list[str], pairs: list[tuple[str, str, float]],
                 default: float) -> dict[str, float]:
    """Coefficients c with c_a * c_b ~ value_ab (least squares on logarithms), each material
    weakly pulled towards sqrt(default) so that materials without pairs keep the default."""
    if default <= 0.0 and all(v <= 0.0 for *_, v in pairs):
        return {name: 0.0 for name in names}
    index = {name: i for i, name in enumerate(names)}
    rows, targets = [], []
    for a, b, value in pairs:
        row = np.zeros(len(names))
        row[index[a]] += 1.0
        row[index[b]] += 1.0
        rows.append(row)
        targets.append(math.log(max(value, MIN_COEFFICIENT)))
    for name in names:
        row = np.zeros(len(names))
        row[index[name]] = 2.0 * PRIOR_WEIGHT
        rows.append(row)
        targets.append(PRIOR_WEIGHT * math.log(max(default, MIN_COEFFICIENT)))
    solution, *_ = np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)
    out = {}
    for name in names:
        value = math.exp(solution[index[name]])
        out[name] = 0.0 if value <= 10 * MIN_COEFFICIENT else value
    return out


def _fit_rolling(names: list[str], pairs: list[tuple[str, str, float]],
                 friction: dict[str, float], default: float,
                 not_rolling: AbstractSet[str] = frozenset()) -> dict[str, float]:
    """Rolling coefficients r with r_a * f_b + r_b * f_a ~ value_ab (least squares, >= 0),
    each material weakly pulled towards giving ``default`` against itself; materials in
    ``not_rolling`` are 0."""
    if default <= 0.0 and all(v <= 0.0 for *_, v in pairs):
        return {name: 0.0 for name in names}
    index = {name: i for i, name in enumerate(names)}
    rows, targets = [], []
    for a, b, value in pairs:
        row = np.zeros(len(names))
        if a not in not_rolling:
            row[index[a]] += friction[b]
        if b not in not_rolling:
            row[index[b]] += friction[a]
        rows.append(row)
        targets.append(value)
    for name in names:
        row = np.zeros(len(names))
        row[index[name]] = 2.0 * friction[name] * PRIOR_WEIGHT
        rows.append(row)
        targets.append(PRIOR_WEIGHT * default)
    solution, *_ = np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)
    return {name: 0.0 if name in not_rolling else max(0.0, float(solution[index[name]]))
            for name in names}
