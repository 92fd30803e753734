"""What every sensor reader shares: its simulation, entity, sensor and mount pose; and the registry
of readers (:data:`REGISTERED`), which a reader class enters by declaring the scene model class it
reads (:attr:`Reader.reads`)."""

from __future__ import annotations

from typing import Any, ClassVar

from scene_sim_ros.scene.transforms import Pose
from scene_sim_ros.sim.simulator import Simulator


class Reader:
    """Reads one sensor of one entity. Subclasses implement :meth:`read`.

    :meth:`after_step` runs after every physics step (the Simulation calls it), :meth:`reset`
    when the simulation is reset. A subclass that sets :attr:`reads` registers itself as the
    reader of that model class when its module is imported.
    """

    reads: ClassVar[type | None] = None
    """The scene model class (``scene.sensors.Camera``) this reader reads; None: none of its own
    (a shared base, or a reader ``create_reader`` picks by the sensor's parameters)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        model = cls.__dict__.get('reads')
        if model is not None:
            register(model, cls)

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


REGISTERED: dict[type, type[Reader]] = {}
"""Scene model class -> the reader class that declared it (:attr:`Reader.reads`), in import order."""


def register(model: type, reader: type[Reader]) -> None:
    """Make ``reader`` the reader of ``model``; a second reader class for one model is an error."""
    known = REGISTERED.get(model)
    if known is not None and _name(known) != _name(reader):  # the same class again: a re-import
        raise TypeError(f'{_name(reader)} reads {model.__name__}, which {_name(known)} reads already')
    REGISTERED[model] = reader


def _name(cls: type) -> str:
    return f'{cls.__module__}.{cls.__qualname__}'
