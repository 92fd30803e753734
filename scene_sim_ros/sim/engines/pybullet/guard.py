"""The explosion guard's PyBullet reads: one batched query of base and link states per moving
entity (the rules are :mod:`scene_sim_ros.sim.guard`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import pybullet as pb

from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.guard import ExplosionGuard, MotionSample, link_and_joint


class PyBulletGuard(ExplosionGuard[BuiltEntity]):
    """Watches ``entities`` (the simulation's live name -> built entity table)."""

    def __init__(self, client: int, entities: dict[str, BuiltEntity], step_length: float,
                 warnings: list[str], now: Callable[[], float]):
        super().__init__(step_length, warnings, now)
        self._client = client
        self._entities = entities

    def moving(self) -> Iterable[tuple[str, BuiltEntity]]:
        return [(name, built) for name, built in self._entities.items()
                if not (built.fixed and not built.joint_indices)]

    def lookup(self, entity: str) -> BuiltEntity | None:
        return self._entities.get(entity)

    def samples(self, built: BuiltEntity) -> list[MotionSample]:
        client = self._client
        position, orientation = pb.getBasePositionAndOrientation(built.body,
                                                                 physicsClientId=client)
        linear, angular = pb.getBaseVelocity(built.body, physicsClientId=client)
        samples = [(-1, (*position, *orientation, *linear, *angular),
                    0.0 if built.fixed else math.hypot(*linear))]
        hypot = math.hypot
        for body, links, indices in built.link_groups:  # one, or the parts of a large entity
            states = pb.getLinkStates(body, links, computeLinkVelocity=1, physicsClientId=client)
            samples += [(index, state[0] + state[1] + state[6], hypot(*state[6]))
                        for index, state in zip(indices, states)]
        return samples

    def where(self, built: BuiltEntity, index: int) -> str:
        link = built.model_link_name(index) or built.link_names.get(index, '?')
        return link_and_joint(built.entity, link, root=index < 0)
