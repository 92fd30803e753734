"""What every sensor reader shares: its simulation, entity, sensor and mount pose."""

from __future__ import annotations

from typing import Any

from scene_sim_ros.scene.transforms import Pose
from scene_sim_ros.sim.simulator import Simulator


class Reader:
    """Reads one sensor of one entity. Subclasses implement :meth:`read`.

    :meth:`after_step` runs after every physics step (the Simulation calls it), :meth:`reset`
    when the simulation is reset.
    """

    def __init__(self, sim: Simulator, entity: str, sensor: Any) -> None:
        self.sim = sim
        self.entity = entity
        self.sensor = sensor

    def read(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def after_step(self) -> None:
        """Nothing to integrate by default."""

    def reset(self) -> None:
        """No state by default."""

    def link_pose(self) -> Pose:
        return self.sim.link_world_pose(self.entity, self.sensor.link)

    def sensor_pose(self) -> Pose:
        """The sensor frame in the world."""
        return self.link_pose() * self.sensor.pose
