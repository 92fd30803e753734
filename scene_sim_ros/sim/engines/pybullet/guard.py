"""The explosion guard's PyBullet reads: one batched query of base and link states per moving
entity (the rules are :mod:`scene_sim_ros.sim.guard`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator

import pybullet as pb

from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.guard import ExplosionGuard, MotionSample


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

    def samples(self, built: BuiltEntity) -> Iterator[MotionSample]:
        client = self._client
        position, orientation = pb.getBasePositionAndOrientation(built.body,
                                                                 physicsClientId=client)
        linear, angular = pb.getBaseVelocity(built.body, physicsClientId=client)
        yield (-1, (*position, *orientation, *linear, *angular),
               0.0 if built.fixed else math.hypot(*linear))
        links = sorted(i for i in built.link_names if i >= 0)
        for body in built.bodies:  # one, or the parts of a large entity
            mine = [i for i in links if built.locate(i)[0] == body]
            if not mine:
                continue
            states = pb.getLinkStates(body, [built.locate(i)[1] for i in mine],
                                      computeLinkVelocity=1, physicsClientId=client)
            for index, state in zip(mine, states):
                yield index, (*state[0], *state[1], *state[6]), math.hypot(*state[6])

    def where(self, built: BuiltEntity, index: int) -> str:
        link = built.model_link_name(index) or built.link_names.get(index, '?')
        if index < 0:
            return f'link {link!r} (the root)'
        joint = next((j.name for j in built.entity.joints if j.child == link), None)
        return f'link {link!r}' + (f' (joint {joint!r})' if joint else '')
