"""Restitution in MuJoCo, the way the PyBullet engine applies it (:mod:`..pybullet.bounce`, the
rules in :mod:`scene_sim_ros.sim.restitution`): MuJoCo's contacts stay inelastic and the bounce
is an impulse after the physics step.

Why not MuJoCo's own means: it has no restitution coefficient, only a contact's softness
(``solref``: time constant and damping ratio), whose mass-spring-damper would rebound at
``exp(-zeta pi / sqrt(1 - zeta^2))``. That cannot give ODE's threshold (``bounceVelocity``: no
bounce below a speed), needs a time constant of several steps to resolve the oscillation (so
a fast ball sinks in by centimetres) and, being a one-sided spring with MuJoCo's impedance,
does not rebound at the formula's ratio. Measured (a 0.1 kg ball of radius 0.05 m dropped 1 m
on a plane, both geoms ``solref`` (tc, 0.215) for e = 0.5, Euler): rebound/height 0.00, 0.33,
0.30 at 1 ms steps with tc 2, 20, 50 ms (want 0.25); 0.10, 0.04, 0.21 at 8 ms (tc 16, 20,
50 ms); 4.4 at 32 ms (tc 64 ms), sinking 167 mm. The velocity-level rule gives ``e^2 h``
within 0.04 % at 1-8 ms steps and 0.8 % at 32 ms, as the PyBullet engine (0.06 %, 0.8 %), and
meets the same tests with the same tolerances on both engines (test/sim/test_bounce.py).

- which links: the root body of every free (free-jointed) entity whose material bounces; other
  links contact without bounce (MuJoCo has no per-geom restitution, which the PyBullet engine
  gives them through Bullet), said in one warning.
- when: after ``mj_step2``, before ``mj_step1``: ``data.contact`` still holds the contacts of the
  start of the step (with their distances) and ``efc_force`` the solver's forces of the step; a
  contact of a handled root the solver pushed on, arriving (normal speed at the start of the
  step) faster than the pair's threshold.
- how much: :func:`~scene_sim_ros.sim.restitution.rebound_speed` of the contact point's normal
  speed, as an impulse along the mean normal at the mean contact point of the pair of bodies,
  through the Jacobians and the mass matrix of the start of the step (``mj_jac``,
  ``mj_solveM``): exact for an articulated root too. Between two handled roots both take it
  (momentum kept); any other body counts as immovable (a robot's foot a ball hits).
"""

from __future__ import annotations

from collections.abc import Iterable

import mujoco
import numpy as np

from scene_sim_ros.scene import Scene
from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity
from scene_sim_ros.sim.materials import DEFAULT_MATERIAL, link_material
from scene_sim_ros.sim.restitution import RestitutionRules, rebound_speed


class MjBounce:
    """The bounces of one compiled model (rebuilt with it): :meth:`before_step` before
    ``mj_step2``, :meth:`after_step` after it."""

    def __init__(self, scene: Scene, model: mujoco.MjModel, data: mujoco.MjData,
                 entities: Iterable[MjEntity], warnings: list[str]):
        self.model, self.data = model, data
        self.rules = RestitutionRules(scene)
        self.gravity = np.asarray(scene.gravity, dtype=float)
        self.material = [DEFAULT_MATERIAL] * model.nbody
        self.handled = np.zeros(model.nbody, dtype=bool)
        inelastic: list[str] = []
        for built in entities:
            links = {link.name: link for link in built.entity.links}
            for k, body in enumerate(built.bodies.tolist()):
                self.material[body] = link_material(links[built.link_names[k - 1]])
            root = built.body_of(-1)
            self.handled[root] = built.free_dof >= 0 and self.rules.bounces(self.material[root])
            if built.movable_joints and any(self.rules.bounces(self.material[body])
                                            for body in built.bodies[1:].tolist()):
                inelastic.append(built.name)
        self.active = bool(self.handled.any())
        self._velocity_before = np.zeros(model.nv)
        if inelastic:
            _warn(warnings, 'restitution (bounce) applies to free bodies in the mujoco engine; '
                  'the jointed links of ' + _names(inelastic) + ' contact without bounce')

    def before_step(self) -> None:
        if self.active:
            self._velocity_before[:] = self.data.qvel

    def after_step(self) -> None:
        """Bounce the contacts of this step (velocities only; ``mj_step1`` follows)."""
        if not self.active or self.data.ncon == 0:
            return
        for (root, other), contacts in self._touching().items():
            self._bounce(root, other, contacts)

    def _touching(self) -> dict[tuple[int, int], list[int]]:
        """Contacts of handled roots by (root body, other body), each pair of bodies once."""
        model, data = self.model, self.data
        contact = data.contact
        body1 = model.geom_bodyid[contact.geom1]
        body2 = model.geom_bodyid[contact.geom2]
        mine = np.flatnonzero((self.handled[body1] | self.handled[body2])
                              & (contact.efc_address >= 0))
        groups: dict[tuple[int, int], list[int]] = {}
        for i in mine.tolist():
            a, b = int(body1[i]), int(body2[i])
            if model.body_rootid[a] == model.body_rootid[b]:
                continue  # a root touching its own links
            root, other = (b, a) if self.handled[b] and (not self.handled[a] or b < a) else (a, b)
            groups.setdefault((root, other), []).append(i)
        return groups

    def _bounce(self, root: int, other: int, contacts: list[int]) -> None:
        model, data = self.model, self.data
        wrench = np.zeros(6)
        pushed = 0.0
        for i in contacts:
            mujoco.mj_contactForce(model, data, i, wrench)
            pushed += wrench[0]
        if pushed <= 0.0:  # the solver did not push: parting
            return
        e, threshold = self.rules.restitution(self.material[root], self.material[other])
        if e <= 0.0:
            return
        contact = data.contact
        # frame[:3] points from geom1 to geom2: turned to point from the other body to root
        signs = np.where(model.geom_bodyid[contact.geom2[contacts]] == root, 1.0, -1.0)
        normal = (contact.frame[contacts, :3] * signs[:, None]).sum(axis=0)
        length = float(np.linalg.norm(normal))
        if length == 0.0:
            return
        n = normal / length
        point = contact.pos[contacts].mean(axis=0)
        relative = self._normal_row(root, point, n) - self._normal_row(other, point, n)
        w0 = float(relative @ self._velocity_before)
        if -w0 <= threshold:
            return
        partner = bool(self.handled[other])
        # acceleration towards the surface: none between two free bodies (both fall)
        a = 0.0 if partner else max(-float(self.gravity @ n), 0.0)
        dt = float(model.opt.timestep)
        w1 = float(relative @ data.qvel)
        x0 = float(contact.dist[contacts].min())
        target = rebound_speed(e, w0, x0, x0 + w1 * dt, a, dt)
        if target <= w1:
            return
        pushed_row = self._normal_row(root, point, n)
        if partner:
            pushed_row -= self._normal_row(other, point, n)
        response = np.zeros((1, model.nv))
        mujoco.mj_solveM(model, data, response, pushed_row[None, :])
        k = float(pushed_row @ response[0])
        if k > 0.0:
            data.qvel += response[0] * ((target - w1) / k)

    def _normal_row(self, body: int, point: np.ndarray, n: np.ndarray) -> np.ndarray:
        """d(normal velocity of ``point`` on ``body``)/d(qvel), at the start of the step."""
        jacobian = np.zeros((3, self.model.nv))
        if body > 0:
            mujoco.mj_jac(self.model, self.data, jacobian, None, point, body)
        return n @ jacobian


def _names(names: list[str], shown: int = 5) -> str:
    listed = ', '.join(repr(name) for name in names[:shown])
    return listed + (f' and {len(names) - shown} more' if len(names) > shown else '')


def _warn(warnings: list[str], message: str) -> None:
    if message not in warnings:
        warnings.append(message)
