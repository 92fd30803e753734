"""The simulator's optional link to :mod:`scene_sim_ros.sim.sensors` (readers and renderers):
each hook does nothing while that package is missing."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..scene import Scene
    from .entity_lookup import EntityLookup
    from .simulation import Simulation


def sensors_module() -> Any:
    """``scene_sim_ros.sim.sensors``, or None while that package is missing."""
    try:
        return importlib.import_module('scene_sim_ros.sim.sensors')
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith('scene_sim_ros.sim.sensors'):
            return None
        raise


def prepare_rendering(sim: Simulation, scene: Scene, renderer: str | None) -> None:
    prepare = getattr(sensors_module(), 'prepare_rendering', None)
    if prepare is not None:
        prepare(sim, scene, renderer)


def pybullet_draws(sim: Simulation) -> bool:
    """Whether TinyRenderer draws ``sim``'s images, so PyBullet needs the visual shapes."""
    draws = getattr(sensors_module(), 'pybullet_draws', None)
    return True if draws is None else bool(draws(sim))


def invalidate_renders(sim: EntityLookup) -> None:
    """Cached camera frames (and link and joint states) no longer show the world once bodies moved
    between steps."""
    sim._link_states.clear()  # noqa: SLF001
    sim._joint_samples.clear()  # noqa: SLF001
    invalidate = getattr(sensors_module(), 'invalidate_renders', None)
    if invalidate is not None:
        invalidate(sim)


def reader_factory() -> Any:
    """``scene_sim_ros.sim.sensors.create_reader``, or None while that package is missing."""
    return getattr(sensors_module(), 'create_reader', None)
