"""What the sensor readers and the renderer ask of MuJoCo, in engine handles ``(entity number,
link index)`` (see :mod:`.built_entity`): ray casts (``mj_multiRay`` per common origin),
touching links (the current contacts), link frames (MuJoCo's body frames are the model's link
frames) (a mixin of :class:`~.simulation.MujocoSimulation`)."""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.engines.mujoco.state_queries import StateQueries
from scene_sim_ros.sim.ray_casts import first_hits_past
from scene_sim_ros.sim.simulator import LinkHandle

MAX_RAY_LENGTH_FACTOR = 1.0  # a hit beyond the segment's end is no hit


class Sensing(StateQueries):
    """Handles, ray casts, contacts and frames for the sensors and the renderer."""

    _geom_sensor: dict[int, tuple[int, int]]

    # -- handles ---------------------------------------------------------------------------
    def link_handles(self, entity: str, link: str) -> tuple[LinkHandle, ...]:
        built = self._built(entity)
        return ((built.number, self.link_index(entity, link)),)

    def sensor_handle(self, entity: str, sensor: str) -> LinkHandle:
        built = self._built(entity)
        if sensor in built.sensor_index:
            return built.number, built.sensor_index[sensor]
        try:
            link = built.entity.sensor(sensor).link
        except KeyError:
            raise SimulationError(f'entity {entity!r} has no sensor {sensor!r}') from None
        return built.number, self.link_index(entity, link)

    def handle_name(self, handle: LinkHandle) -> str:
        number, index = handle
        built = self._by_number.get(number)
        if built is None:
            return 'None/None'
        if index not in built.link_names:  # a collision sensor's shapes: their link
            sensor = next((s for s, i in built.sensor_index.items() if i == index), None)
            link = built.entity.sensor(sensor).link if sensor is not None else None
            return f'{built.name}/{link}'
        return f'{built.name}/{built.link_names[index]}'

    def entity_of_body(self, body: int) -> str | None:
        built = self._by_number.get(body)
        return built.name if built is not None else None

    def built_entities(self) -> list[MjEntity]:
        return list(self._entities.values())

    def _handle_of_geom(self, geom: int) -> LinkHandle:
        body = int(self.model.geom_bodyid[geom])
        return int(self._body_number[body]), int(self._body_link[body])

    # -- rays and contacts -------------------------------------------------------------------
    def cast_rays(self, origins: np.ndarray, ends: np.ndarray,
                  exclude: Sequence[LinkHandle] = ()) -> np.ndarray:
        """(N, 3) rows of entity number, link index, hit fraction (-1: no hit); one
        ``mj_multiRay`` per distinct origin, which skips an excluded link's body itself (several
        excluded bodies, or a collision sensor's shapes, are looked past by casting again)."""
        body = self._excluded_body(exclude)
        if body is None:
            return first_hits_past(self._multi_ray, origins, ends, exclude)
        return self._multi_ray(origins, ends, body)

    def _excluded_body(self, exclude: Sequence[LinkHandle]) -> int | None:
        """The one MuJoCo body ``exclude`` names (-1: none), else None."""
        if not exclude:
            return -1
        bodies = set()
        for number, index in exclude:
            built = self._by_number.get(number)
            if built is None or index not in built.link_names:
                return None
            bodies.add(built.body_of(index))
        return bodies.pop() if len(bodies) == 1 else None

    def _multi_ray(self, origins: np.ndarray, ends: np.ndarray,
                   body_exclude: int = -1) -> np.ndarray:
        origins = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        ends = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
        rows = np.full((len(origins), 3), -1.0)
        rows[:, 2] = 1.0
        if not len(origins):
            return rows
        unique, groups = np.unique(origins, axis=0, return_inverse=True)
        groups = groups.reshape(-1)
        for k, origin in enumerate(unique):
            members = np.flatnonzero(groups == k) if len(unique) > 1 else np.arange(len(groups))
            vectors = np.ascontiguousarray(ends[members] - origin)
            geoms = np.full(len(members), -1, dtype=np.int32)
            fractions = np.full(len(members), -1.0)
            mujoco.mj_multiRay(self.model, self.data, np.ascontiguousarray(origin),
                               vectors.ravel(), None, 1, body_exclude, geoms, fractions,
                               len(members), mujoco.mjMAXVAL)
            hit = (geoms >= 0) & (fractions >= 0.0) & (fractions <= MAX_RAY_LENGTH_FACTOR)
            bodies = self.model.geom_bodyid[geoms[hit]]
            rows[members[hit], 0] = self._body_number[bodies]
            rows[members[hit], 1] = self._body_link[bodies]
            rows[members[hit], 2] = fractions[hit]
        return rows

    def touching(self, handle: LinkHandle, max_distance: float) -> set[LinkHandle]:
        number, index = handle
        built = self._by_number.get(number)
        if built is None:
            return set()
        data, model = self.data, self.model
        if index in built.link_names:
            body = built.body_of(index)
            mine = {int(g) for g in np.flatnonzero(model.geom_bodyid == body)}
        else:
            mine = {g for g, owner in self._geom_sensor.items() if owner == handle}
        found = set()
        for i in range(data.ncon):
            contact = data.contact[i]
            if contact.dist > max_distance:
                continue
            if contact.geom1 in mine:
                found.add(self._handle_of_geom(int(contact.geom2)))
            elif contact.geom2 in mine:
                found.add(self._handle_of_geom(int(contact.geom1)))
        return found

    # -- frames and software rendering ---------------------------------------------------------
    def handle_frames(self, handles: Sequence[LinkHandle]) -> tuple[np.ndarray, np.ndarray]:
        bodies = np.array([self._by_number[number].body_of(index) if index >= -1 else 0
                           for number, index in handles], dtype=np.int64)
        quaternions = self.data.xquat[bodies]
        return self.data.xpos[bodies].copy(), quaternions[:, [1, 2, 3, 0]]

    def draw_software(self, width: int, height: int, view: list[float], projection: list[float],
                      need_mask: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        raise SimulationError('the mujoco engine draws cameras with the gl renderer only '
                              '(no software renderer); this machine has no GL context')
