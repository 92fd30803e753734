"""``read``, ``reader`` and ``sensor_readers`` of a simulation, over its readers by (entity,
sensor): a mixin both engines share (image readers are created on their first read)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.sim.sensors import create_reader

if TYPE_CHECKING:
    from scene_sim_ros.sim.simulator import SensorReader


class SensorAccess:
    """The sensor part of a :class:`~scene_sim_ros.sim.simulator.Simulator`."""

    _readers: dict[tuple[str, str], SensorReader]

    if TYPE_CHECKING:  # the engine's: its built entity (``.entity``) or SimulationError
        def _built(self, entity: str) -> Any: ...

    def read(self, entity: str, sensor: str) -> Any:
        """Current reading of ``sensor`` of ``entity`` (numpy array, float or dict)."""
        return self.reader(entity, sensor).read()

    def sensor_readers(self) -> list[Any]:
        """Every sensor reader created so far (the emitters look for their receivers)."""
        return list(self._readers.values())

    def reader(self, entity: str, sensor: str) -> Any:
        """The reader object of a sensor (created on first use), e.g. to ``set()`` a user input.

        Readers are replaced by a rebuilding reset: look them up again afterwards.
        """
        model = self._built(entity).entity
        key = (entity, sensor)
        if key not in self._readers:
            try:
                found = model.sensor(sensor)
            except KeyError:
                names = ', '.join(s.name for s in model.sensors)
                raise SimulationError(f'entity {entity!r} has no sensor {sensor!r}; '
                                      f'sensors: {names or "none"}') from None
            self._readers[key] = create_reader(self, entity, found)  # type: ignore[arg-type]
        return self._readers[key]
