"""Wires (:class:`~scene_sim_ros.scene.Wire`): length constraints between points on two links.

PyBullet has no rope, so wires are forces applied before every physics step:

- A **stiff** wire is a one-row velocity constraint along the wire, solved per step in closed
  form: the impulse that brings the ends' relative velocity along the wire to what closes the
  length error (a Baumgarte term of :data:`BAUMGARTE` per step), computed from the links' masses
  and inertias with gravity's pull of this step included, clamped to pull only (``stretch``),
  push only (``compression``) or either (``both``), and applied as the force that gives it over
  the step at the two attachment points (so it turns the links too).
- A **compliant** wire is a spring of ``stiffness`` acting while stretched (or compressed, or
  both, per ``stretch``).
- A **custom** wire pulls its ends together with a constant ``tension``.

A zero-length stiff wire is a ball joint: a PyBullet point-to-point constraint. Everything is
deterministic (no state beyond the bodies'). The effective mass of a link of an articulated
entity is that of the link alone (exact for single bodies, an approximation for links).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pybullet as pb

from ..errors import SimulationError
from ..scene import Wire

if TYPE_CHECKING:
    from .built_entity import BuiltEntity
    from .simulation import Simulation

BAUMGARTE = 0.2  # share of the length error a stiff wire removes per step
POINT_LENGTH = 1e-6  # a stiff wire at most this long is a point-to-point constraint


@dataclass
class _End:
    built: BuiltEntity
    body: int  # PyBullet body
    link: int  # its link index
    anchor: np.ndarray  # attachment point in the link's centre-of-mass frame
    movable: bool


class WireSet:
    """The wires of a simulation, applied with :meth:`apply` before each physics step."""

    def __init__(self, sim: Simulation, wires: tuple[Wire, ...]):
        self.client = sim.client
        self.alive = sim._by_body  # wires of deleted entities rest
        self.gravity = np.array(sim.scene.gravity, float)
        self.wires: list[tuple[Wire, _End, _End]] = []
        self.warnings: list[str] = []
        for wire in wires:
            try:
                a = _end(sim, wire.body_a, wire.point_a)
                b = _end(sim, wire.body_b, wire.point_b)
            except SimulationError as err:
                self.warnings.append(f'wire {wire.name!r}: {err}; skipped')
                continue
            if wire.kind == 'stiff' and wire.length <= POINT_LENGTH:
                pb.createConstraint(a.body, a.link, b.body, b.link,
                                    pb.JOINT_POINT2POINT, (0, 0, 0), a.anchor.tolist(),
                                    b.anchor.tolist(), physicsClientId=self.client)
                continue
            if not (a.movable or b.movable):
                continue
            self.wires.append((wire, a, b))

    def apply(self, dt: float) -> None:
        """Apply the wire forces of the coming physics step of ``dt`` seconds."""
        for wire, a, b in self.wires:
            if self.alive.get(a.body) is not a.built or self.alive.get(b.body) is not b.built:
                continue
            pa, va, ra, rot_a = self._point(a)
            pb_, vb, rb, rot_b = self._point(b)
            delta = pb_ - pa
            distance = float(np.linalg.norm(delta))
            if distance < 1e-9:
                continue
            n = delta / distance
            error = distance - wire.length
            if wire.kind == 'stiff':
                force = self._stiff_force(wire, a, b, n, error, vb - va, ra, rb, rot_a, rot_b, dt)
            elif wire.kind == 'compliant':
                force = _clamp(wire, -(wire.stiffness or 0.0) * error)
            else:
                force = -wire.tension
            if force == 0.0:
                continue
            if a.movable:
                self._push(a, (-force * n).tolist(), pa.tolist())
            if b.movable:
                self._push(b, (force * n).tolist(), pb_.tolist())

    def _stiff_force(self, wire: Wire, a: _End, b: _End, n: np.ndarray, error: float,
                     velocity: np.ndarray, ra: np.ndarray, rb: np.ndarray, rot_a: np.ndarray,
                     rot_b: np.ndarray, dt: float) -> float:
        """Force along ``n`` on ``b`` (``-`` on ``a``) that makes the length error vanish."""
        drift = self.gravity * dt * (float(b.movable) - float(a.movable))
        closing = float(np.dot(velocity + drift, n))  # d(length)/dt at the end of the step
        predicted = error + closing * dt
        if (wire.stretch == 'stretch' and predicted <= 0.0) or \
                (wire.stretch == 'compression' and predicted >= 0.0):
            return 0.0
        inverse_mass = self._inverse_mass(a, ra, n, rot_a) + self._inverse_mass(b, rb, n, rot_b)
        if inverse_mass <= 0.0:
            return 0.0
        impulse = (-BAUMGARTE * error / dt - closing) / inverse_mass
        return _clamp(wire, impulse / dt)

    def _point(self, end: _End) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """World position and velocity of the attachment point, its offset from the centre
        of mass and the link's rotation matrix."""
        client = self.client
        if end.link < 0:
            position, orientation = pb.getBasePositionAndOrientation(end.body,
                                                                     physicsClientId=client)
            linear, angular = pb.getBaseVelocity(end.body, physicsClientId=client)
        else:
            state = pb.getLinkState(end.body, end.link, computeLinkVelocity=1,
                                    computeForwardKinematics=1, physicsClientId=client)
            position, orientation, linear, angular = state[0], state[1], state[6], state[7]
        rotation = np.array(pb.getMatrixFromQuaternion(orientation)).reshape(3, 3)
        offset = rotation @ end.anchor
        w = np.array(angular)
        return (np.array(position) + offset, np.array(linear) + np.cross(w, offset), offset,
                rotation)

    def _inverse_mass(self, end: _End, offset: np.ndarray, n: np.ndarray,
                      rotation: np.ndarray) -> float:
        if not end.movable:
            return 0.0
        info = pb.getDynamicsInfo(end.body, end.link, physicsClientId=self.client)
        mass, inertia = info[0], np.array(info[2])
        if mass <= 0.0:
            return 0.0
        arm = rotation.T @ np.cross(offset, n)  # in the principal (inertial) frame
        turning = float(np.sum(arm * arm / np.maximum(inertia, 1e-12)))
        return 1.0 / mass + turning

    def _push(self, end: _End, force: list[float], position: list[float]) -> None:
        pb.applyExternalForce(end.body, end.link, force, position, pb.WORLD_FRAME,
                              physicsClientId=self.client)


def _clamp(wire: Wire, force: float) -> float:
    """``force`` > 0 pushes the ends apart; a wire resisting stretch only pulls."""
    if wire.stretch == 'stretch':
        return min(force, 0.0)
    if wire.stretch == 'compression':
        return max(force, 0.0)
    return force


def _end(sim: Simulation, name: str, point: tuple[float, float, float]) -> _End:
    built, link = sim._resolve(name)
    anchor = built.inertial[link].inverse().transform_point(point)
    movable = not ((built.fixed and link < 0) or built.kinematic_pose is not None)
    if built.fixed and link >= 0 and not built.joint_indices:
        movable = False
    if not all(math.isfinite(v) for v in anchor):
        raise SimulationError(f'attachment point {point} is not finite')
    return _End(built, *built.locate(link), np.array(anchor, float), movable)
