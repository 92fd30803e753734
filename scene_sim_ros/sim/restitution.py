"""Restitution as ODE applies it (Webots ``ContactProperties`` ``bounce``/``bounceVelocity``,
RaiSim ``restitution``/``restitution_threshold``): the engine-neutral rules that both engines'
``bounce.py`` apply after a physics step.

ODE (``dContactBounce``) makes a contact leave at ``bounce`` times the normal speed it arrived
with, when that speed exceeds ``bounce_vel``; a ball dropped from height h rebounds to
``bounce^2 h``. An engine finds the contacts its solver pushed on in a step, and for one that
arrived faster than the pair's threshold sets the contact point's normal speed to
:func:`rebound_speed`: the speed whose *discrete* energy along the normal is ``e^2`` times what
it was before the step. Semi-implicit Euler under a constant acceleration a towards the surface
conserves ``E = w^2 / 2 + a x - a dt w / 2`` (w the normal velocity, positive away from the
surface, x the signed distance to it), so the rebound does not depend on where in a step the
body meets the surface or how deep it got in.
"""

from __future__ import annotations

import math

from scene_sim_ros.scene import Scene

DEFAULT_THRESHOLD = 0.2  # m/s: Bullet's restitutionVelocityThreshold, for pairs that give none


class RestitutionRules:
    """The restitution and threshold of a scene's material pairs and defaults."""

    def __init__(self, scene: Scene):
        self.defaults = scene.contact_defaults
        self.pairs = {frozenset((p.material_a, p.material_b)): p for p in scene.material_pairs}

    def restitution(self, a: str, b: str) -> tuple[float, float]:
        """(restitution, threshold in m/s) of materials ``a`` and ``b``."""
        pair = self.pairs.get(frozenset((a, b)))
        value = pair.restitution if pair is not None else None
        threshold = pair.restitution_threshold if pair is not None else None
        if value is None:
            value = self.defaults.restitution
        if threshold is None:
            threshold = self.defaults.restitution_threshold
        return value, DEFAULT_THRESHOLD if threshold is None else threshold

    def bounces(self, material: str) -> bool:
        """Whether ``material`` bounces against some material."""
        if self.defaults.restitution > 0.0:
            return True
        return any(pair.restitution and material in (pair.material_a, pair.material_b)
                   for pair in self.pairs.values())


def rebound_speed(e: float, w0: float, x0: float, x1: float, a: float, dt: float) -> float:
    """The normal speed after a step of ``dt`` that gives ``e^2`` times the discrete energy of
    the arrival: ``w0`` the normal velocity and ``x0`` the distance before the step, ``x1`` the
    distance after it, ``a`` the acceleration towards the surface."""
    energy = w0 * w0 / 2.0 + a * x0 - a * dt * w0 / 2.0
    target_energy = e * e * max(energy, 0.0)
    discriminant = a * a * dt * dt - 8.0 * (a * x1 - target_energy)
    return (a * dt + math.sqrt(max(discriminant, 0.0))) / 2.0
