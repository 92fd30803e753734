"""Collision sensor: whether the sensor's shapes touched anything in the last physics step.

A sensor naming shapes reads the helper link the builder puts them on
(``Simulator.sensor_handle``); one naming none reads every shape of its link. Contacts with
other links of the same entity count as well; a helper link is reported as its model link.
"""

from __future__ import annotations

from typing import Any

from scene_sim_ros.scene import sensors as model
from scene_sim_ros.sim.sensors.base import Reader
from scene_sim_ros.sim.simulator import Simulator

CONTACT_DISTANCE = 0.0
"""Contact points farther apart than this (m) are only near, not touching."""


class CollisionSensorReader(Reader):
    """``{'in_contact': bool, 'contacts': ['entity/link', ...]}`` (sorted, without repeats)."""

    reads = model.CollisionSensor

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.handle = sim.sensor_handle(entity, sensor.name)

    def read(self) -> dict[str, Any]:
        others = self.sim.touching(self.handle, CONTACT_DISTANCE)
        names = sorted({self.sim.handle_name(other) for other in others})
        return {'in_contact': bool(names), 'contacts': names}
