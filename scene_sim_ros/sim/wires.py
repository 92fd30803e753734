"""Wire laws (:class:`~scene_sim_ros.scene.Wire`): the force along a wire between two points on
two links, from their positions, velocities and masses (an engine reads those and applies the
force, see ``sim/engines/pybullet/wires.py``).

- A **stiff** wire is a one-row velocity constraint along the wire, solved per step in closed
  form: the impulse that brings the ends' relative velocity along the wire to what closes the
  length error (a Baumgarte term of :data:`BAUMGARTE` per step), computed from the links' masses
  and inertias with gravity's pull of this step included, clamped to pull only (``stretch``),
  push only (``compression``) or either (``both``), and applied as the force that gives it over
  the step at the two attachment points (so it turns the links too).
- A **compliant** wire is a spring of ``stiffness`` acting while stretched (or compressed, or
  both, per ``stretch``).
- A **custom** wire pulls its ends together with a constant ``tension``.

A zero-length stiff wire (at most :data:`POINT_LENGTH`) is a ball joint, which the engine makes
a point-to-point constraint. Everything is deterministic (no state beyond the bodies').
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from scene_sim_ros.scene import Wire

BAUMGARTE = 0.2  # share of the length error a stiff wire removes per step
POINT_LENGTH = 1e-6  # a stiff wire at most this long is a point-to-point constraint


def stiff_force(wire: Wire, error: float, closing_velocity: np.ndarray, n: np.ndarray,
                drift: np.ndarray, inverse_mass: Callable[[], float], dt: float) -> float:
    """Force along ``n`` on end b (``-`` on end a) that makes the length ``error`` vanish over a
    step of ``dt``: ``closing_velocity`` is b's velocity relative to a, ``drift`` gravity's pull
    of this step on it, ``inverse_mass()`` the ends' summed effective inverse mass along ``n``
    (asked only for a wire that acts)."""
    closing = float(np.dot(closing_velocity + drift, n))  # d(length)/dt at the end of the step
    predicted = error + closing * dt
    if (wire.stretch == 'stretch' and predicted <= 0.0) or \
            (wire.stretch == 'compression' and predicted >= 0.0):
        return 0.0
    summed = inverse_mass()
    if summed <= 0.0:
        return 0.0
    impulse = (-BAUMGARTE * error / dt - closing) / summed
    return clamp(wire, impulse / dt)


def effective_inverse_mass(mass: float, inertia: np.ndarray, offset: np.ndarray,
                           n: np.ndarray, rotation: np.ndarray) -> float:
    """Inverse mass along ``n`` of a link of ``mass`` and principal ``inertia`` pulled at
    ``offset`` from its centre of mass (world frame; ``rotation``: its principal axes)."""
    if mass <= 0.0:
        return 0.0
    arm = rotation.T @ np.cross(offset, n)  # in the principal (inertial) frame
    turning = float(np.sum(arm * arm / np.maximum(inertia, 1e-12)))
    return 1.0 / mass + turning


def spring_force(wire: Wire, error: float) -> float:
    """A compliant wire's force for a length ``error`` (> 0: stretched)."""
    return clamp(wire, -(wire.stiffness or 0.0) * error)


def clamp(wire: Wire, force: float) -> float:
    """``force`` > 0 pushes the ends apart; a wire resisting stretch only pulls."""
    if wire.stretch == 'stretch':
        return min(force, 0.0)
    if wire.stretch == 'compression':
        return max(force, 0.0)
    return force
