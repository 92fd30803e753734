"""The explosion guard's MuJoCo reads: one array check of the whole world per period, the
per-link rules (:mod:`scene_sim_ros.sim.guard`) only for an entity that fails it."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import mujoco
import numpy as np

from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.guard import MAX_SPEED, ExplosionGuard, MotionSample, link_and_joint


class World(Protocol):
    """What the guard reads of the simulation."""

    model: Any
    data: Any
    _entities: dict[str, MjEntity]
    _by_number: dict[int, MjEntity]
    _body_number: np.ndarray


class MujocoGuard(ExplosionGuard[MjEntity]):
    """Watches the entities of ``sim``."""

    def __init__(self, sim: World, step_length: float, warnings: list[str],
                 now: Callable[[], float]):
        super().__init__(step_length, warnings, now)
        self._sim = sim

    _bad_accelerations = 0

    def check(self, steps: int) -> None:
        self._check_mujoco_warnings()
        if steps % self.period:
            return
        data = self._sim.data
        # every body's centre-of-mass speed from cvel (about the subtree's centre of mass)
        speeds = self._speeds()
        if np.isfinite(data.qpos).all() and np.isfinite(data.qvel).all() and \
                not (speeds > MAX_SPEED).any():
            return
        super().check(steps)

    def _check_mujoco_warnings(self) -> None:
        """MuJoCo's own check: ``mj_step2`` counts a warning for a non-finite or huge
        acceleration (its reset of the whole state is off, see the builder's options), reported
        here at once, once per entity, naming the joint of the DOF MuJoCo names."""
        warning = self._sim.data.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)]
        if warning.number == self._bad_accelerations:
            return
        self._bad_accelerations = int(warning.number)
        model = self._sim.model
        dof = int(warning.lastinfo)
        body = int(model.dof_bodyid[dof]) if 0 <= dof < model.nv else 0
        built = self._sim._by_number.get(int(self._sim._body_number[body]))
        if built is None or built.name in self.reports:
            return
        link = int(np.flatnonzero(built.bodies == body)[0]) - 1
        self._report(built.name, f"non-finite (NaN) or huge acceleration (MuJoCo's check) at "
                     f'{self.where(built, link)}, t = {self._now():.3f} s')

    def _speeds(self) -> np.ndarray:
        model, data = self._sim.model, self._sim.data
        root_com = data.subtree_com[model.body_rootid]
        angular, linear = data.cvel[:, :3], data.cvel[:, 3:]
        return np.linalg.norm(linear + np.cross(angular, data.xipos - root_com), axis=1)

    def moving(self) -> Iterable[tuple[str, MjEntity]]:
        return [(name, built) for name, built in self._sim._entities.items()
                if not (built.fixed and not built.movable_joints)]

    def lookup(self, entity: str) -> MjEntity | None:
        return self._sim._entities.get(entity)

    def samples(self, built: MjEntity) -> Iterator[MotionSample]:
        data = self._sim.data
        speeds = self._speeds()
        for index, body in enumerate(built.bodies.tolist(), start=-1):
            state = (*data.xpos[body].tolist(), *data.xquat[body].tolist(),
                     *data.cvel[body].tolist())
            speed = 0.0 if index < 0 and built.fixed else float(speeds[body])
            yield index, state, speed

    def where(self, built: MjEntity, index: int) -> str:
        return link_and_joint(built.entity, built.link_names.get(index, '?'), root=index < 0)

    def require_finite_body(self, body: int) -> None:
        """Raise SimulationError (with the report) if the pose of ``body`` is not finite."""
        data = self._sim.data
        if math.isfinite(float(data.xpos[body].sum() + data.xquat[body].sum())):
            return
        number = int(self._sim._body_number[body])
        built = self._sim._by_number.get(number)
        self.require_finite(built.name if built else '?', [math.nan])
