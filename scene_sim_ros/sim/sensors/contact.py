"""Collision sensor: whether the sensor's shapes touched anything in the last physics step.

A sensor naming shapes reads the helper link the builder puts them on
(``Simulation.sensor_link_index``); one naming none reads every shape of its link. Contacts with
other links of the same entity count as well; a helper link is reported as its model link.
"""

from __future__ import annotations

from typing import Any

import pybullet as p

from .base import Reader

CONTACT_DISTANCE = 0.0
"""Contact points farther apart than this (m) are only near, not touching."""


class CollisionSensorReader(Reader):
    """``{'in_contact': bool, 'contacts': ['entity/link', ...]}`` (sorted, without repeats)."""

    def __init__(self, sim: Any, entity: str, sensor: Any) -> None:
        super().__init__(sim, entity, sensor)
        self.body, self.link = sim.locate(entity, sim.sensor_link_index(entity, sensor.name))

    def read(self) -> dict[str, Any]:
        points = p.getContactPoints(bodyA=self.body, linkIndexA=self.link,
                                    physicsClientId=self.sim.client)
        others = {(point[2], point[4]) for point in points if point[8] <= CONTACT_DISTANCE}
        names = sorted({self._name(body, link) for body, link in others})
        return {'in_contact': bool(names), 'contacts': names}

    def _name(self, body: int, link: int) -> str:
        return f'{self.sim.entity_of_body(body)}/{self.sim.link_name(body, link)}'
