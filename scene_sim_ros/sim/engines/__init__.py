"""Physics engines behind :class:`scene_sim_ros.sim.simulator.Simulator`, one package each;
:func:`create_simulator` builds one by name. Only this module and the engines' own packages
import an engine (the layer contracts in ``pyproject.toml`` check it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scene_sim_ros.scene import Scene
    from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
    from scene_sim_ros.sim.simulator import Simulator

__all__ = ['ENGINES', 'Simulation', 'create_simulator']

ENGINES = ('pybullet', 'mujoco')
"""The engines :func:`create_simulator` knows, the default first."""


def create_simulator(scene: Scene, engine: str = ENGINES[0], *, gui: bool = False, seed: int = 0,
                     renderer: str | None = None, release_gil: bool = False) -> Simulator:
    """A simulation of ``scene`` in ``engine`` (ValueError for an unknown one): ``seed`` seeds
    the sensor noise, ``renderer`` ('auto', 'gl', 'tiny') draws the cameras, ``gui`` opens the
    engine's own window, ``release_gil`` lets other threads run while it steps."""
    if engine == 'pybullet':
        from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
        return Simulation(scene, gui=gui, seed=seed, renderer=renderer, release_gil=release_gil)
    if engine == 'mujoco':
        if gui:
            raise ValueError("engine 'mujoco' has no window of its own (gui); watch it in "
                             'rviz2 or Foxglove')
        from scene_sim_ros.sim.engines.mujoco.simulation import MujocoSimulation
        return MujocoSimulation(scene, seed=seed, renderer=renderer, release_gil=release_gil)
    raise ValueError(f'unknown engine {engine!r}; engines: {", ".join(ENGINES)}')


def __getattr__(name: str) -> Any:
    # ``Simulation``: the default engine's class (``scene_sim_ros.Simulation``), imported on first
    # use so that loading scenes never loads PyBullet
    if name == 'Simulation':
        from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
        return Simulation
    raise AttributeError(name)
