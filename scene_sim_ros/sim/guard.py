"""Explosion guard rules: a body faster than :data:`MAX_SPEED` or a non-finite state is
reported once per entity, naming the link and the joint that moves it; never silent NaN poses.

An engine reads its bodies (:meth:`ExplosionGuard.samples`, one batched query per moving
entity); the rules here judge them. :meth:`ExplosionGuard.check` runs after steps (every
:data:`CHECK_PERIOD` of simulated time). A finding goes to the simulation's ``warnings`` (once
per entity), to the ``scene_sim_ros`` logger and to :attr:`ExplosionGuard.reports`; poses read
afterwards that are not finite raise :class:`~scene_sim_ros.errors.SimulationError` with the
report (see :meth:`ExplosionGuard.require_finite`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Entity

MAX_SPEED = 50.0  # m/s, any link's centre of mass
CHECK_PERIOD = 0.05  # s of simulated time between checks
LOG = logging.getLogger('scene_sim_ros')

Built = TypeVar('Built')


def finite(values: Iterable[float]) -> bool:
    """Whether all ``values`` are finite: their sum is where they are (the exact test only
    where it is not: an overflow); every link pose read is checked."""
    values = tuple(values)
    return math.isfinite(sum(values)) or all(math.isfinite(v) for v in values)


MotionSample = tuple[int, tuple[float, ...], float]
"""One link of an entity as the engine reads it: (the entity's link index, -1 the root; its pose
and velocities, all of which must be finite; the speed of its centre of mass in m/s, 0 for a
fixed root). A plain tuple: a check of a 14-robot game makes hundreds."""


def finding(samples: Iterable[MotionSample], where: Callable[[int], str],
            time: float) -> str | None:
    """What is wrong with an entity whose links read ``samples`` (in the engine's order), or
    None: the first non-finite state, else the fastest link over :data:`MAX_SPEED`."""
    bad: int | None = None
    worst_link, worst_speed = -1, 0.0
    isfinite = math.isfinite
    for link, state, speed in samples:
        # a sum is finite where all terms are (the exact test only where it is not: overflow)
        if bad is None and not isfinite(sum(state)) and not all(isfinite(v) for v in state):
            bad = link
        if isfinite(speed) and speed > worst_speed:
            worst_link, worst_speed = link, speed
    at = f't = {time:.3f} s'
    if bad is not None:
        return f'non-finite (NaN) state at {where(bad)}, {at}'
    if worst_speed > MAX_SPEED:
        return f'{where(worst_link)} moves at {worst_speed:.3g} m/s (> {MAX_SPEED:g} m/s), {at}'
    return None


def link_and_joint(entity: Entity, link: str, root: bool) -> str:
    """How a report names a link: ``link 'x' (the root)`` or ``link 'x' (joint 'j')``, the
    joint that moves it."""
    if root:
        return f'link {link!r} (the root)'
    joint = next((j.name for j in entity.joints if j.child == link), None)
    return f'link {link!r}' + (f' (joint {joint!r})' if joint else '')


class ExplosionGuard(Generic[Built]):
    """Watches the entities of one simulation. An engine subclass says which entities move
    (:meth:`moving`), reads them (:meth:`samples`), names their links (:meth:`where`) and finds
    them by name (:meth:`lookup`)."""

    def __init__(self, step_length: float, warnings: list[str], now: Callable[[], float]):
        self.reports: dict[str, str] = {}  # entity -> its one report
        self.period = max(1, round(CHECK_PERIOD / step_length))
        self._warnings = warnings
        self._now = now

    def moving(self) -> Iterable[tuple[str, Built]]:  # pragma: no cover - engine's part
        raise NotImplementedError

    def samples(self, built: Built) -> Iterable[MotionSample]:  # pragma: no cover
        raise NotImplementedError

    def where(self, built: Built, link: int) -> str:  # pragma: no cover
        raise NotImplementedError

    def lookup(self, entity: str) -> Built | None:  # pragma: no cover
        raise NotImplementedError

    def reset(self) -> None:
        self.reports.clear()

    def check(self, steps: int) -> None:
        """Check the entities if ``steps`` (steps since loading) is due."""
        if steps % self.period:
            return
        for name, built in list(self.moving()):
            if name in self.reports:
                continue
            found = self._inspect(built)
            if found is not None:
                self._report(name, found)

    def _inspect(self, built: Built) -> str | None:
        return finding(self.samples(built), lambda link: self.where(built, link), self._now())

    def _report(self, entity: str, found: str) -> None:
        message = f'entity {entity!r} exploded: {found}; the physics is unstable there ' \
                  '(a smaller step length or softer gains may help)'
        self.reports[entity] = message
        if message not in self._warnings:
            self._warnings.append(message)
        LOG.error(message)

    def require_finite(self, entity: str, values: Any) -> None:
        """Raise SimulationError (with the report) if ``values`` of ``entity`` are not finite."""
        if finite(values):
            return
        built = self.lookup(entity)
        if entity not in self.reports and built is not None:
            self._report(entity, self._inspect(built) or f'non-finite state, t = '
                         f'{self._now():.3f} s')
        raise SimulationError(self.reports.get(entity, f'entity {entity!r}: non-finite state'))
