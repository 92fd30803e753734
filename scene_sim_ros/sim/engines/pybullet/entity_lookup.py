"""Entity and link lookup by name, and the attributes every part of :class:`Simulation` shares.

:class:`EntityLookup` is the base of the mixins :class:`Simulation` is made of
(``state_queries``, ``world_edits``); it declares the attributes ``Simulation.__init__`` sets so
that each mixin is type-checked on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.simulator import JointSample, LinkHandle, SensorReader, Vector

if TYPE_CHECKING:
    import numpy as np

    from scene_sim_ros.scene import Entity, Pose, Scene
    from scene_sim_ros.sim.engines.pybullet.body_pool import BodyPool
    from scene_sim_ros.sim.engines.pybullet.bounce import Bounce
    from scene_sim_ros.sim.engines.pybullet.guard import PyBulletGuard
    from scene_sim_ros.sim.engines.pybullet.motor_world import MotorWorld
    from scene_sim_ros.sim.engines.pybullet.shapes import ShapeCache
    from scene_sim_ros.sim.sensors.rendering import Rendering


@dataclass
class Push:
    """A force and torque :meth:`StateQueries.apply_force` applies during ``steps_left`` more
    steps."""

    body: int
    link: int
    force: Vector
    torque: Vector
    steps_left: int


class EntityLookup:
    """Names -> built entities, links and PyBullet bodies (a mixin of :class:`Simulation`)."""

    scene: Scene
    client: int
    step_length: float
    seed: int
    rng: np.random.Generator
    rendering: Rendering
    _shapes: ShapeCache
    _pool: BodyPool
    _bounce: Bounce
    _guard: PyBulletGuard
    _entities: dict[str, BuiltEntity]
    _by_body: dict[int, BuiltEntity]
    _spawned: dict[str, Entity]
    _removed: set[str]
    _readers: dict[tuple[str, str], SensorReader]
    _link_states: dict[tuple[str, str], tuple[Pose, Vector, Vector]]
    _world_sample: JointSample | None
    _joint_samples: dict[str, JointSample]
    _motor_world: MotorWorld | None
    _pushes: list[Push]
    _steps: int

    # -- names -----------------------------------------------------------------------------
    def entity_names(self) -> list[str]:
        """Names of the entities now in the world (loaded first, then spawned)."""
        return list(self._entities)

    def _built(self, entity: str, error: type[SimulationError] = SimulationError) -> BuiltEntity:
        try:
            return self._entities[entity]
        except KeyError:
            raise error(f'unknown entity {entity!r}; entities: '
                        + ', '.join(self._entities)) from None

    def _resolve(self, name: str) -> tuple[BuiltEntity, int]:
        """``"entity"`` or ``"entity/link"`` -> (entity, PyBullet link index)."""
        if name in self._entities:
            return self._entities[name], -1
        entity, sep, link = name.rpartition('/')
        if not sep:
            self._built(name)
        return self._entities.get(entity) or self._built(entity), self.link_index(entity, link)

    def locate(self, entity: str, index: int) -> tuple[int, int]:
        """(PyBullet body, its link index) of ``entity``'s link index ``index`` (as
        :meth:`link_index` gives it): an entity with more links than one PyBullet body takes
        is several bodies (:class:`~.built_entity.Part`); else ``(body_id, index)``."""
        return self._built(entity).locate(index)

    def body_id(self, entity: str) -> int:
        """PyBullet body unique id of ``entity``."""
        return self._built(entity).body

    def link_index(self, entity: str, link: str) -> int:
        """PyBullet link index of the model link ``link`` (-1 for the root); of an entity built
        in parts (over PyBullet's per-body limits) the entity's own index, which
        :meth:`locate` turns into a PyBullet (body, link) pair."""
        built = self._built(entity)
        try:
            return built.link_index[link]
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no link {link!r}; links: '
                                  + ', '.join(built.link_index)) from None

    def sensor_link_index(self, entity: str, sensor: str) -> int:
        """PyBullet link index holding the collision shapes ``sensor`` names (a helper link
        that no model API shows; see :mod:`scene_sim_ros.sim.engines.pybullet.builder`), else the index of the
        sensor's link."""
        built = self._built(entity)
        if sensor in built.sensor_links:
            return built.sensor_links[sensor]
        try:
            link = built.entity.sensor(sensor).link
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no sensor {sensor!r}') from None
        return self.link_index(entity, link)

    def own_link_indices(self, entity: str, link: str) -> tuple[int, ...]:
        """PyBullet link indices of the model link ``link``: its own and its helper links'."""
        return self._built(entity).own_link_indices(self.link_index(entity, link))

    def built_entities(self) -> list[BuiltEntity]:
        """The entities as built in PyBullet (bodies, link indices, frames), for renderers."""
        return list(self._entities.values())

    def entity_of_body(self, body_id: int) -> str | None:
        """Name of the entity whose PyBullet body is ``body_id`` (None if none)."""
        built = self._by_body.get(body_id)
        return built.name if built is not None else None

    def link_name(self, body_id: int, link_index: int) -> str | None:
        """Model link name of PyBullet ``(body_id, link_index)`` (None if unknown)."""
        built = self._by_body.get(body_id)
        if built is None:
            return None
        return built.model_link_name(built.global_index(body_id, link_index))

    # -- engine handles (see scene_sim_ros.sim.simulator) -----------------------------------
    def link_handles(self, entity: str, link: str) -> tuple[LinkHandle, ...]:
        """(body, link) of model link ``link``: its own and its helper links'."""
        return tuple(self.locate(entity, i) for i in self.own_link_indices(entity, link))

    def sensor_handle(self, entity: str, sensor: str) -> LinkHandle:
        """(body, link) holding the shapes ``sensor`` names (else the sensor's link)."""
        return self.locate(entity, self.sensor_link_index(entity, sensor))

    def handle_name(self, handle: LinkHandle) -> str:
        """``"entity/link"`` of PyBullet ``(body, link)``."""
        body, link = handle
        return f'{self.entity_of_body(body)}/{self.link_name(body, link)}'

    def _world_moved(self) -> None:
        """Bodies moved between steps: cached link and joint states and camera frames no
        longer show the world."""
        self._link_states.clear()
        self._world_sample = None
        self._joint_samples.clear()
        self.rendering.invalidate()
