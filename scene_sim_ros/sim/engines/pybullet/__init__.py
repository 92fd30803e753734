"""The PyBullet engine: every PyBullet call of the project lives in this package.

:class:`.simulation.Simulation` implements :class:`scene_sim_ros.sim.simulator.Simulator` (its
parts: ``entity_lookup``, ``state_queries``, ``world_edits``, ``sensing``). Modules: ``builder``
(scene model -> multibodies; ``built_entity`` what it returns), ``shapes`` (shared collision and
visual shapes), ``body_pool`` (bodies kept for respawns), ``motor_world`` (the motors of all
entities stepped as one), ``mass_matrix`` (for Core3's servo law), ``bounce`` (ODE-style
restitution), ``wires`` and ``guard`` (the engine's reads for the shared laws and rules),
``native_step`` (stepping without the GIL; PyBullet's C API).
"""

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def c_output_silenced() -> Iterator[None]:
    """Silence what C code prints (file descriptors 1 and 2, C's stdio buffers flushed into the
    void before they are restored) inside the block. PyBullet prints its notes with printf."""
    try:
        saved = (os.dup(1), os.dup(2))
    except OSError:  # no stdout / stderr at all
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        with open(os.devnull, 'wb') as devnull:
            os.dup2(devnull.fileno(), 1)
            os.dup2(devnull.fileno(), 2)
            try:
                yield
            finally:
                _libc_fflush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)


def _libc_fflush() -> None:
    import ctypes
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library to flush (not CPython on a libc)
        pass


def _import_pybullet_quietly() -> None:
    """Import PyBullet once with C stderr silenced: its module init prints ``pybullet build
    time: ...`` into every log and every terminal."""
    if 'pybullet' not in sys.modules:
        with c_output_silenced():
            import pybullet  # noqa: F401


_import_pybullet_quietly()
