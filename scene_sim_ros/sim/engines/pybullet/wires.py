"""Wires in PyBullet: the attachment points read from the bodies before every physics step and
the force of :mod:`scene_sim_ros.sim.wires` applied at both ends; a zero-length stiff wire is a
point-to-point constraint. The effective mass of a link of an articulated entity is that of the
link alone (exact for single bodies, an approximation for links)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pybullet as pb

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Wire
from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.wires import POINT_LENGTH, effective_inverse_mass, spring_force, stiff_force

if TYPE_CHECKING:
    from scene_sim_ros.sim.engines.pybullet.entity_lookup import EntityLookup


@dataclass
class _End:
    built: BuiltEntity
    body: int  # PyBullet body
    link: int  # its link index
    anchor: np.ndarray  # attachment point in the link's centre-of-mass frame
    movable: bool


class WireSet:
    """The wires of a simulation, applied with :meth:`apply` before each physics step."""

    def __init__(self, sim: EntityLookup, wires: tuple[Wire, ...]):
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
                force = spring_force(wire, error)
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
        return stiff_force(wire, error, velocity, n, drift,
                           lambda: self._inverse_mass(a, ra, n, rot_a)
                           + self._inverse_mass(b, rb, n, rot_b), dt)

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
        return effective_inverse_mass(info[0], np.array(info[2]), offset, n, rotation)

    def _push(self, end: _End, force: list[float], position: list[float]) -> None:
        pb.applyExternalForce(end.body, end.link, force, position, pb.WORLD_FRAME,
                              physicsClientId=self.client)


def _end(sim: EntityLookup, name: str, point: tuple[float, float, float]) -> _End:
    built, link = sim._resolve(name)
    anchor = built.inertial[link].inverse().transform_point(point)
    movable = not ((built.fixed and link < 0) or built.kinematic_pose is not None)
    if built.fixed and link >= 0 and not built.joint_indices:
        movable = False
    if not all(math.isfinite(v) for v in anchor):
        raise SimulationError(f'attachment point {point} is not finite')
    return _End(built, *built.locate(link), np.array(anchor, float), movable)
