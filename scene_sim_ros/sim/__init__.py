"""PyBullet backend: world building, stepping, motor models, sensor readout, supervisor operations.

:class:`scene_sim_ros.sim.simulation.Simulation` is the entry point (also importable as
``scene_sim_ros.Simulation``). Modules: ``builder`` (scene model -> multibodies), ``shapes``
(shared collision/visual shapes), ``materials`` (friction fit), ``motors`` (SimRobot motor
models), ``urdf`` (URDF export), ``sensors`` (sensor readers). No rclpy below this package.
"""

import os
import sys


def _import_pybullet_quietly() -> None:
    """Import PyBullet once with C stderr silenced: its module init prints ``pybullet build
    time: ...`` into every log and every terminal."""
    if 'pybullet' in sys.modules:
        return
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all
        import pybullet  # noqa: F401
        return
    try:
        sys.stderr.flush()
        with open(os.devnull, 'wb') as devnull:
            os.dup2(devnull.fileno(), 2)
            try:
                import pybullet  # noqa: F401
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


_import_pybullet_quietly()
