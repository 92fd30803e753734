"""Which bodies of a MuJoCo world collide: SimRobot Core3's collision groups as geom bits, and
what bits cannot say as excluded body pairs (:class:`CollisionFilters`).

MuJoCo collides two geoms when ``(contype1 & conaffinity2) || (contype2 & conaffinity1)``, never
two geoms of bodies welded together (the static world is welded to the world body) and never a
body and its parent (``filterparent``); an ``<exclude>`` pair of bodies never collides.

- **Core3** (SimRobotCore3 Body.cpp, Geometry.cpp): static bodies are group 0; every movable
  root body takes the next group (``nextCollisionGroup++``), or group 1 for all where
  ``bodyCollisions`` is off; a geom's ``contype = 1 << group``, ``conaffinity = ~contype``, so a
  robot's links never touch each other. Core3 asserts ``group < 32``; here groups 1..30 go to
  movable entities of more than one body, in scene order. A one-body entity cannot touch itself
  and needs no group: it collides with everything (all bits). Beyond the 30th group an entity
  collides with everything too, and its own body pairs are excluded: the same rule without a
  group. ``self_collision`` lets an entity's links touch (``conaffinity`` all bits), its
  ``disabled_collisions`` excluded.
- **Explicit group and mask** (RaiSim: "collision logic is an AND operation; both mask and
  group pairs must be compatible", raisim2Lib docs/sections/WorldConfigurationFile.rst; group 1
  and mask -1 where absent, also for entities without them): MuJoCo's bits combine with OR, so
  such an entity collides with everything by its bits and every pair of entities whose AND
  fails is excluded body by body; its own body pairs are excluded unless ``self_collision``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from scene_sim_ros.scene import Entity

ALL_BITS = -1  # contype/conaffinity: every bit
MAX_GROUP = 30  # Core3 groups 1..30 (contype is a signed 32-bit int; bit 0 is the static world)
DEFAULT_GROUP, DEFAULT_MASK = 1, -1  # RaiSim's defaults


@dataclass(frozen=True)
class Bits:
    """An entity's geom bits, and whether its own body pairs need excluding."""

    contype: int
    conaffinity: int
    exclude_own: bool


@dataclass(frozen=True)
class _Rule:
    """What the filters keep of a built entity: its AND rule and bodies."""

    group: int
    mask: int
    explicit: bool
    static: bool
    bodies: tuple[str, ...]


class CollisionFilters:
    """The collision rules of one MjSpec's entities, as they are added and removed."""

    def __init__(self, spec: mujoco.MjSpec, body_collisions: bool):
        self.spec = spec
        self.body_collisions = body_collisions
        self._next_group = 1
        self._rules: dict[str, _Rule] = {}
        self._excludes: dict[tuple[str, str], frozenset[str]] = {}  # body pair -> entities

    def bits(self, entity: Entity, static: bool, bodies: int) -> Bits:
        """The geom bits of ``entity`` (``bodies`` MuJoCo bodies; ``static``: welded to the
        world and not kinematic)."""
        if entity.collision_group is not None or entity.collision_mask is not None:
            return Bits(ALL_BITS, ALL_BITS, not entity.self_collision)
        if static:
            group = 0
        elif not self.body_collisions:
            group = 1
        elif bodies == 1:
            return Bits(ALL_BITS, ALL_BITS, False)
        elif self._next_group <= MAX_GROUP:
            group = self._next_group
            self._next_group += 1
        else:
            return Bits(ALL_BITS, ALL_BITS, not entity.self_collision)
        contype = 1 << group
        return Bits(contype, ALL_BITS if entity.self_collision else ~contype, False)

    def exclude(self, entity: Entity, static: bool, bits: Bits, names: dict[str, str],
                parent: dict[str, str]) -> None:
        """Add the excluded pairs of ``entity``, built with ``bits`` (``names``: model link ->
        MuJoCo body; ``parent``: model link -> its parent link)."""
        bodies = list(names.values())
        if bits.exclude_own:
            self._exclude_own(entity, bodies, names, parent)
        elif entity.self_collision:
            for a, b in entity.disabled_collisions:
                if a in names and b in names:
                    self._add(frozenset({entity.name}), names[a], names[b])
        explicit = entity.collision_group is not None or entity.collision_mask is not None
        rule = _Rule(DEFAULT_GROUP if entity.collision_group is None else entity.collision_group,
                     DEFAULT_MASK if entity.collision_mask is None else entity.collision_mask,
                     explicit, static, tuple(bodies))
        for name, other in self._rules.items():
            if (explicit or other.explicit) and not (static and other.static) \
                    and not _and_rule(rule, other):
                for a in rule.bodies:
                    for b in other.bodies:
                        self._add(frozenset({entity.name, name}), a, b)
        self._rules[entity.name] = rule

    def _exclude_own(self, entity: Entity, bodies: Sequence[str], names: dict[str, str],
                     parent: dict[str, str]) -> None:
        adjacent = {frozenset({names[child], names[up]}) for child, up in parent.items()
                    if child in names and up in names}
        owner = frozenset({entity.name})
        for i, a in enumerate(bodies):
            for b in bodies[i + 1:]:
                if frozenset({a, b}) not in adjacent:  # MuJoCo's filterparent has those
                    self._add(owner, a, b)

    def _add(self, owners: frozenset[str], a: str, b: str) -> None:
        self.spec.add_exclude(bodyname1=a, bodyname2=b)
        self._excludes[(a, b)] = owners

    def remove(self, name: str) -> None:
        """Forget entity ``name`` and delete every excluded pair it is part of."""
        self._rules.pop(name, None)
        gone = {pair for pair, owners in self._excludes.items() if name in owners}
        # the spec's own list: a Python handle kept across recompiles is not safe to delete
        for exclude in list(self.spec.excludes):
            if (exclude.bodyname1, exclude.bodyname2) in gone:
                self.spec.delete(exclude)
        for pair in gone:
            del self._excludes[pair]


def _and_rule(a: _Rule, b: _Rule) -> bool:
    return bool(a.group & b.mask) and bool(b.group & a.mask)
