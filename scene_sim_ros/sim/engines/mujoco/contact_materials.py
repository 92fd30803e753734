"""The scene's per-material-pair contact table as MuJoCo's per-geom parameters.

MuJoCo gives each geom a friction and a ``priority``; a contact takes the friction of the geom
of higher priority, and the larger of the two at equal priority (SimRobot Core3 gives every geom
with a material priority 1). One number per material cannot reproduce every table, so
:func:`material_frictions` chooses: a material whose listed pairs all have one value may take
priority 1 with that value (it then decides all its contacts: a robot body that slides on
everything, a ball of friction 0.3 on the carpet), the others keep priority 0 with the smallest
value of their remaining pairs (the maximum rule lets a listed pair's smaller value win), else
the scene's default. Of the choices of priority-1 materials the one that reproduces the most
contacts wins: the listed pairs first, then the unlisted ones things are likely to make
(movable against static and movable against movable), which should get the scene's default.
A listed pair the result cannot give within 1 % is named in a warning.

Rolling friction (a deceleration) is not a MuJoCo friction here but a torque the engine applies
itself (:mod:`.rolling`); :func:`material_rolling` gives each material its value.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from scene_sim_ros.scene import Scene
from scene_sim_ros.sim.materials import link_material

MAX_SEARCHED = 8  # candidates for priority 1 tried in every combination (the first 8 only)
LISTED_WEIGHT = 1000  # a listed pair missed counts as much as this many unlisted ones


@dataclass(frozen=True)
class GeomFriction:
    """What a geom of one material gets: MuJoCo's sliding friction and priority."""

    friction: float
    priority: int


def material_frictions(scene: Scene, warnings: list[str]) -> dict[str, GeomFriction]:
    """Friction and priority per material of ``scene`` (materials of its links and pairs)."""
    static, movable = _materials_by_mobility(scene)
    listed = {frozenset((p.material_a, p.material_b)): p.friction for p in scene.material_pairs
              if p.friction is not None}
    names = sorted(static | movable | {m for pair in listed for m in pair})
    default = scene.contact_defaults.friction
    wanted = {frozenset((a, b)): default for a in movable for b in static | movable}
    wanted.update(listed)
    searched = [name for name in names if len(_values(listed, name)) == 1][:MAX_SEARCHED]
    best: tuple[int, int] | None = None
    chosen: dict[str, GeomFriction] = {}
    for size in range(len(searched) + 1):
        for subset in itertools.combinations(searched, size):
            first = set(subset)
            assignment = _assign(names, listed, first, default)
            score = (_misses(assignment, wanted, listed), len(first))
            if best is None or score < best:
                best, chosen = score, assignment
    for pair, value in sorted(listed.items(), key=lambda kv: sorted(kv[0])):
        got = contact_friction(chosen, *_pair_names(pair))
        if abs(got - value) > 0.01 * max(value, 1e-9):
            a, b = _pair_names(pair)
            warnings.append(f'material pair {a!r}/{b!r}: friction {value:g} becomes {got:g} in '
                            "the mujoco engine (MuJoCo's per-geom friction cannot give every "
                            "pair of the scene's table)")
    return chosen


def contact_friction(table: dict[str, GeomFriction], a: str, b: str) -> float:
    """The friction MuJoCo gives a contact of materials ``a`` and ``b``."""
    first = table.get(a, GeomFriction(1.0, 0))
    second = table.get(b, GeomFriction(1.0, 0))
    if first.priority != second.priority:
        return first.friction if first.priority > second.priority else second.friction
    return max(first.friction, second.friction)


def material_rolling(scene: Scene) -> dict[str, float]:
    """Per material a rolling deceleration (m/s^2): the smallest of the pairs the scene lists
    for it, else the scene's default; materials only static entities use get 0 (the floor
    does not roll: the pair's value goes to the rolling body)."""
    static, movable = _materials_by_mobility(scene)
    listed: dict[str, list[float]] = {}
    for pair in scene.material_pairs:
        if pair.rolling_friction is not None:
            listed.setdefault(pair.material_a, []).append(pair.rolling_friction)
            listed.setdefault(pair.material_b, []).append(pair.rolling_friction)
    default = scene.contact_defaults.rolling_friction
    return {name: min(listed.get(name, [default])) if name in movable else 0.0
            for name in static | movable}


def _materials_by_mobility(scene: Scene) -> tuple[set[str], set[str]]:
    static: set[str] = set()
    movable: set[str] = set()
    for entity in scene.entities:
        materials = {link_material(link) for link in entity.links}
        (static if entity.fixed_base or entity.kind == 'static' else movable).update(materials)
    return static, movable


def _values(listed: dict[frozenset[str], float], name: str) -> set[float]:
    return {value for pair, value in listed.items() if name in pair}


def _pair_names(pair: frozenset[str]) -> tuple[str, str]:
    names = sorted(pair)
    return names[0], names[-1]


def _assign(names: list[str], listed: dict[frozenset[str], float], first: set[str],
            default: float) -> dict[str, GeomFriction]:
    """Priority 1 and their one value for ``first``; the others the smallest value of their
    pairs among themselves, else ``default``."""
    out = {}
    for name in names:
        if name in first:
            (value,) = _values(listed, name)
            out[name] = GeomFriction(value, 1)
            continue
        among = [value for pair, value in listed.items()
                 if name in pair and not (pair - {name}) & first]
        out[name] = GeomFriction(min(among) if among else default, 0)
    return out


def _misses(table: dict[str, GeomFriction], wanted: dict[frozenset[str], float],
            listed: dict[frozenset[str], float]) -> int:
    """How badly ``table`` misses the ``wanted`` contacts (listed pairs weigh more)."""
    misses = 0
    for pair, value in wanted.items():
        got = contact_friction(table, *_pair_names(pair))
        if abs(got - value) > 0.01 * max(value, 1e-9):
            misses += LISTED_WEIGHT if pair in listed else 1
    return misses
