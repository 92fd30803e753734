"""Explosion guard: a body faster than :data:`MAX_SPEED` or a non-finite state is reported once
per entity, naming the link and the joint that moves it; never silent NaN poses.

:meth:`ExplosionGuard.check` runs after physics steps (every :data:`CHECK_PERIOD` of simulated
time, and at least every step while something is wrong): for each moving entity one batched
PyBullet query of its base and link states. A finding goes to ``Simulation.warnings`` (once per
entity), to the ``scene_sim_ros`` logger and to :attr:`ExplosionGuard.reports`; poses read
afterwards that are not finite raise :class:`~scene_sim_ros.errors.SimulationError` with the
report (see :meth:`ExplosionGuard.require_finite`).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

import pybullet as pb

from ..errors import SimulationError

if TYPE_CHECKING:
    from .built_entity import BuiltEntity

MAX_SPEED = 50.0  # m/s, any link's centre of mass
CHECK_PERIOD = 0.05  # s of simulated time between checks
LOG = logging.getLogger('scene_sim_ros')


def _finite(values: Any) -> bool:
    return all(math.isfinite(v) for v in values)


class ExplosionGuard:
    """Watches the entities of one simulation (``sim``: a :class:`Simulation`)."""

    def __init__(self, sim: Any):
        self.sim = sim
        self.reports: dict[str, str] = {}  # entity -> its one report
        self.period = max(1, round(CHECK_PERIOD / sim.step_length))

    def reset(self) -> None:
        self.reports.clear()

    def check(self, steps: int) -> None:
        """Check the entities if ``steps`` (steps since loading) is due."""
        if steps % self.period:
            return
        for name, built in list(self.sim._entities.items()):
            if (built.fixed and not built.joint_indices) or name in self.reports:
                continue
            finding = self._inspect(built)
            if finding is not None:
                self._report(name, finding)

    def _inspect(self, built: BuiltEntity) -> str | None:
        client = self.sim.client
        position, orientation = pb.getBasePositionAndOrientation(built.body,
                                                                 physicsClientId=client)
        linear, angular = pb.getBaseVelocity(built.body, physicsClientId=client)
        worst_link, worst_speed = -1, (0.0 if built.fixed else math.hypot(*linear))
        bad_state: int | None = None
        if not _finite((*position, *orientation, *linear, *angular)):
            bad_state = -1
        links = sorted(i for i in built.link_names if i >= 0)
        for body in built.bodies:  # one, or the parts of a large entity
            mine = [i for i in links if built.locate(i)[0] == body]
            if not mine:
                continue
            states = pb.getLinkStates(body, [built.locate(i)[1] for i in mine],
                                      computeLinkVelocity=1, physicsClientId=client)
            for index, state in zip(mine, states):
                if bad_state is None and not _finite((*state[0], *state[1], *state[6])):
                    bad_state = index
                speed = math.hypot(*state[6])
                if math.isfinite(speed) and speed > worst_speed:
                    worst_link, worst_speed = index, speed
        time = f't = {self.sim.time:.3f} s'
        if bad_state is not None:
            return f'non-finite (NaN) state at {self._where(built, bad_state)}, {time}'
        if worst_speed > MAX_SPEED:
            return (f'{self._where(built, worst_link)} moves at {worst_speed:.3g} m/s '
                    f'(> {MAX_SPEED:g} m/s), {time}')
        return None

    @staticmethod
    def _where(built: BuiltEntity, index: int) -> str:
        link = built.model_link_name(index) or built.link_names.get(index, '?')
        if index < 0:
            return f'link {link!r} (the root)'
        joint = next((j.name for j in built.entity.joints if j.child == link), None)
        return f'link {link!r}' + (f' (joint {joint!r})' if joint else '')

    def _report(self, entity: str, finding: str) -> None:
        message = f'entity {entity!r} exploded: {finding}; the physics is unstable there ' \
                  '(a smaller step length or softer gains may help)'
        self.reports[entity] = message
        if message not in self.sim.warnings:
            self.sim.warnings.append(message)
        LOG.error(message)

    def require_finite(self, entity: str, values: Any) -> None:
        """Raise SimulationError (with the report) if ``values`` of ``entity`` are not finite."""
        if _finite(values):
            return
        built = self.sim._entities.get(entity)
        if entity not in self.reports and built is not None:
            self._report(entity, self._inspect(built) or f'non-finite state, t = '
                         f'{self.sim.time:.3f} s')
        raise SimulationError(self.reports.get(entity, f'entity {entity!r}: non-finite state'))
