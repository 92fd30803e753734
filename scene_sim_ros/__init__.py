"""scene_sim_ros: robot scene files (SimRobot, Webots, Simox, RaiSim) simulated in PyBullet and
bridged to ROS 2.

The layers, each usable without the next::

    from scene_sim_ros import load_scene, Simulation
    scene = load_scene('SimpleVehicle.ros2')   # format-neutral Scene model (no PyBullet)
    sim = Simulation(scene)                    # PyBullet, no ROS
    sim.step(100)

``scene_sim_ros.ros`` holds the ROS 2 node; nothing else imports rclpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import CommandError, SceneLoadError, SceneSimError, SimulationError
from .formats import load_scene

if TYPE_CHECKING:
    from .sim.simulation import Simulation

__version__ = '0.1.0'


def __getattr__(name: str) -> Any:
    # PyBullet is imported only by code that simulates, so loaders stay light.
    if name == 'Simulation':
        from .sim.simulation import Simulation
        return Simulation
    raise AttributeError(name)


__all__ = ['CommandError', 'SceneLoadError', 'SceneSimError', 'Simulation', 'SimulationError',
           'load_scene']
