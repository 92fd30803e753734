"""scene_sim_ros: robot scene files (SimRobot, Webots, Simox, RaiSim) simulated in PyBullet and
bridged to ROS 2.

The layers, each usable without the next::

    from scene_sim_ros import load_scene, Simulation
    scene = load_scene('SimpleVehicle.ros2')   # format-neutral Scene model (no PyBullet)
    sim = Simulation(scene)                    # PyBullet (a sim.simulator.Simulator), no ROS
    sim.step(100)

    from scene_sim_ros import create_simulator
    sim = create_simulator(scene, 'mujoco')    # an engine by name (sim.engines.ENGINES)

``Simulation`` is the PyBullet engine's class (the default engine); ``create_simulator`` builds
any engine's simulation, typed as the ``Simulator`` Protocol that every engine implements.

``scene_sim_ros.ros`` holds the ROS 2 node (``scene_sim_ros.cli`` the command line on top of it);
nothing else imports rclpy. The layers are contracts, checked by ``lint-imports``
(``pyproject.toml``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scene_sim_ros.errors import CommandError, SceneLoadError, SceneSimError, SimulationError
from scene_sim_ros.formats import load_scene

if TYPE_CHECKING:
    from scene_sim_ros.sim.engines import Simulation, create_simulator

__version__ = '0.1.0'


def __getattr__(name: str) -> Any:
    # PyBullet is imported only by code that simulates, so loaders stay light.
    if name in ('Simulation', 'create_simulator'):
        from scene_sim_ros.sim import engines
        return getattr(engines, name)
    raise AttributeError(name)


__all__ = ['CommandError', 'SceneLoadError', 'SceneSimError', 'Simulation', 'SimulationError',
           'create_simulator', 'load_scene']
