"""Restitution as ODE applies it (Webots ``ContactProperties`` ``bounce``/``bounceVelocity``,
RaiSim ``restitution``/``restitution_threshold``), on top of PyBullet's inelastic contacts.

ODE (``dContactBounce``) makes a contact leave at ``bounce`` times the normal speed it arrived
with, when that speed exceeds ``bounce_vel``; a ball dropped from height h rebounds to
``bounce^2 h``. Bullet's own restitution cannot give that: its contact target is the restitution
velocity *plus* the position terms, ``e v - d / dt`` for a contact found at a gap d (a speculative
contact: the ball is braked before it touches, 7-10 % low at 1-8 ms steps) and ``e v + erp p / dt``
for a penetration p (the push-out adds energy, up to 45 % high at 32 ms). So the links handled
here get Bullet restitution 0 and the bounce is applied after each physics step instead:

- which links: the root link of every free (not fixed, not kinematic) entity whose material
  bounces against some material (a pair of the scene with restitution > 0, or a restitution
  default > 0). Other links (wheels, feet of articulated bodies) keep Bullet's per-link
  restitution from :func:`..materials.fit_materials`, as before.
- when: a contact of such a link on which the solver pushed (normal force > 0) in this step,
  arriving (normal speed of the contact point at the start of the step) faster than the pair's
  threshold (``restitution_threshold``; without one, Bullet's 0.2 m/s).
- how much: the contact point's normal speed afterwards is set so that the *discrete* energy
  along the normal is ``e^2`` times what it was before the step
  (:func:`scene_sim_ros.sim.restitution.rebound_speed`), with x before the step from the
  contact points (Bullet reports the distances at the start of the step) and x after it from
  the motion along the normal. That makes the rebound independent of where in a
  step the ball meets the floor and of how deep it got in: ``e^2 h`` within 0.1 % at 1-8 ms
  steps, 2 % at 32 ms (measured with PyBullet, test/sim/test_bounce.py).
- the change is an impulse along the mean contact normal at the mean contact point (it turns a
  box that lands on an edge), shared with the other body by effective mass when that is a
  handled root link too; any other body counts as immovable (a robot's foot a ball hits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pybullet as pb

from scene_sim_ros.scene import Scene
from scene_sim_ros.sim.materials import DEFAULT_MATERIAL, link_material
from scene_sim_ros.sim.restitution import RestitutionRules, rebound_speed

if TYPE_CHECKING:
    from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity


@dataclass(slots=True)
class _Root:
    """A root link handled here and its state at the start of the step."""

    body: int
    material: str
    mass: float
    inverse_inertia: np.ndarray  # diagonal, in the inertial (base) frame
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0)
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular: np.ndarray = field(default_factory=lambda: np.zeros(3))


class Bounce:
    def __init__(self, client: int, scene: Scene, time_step: float):
        self.client = client
        self.time_step = time_step
        self.gravity = np.array(scene.gravity, dtype=float)
        self.rules = RestitutionRules(scene)
        self.roots: dict[int, _Root] = {}
        self.materials: dict[int, dict[int, str]] = {}  # body -> link index -> material

    def add(self, built: BuiltEntity) -> None:
        entity = built.entity
        links = {link.name: link for link in entity.links}
        self.materials[built.body] = {index: link_material(links[name])
                                      for name, index in built.link_index.items()
                                      if name in links}
        material = self.materials[built.body].get(-1, DEFAULT_MATERIAL)
        if built.fixed or built.kinematic_pose is not None or not self.rules.bounces(material):
            return
        info = pb.getDynamicsInfo(built.body, -1, physicsClientId=self.client)
        mass, inertia = info[0], np.array(info[2], dtype=float)
        if mass <= 0.0:
            return
        inverse = np.divide(1.0, inertia, out=np.zeros(3), where=inertia > 0.0)
        pb.changeDynamics(built.body, -1, restitution=0.0, physicsClientId=self.client)
        self.roots[built.body] = _Root(built.body, material, mass, inverse)

    def remove(self, built: BuiltEntity) -> None:
        self.roots.pop(built.body, None)
        self.materials.pop(built.body, None)

    def before_step(self) -> None:
        client = self.client
        for root in self.roots.values():
            position, root.orientation = pb.getBasePositionAndOrientation(
                root.body, physicsClientId=client)
            linear, angular = pb.getBaseVelocity(root.body, physicsClientId=client)
            root.position = np.array(position)
            root.velocity, root.angular = np.array(linear), np.array(angular)

    def after_step(self) -> None:
        done: set[tuple[int, int]] = set()  # two handled roots touching: once, not twice
        for root in self.roots.values():
            contacts = pb.getContactPoints(bodyA=root.body, linkIndexA=-1,
                                           physicsClientId=self.client)
            groups: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
            for point in contacts:
                groups.setdefault((point[2], point[4]), []).append(point)
            for (other, link), points in groups.items():
                if (other, root.body) in done:
                    continue
                done.add((root.body, other))
                self._bounce(root, other, link, points)

    # -- one contact -------------------------------------------------------------------------
    def _bounce(self, root: _Root, other: int, link: int, points: list[tuple[Any, ...]]) -> None:
        if sum(p[9] for p in points) <= 0.0:  # the solver did not push: not touching yet
            return
        other_material = self.materials.get(other, {}).get(link, DEFAULT_MATERIAL)
        e, threshold = self.rules.restitution(root.material, other_material)
        if e <= 0.0:
            return
        normal = np.sum([p[7] for p in points], axis=0)  # from the other body towards root
        length = float(np.linalg.norm(normal))
        if length == 0.0:
            return
        n = normal / length
        point = np.mean([p[5] for p in points], axis=0)
        partner = self.roots.get(other) if link == -1 and other != root.body else None
        # the normal velocity of the contact point before the step (positive: separating)
        w0 = float(n @ (_point_velocity(root.velocity, root.angular, root.position, point)
                        - self._before(partner, other, link, point)))
        if -w0 <= threshold:
            return
        # acceleration towards the surface: none between two free bodies (both fall)
        a = 0.0 if partner is not None else max(-float(self.gravity @ n), 0.0)
        dt = self.time_step
        x0 = min(p[8] for p in points)
        position, orientation = pb.getBasePositionAndOrientation(root.body,
                                                                 physicsClientId=self.client)
        moved = np.array(position) - root.position
        if partner is not None:
            partner_position = pb.getBasePositionAndOrientation(partner.body,
                                                                physicsClientId=self.client)[0]
            moved -= np.array(partner_position) - partner.position
        target = rebound_speed(e, w0, x0, x0 + float(n @ moved), a, dt)
        # now: velocities after the step, the contact point moved with the body
        point = point + moved
        linear, angular = (np.array(v) for v in pb.getBaseVelocity(root.body,
                                                                    physicsClientId=self.client))
        centre = np.array(position)
        w1 = float(n @ (_point_velocity(linear, angular, centre, point)
                        - self._after(partner, other, link, point)))
        if target <= w1:
            return
        k_root, arm_root, rotation_root = _response(root, centre, orientation, point, n)
        k = k_root
        if partner is not None:
            partner_centre, partner_orientation = pb.getBasePositionAndOrientation(
                partner.body, physicsClientId=self.client)
            k_partner, arm_partner, rotation_partner = _response(
                partner, np.array(partner_centre), partner_orientation, point, -n)
            k += k_partner
        impulse = (target - w1) / k
        self._push(root.body, linear, angular, n * impulse / root.mass,
                   rotation_root @ (root.inverse_inertia * (rotation_root.T @ arm_root)) * impulse)
        if partner is not None:
            p_linear, p_angular = (np.array(v) for v in pb.getBaseVelocity(
                partner.body, physicsClientId=self.client))
            self._push(partner.body, p_linear, p_angular, -n * impulse / partner.mass,
                       rotation_partner @ (partner.inverse_inertia
                                           * (rotation_partner.T @ arm_partner)) * impulse)

    def _push(self, body: int, linear: np.ndarray, angular: np.ndarray, d_linear: np.ndarray,
              d_angular: np.ndarray) -> None:
        pb.resetBaseVelocity(body, (linear + d_linear).tolist(), (angular + d_angular).tolist(),
                             physicsClientId=self.client)

    def _before(self, partner: _Root | None, other: int, link: int,
                point: np.ndarray) -> np.ndarray:
        if partner is not None:
            return _point_velocity(partner.velocity, partner.angular, partner.position, point)
        return self._after(None, other, link, point)

    def _after(self, partner: _Root | None, other: int, link: int,
               point: np.ndarray) -> np.ndarray:
        """The velocity of ``point`` on the other body now (an immovable one: its own)."""
        client = self.client
        if partner is not None:
            centre = pb.getBasePositionAndOrientation(partner.body, physicsClientId=client)[0]
            linear, angular = pb.getBaseVelocity(partner.body, physicsClientId=client)
            return _point_velocity(np.array(linear), np.array(angular), np.array(centre), point)
        if link == -1:
            centre = pb.getBasePositionAndOrientation(other, physicsClientId=client)[0]
            linear, angular = pb.getBaseVelocity(other, physicsClientId=client)
        else:
            state = pb.getLinkState(other, link, computeLinkVelocity=1, physicsClientId=client)
            centre, linear, angular = state[0], state[6], state[7]
        return _point_velocity(np.array(linear), np.array(angular), np.array(centre), point)


def _point_velocity(linear: np.ndarray, angular: np.ndarray, centre: np.ndarray,
                    point: np.ndarray) -> np.ndarray:
    return linear + np.cross(angular, point - centre)


def _response(root: _Root, centre: np.ndarray, orientation: tuple[float, ...],
              point: np.ndarray, n: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(normal speed change of ``point`` per unit impulse along ``n``, the arm r x n, the
    rotation of the inertial frame) of a root link."""
    rotation = np.array(pb.getMatrixFromQuaternion(orientation)).reshape(3, 3)
    arm = np.cross(point - centre, n)
    local = rotation.T @ arm
    return 1.0 / root.mass + float(local @ (root.inverse_inertia * local)), arm, rotation
