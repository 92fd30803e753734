"""Rolling friction in the MuJoCo engine: a torque against the rolling, applied by the engine.

The scene gives rolling friction as a deceleration; :func:`~scene_sim_ros.sim.materials.
rolling_coefficient` turns it into a coefficient ``mu_r`` (a length) for a round link, so that
a torque ``mu_r N`` against its rolling decelerates it at the scene's value. MuJoCo's own rolling
friction (condim 6) is that torque, but inside the contact's friction cone, which it shares with
the sliding friction: with SimRobot Core3's pyramidal cone a ball rolling on the carpet at the
scene's 0.3 m/s^2 decelerated at 0.273 and slipped at 0.12 m/s (0.301 with an elliptic cone,
which Core3 does not use). So the torque is applied here, outside the solver, as Bullet's
separate rolling constraint would: per contact of a rolling geom, ``mu_r`` times the normal
force MuJoCo's last solve gave that contact, about the contact's tangent, against the relative
angular velocity of the two bodies there, at most what stops that rolling in one step (so a
ball at rest stays at rest; the moment of inertia for that from the geom's bounding radius,
exact for a ball). Measured: decelerations within 0.4 % of the scene's for a solid
ball and B-Human's (inertia of a 5 mm sphere), no slip.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from scene_sim_ros.sim.link_layout import MIN_MASS


class RollingResistance:
    """The rolling torques of the geoms in ``coefficients`` (geom name -> ``mu_r``)."""

    def __init__(self, model: mujoco.MjModel, coefficients: dict[str, float]):
        self.model = model
        self.coefficient = np.zeros(model.ngeom)
        self.inertia = np.zeros(model.ngeom)  # of the geom's body about a contact point
        for name, value in coefficients.items():
            geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
            if geom >= 0:
                self.coefficient[geom] = value
                self.inertia[geom] = _rolling_inertia(model, geom)
        self.active = bool(self.coefficient.any())
        self._wrench = np.zeros(6)
        self.forget()

    def forget(self) -> None:
        """No solved contacts to go by (after an edit moved things)."""
        # per contact of a rolling geom: the body that rolls, the other, the largest torque
        # (mu_r N), the contact normal, the rolling body's moment of inertia there
        self._contacts: list[tuple[int, int, float, np.ndarray, float]] = []

    def capture(self, data: mujoco.MjData) -> None:
        """The contacts of rolling geoms MuJoCo just solved, and their normal forces (after
        ``mj_step2``)."""
        self._contacts = []
        if not self.active or data.ncon == 0:
            return
        geoms = data.contact.geom[:data.ncon]
        mu = self.coefficient[geoms]
        if not mu.any():
            return
        body_of = self.model.geom_bodyid
        for i in np.flatnonzero(mu.any(axis=1)).tolist():
            first, second = geoms[i].tolist()
            if mu[i, 1] > mu[i, 0]:
                first, second = second, first
            torque = self.coefficient[first] * self._normal_force(data, i)
            self._contacts.append((int(body_of[first]), int(body_of[second]), torque,
                                   data.contact.frame[i, :3].copy(), self.inertia[first]))

    def _normal_force(self, data: mujoco.MjData, contact: int) -> float:
        if data.contact.efc_address[contact] < 0:
            return 0.0
        mujoco.mj_contactForce(self.model, data, contact, self._wrench)
        return max(float(self._wrench[0]), 0.0)

    def apply(self, data: mujoco.MjData, forces: np.ndarray) -> None:
        """Add the rolling torques for the coming step to ``forces`` (``xfrc_applied``-shaped;
        the velocities of the state after ``mj_step1``)."""
        step = self.model.opt.timestep
        for rolling, other, largest, normal, inertia in self._contacts:
            omega = data.cvel[rolling, :3] - data.cvel[other, :3]
            tangential = omega - float(omega @ normal) * normal
            speed = math.sqrt(float(tangential @ tangential))
            if speed > 1e-12:
                torque = min(largest, inertia * speed / step) / speed * tangential
                forces[rolling, 3:] -= torque
                forces[other, 3:] += torque


def _rolling_inertia(model: mujoco.MjModel, geom: int) -> float:
    """The moment of inertia of ``geom``'s body about a tangent axis through a point of the
    geom's surface under its centre of mass (``I + m r^2``, ``I`` the mean principal moment,
    ``r`` the geom's bounding radius): what a torque about the contact must stop, exactly for
    a ball."""
    body = model.geom_bodyid[geom]
    mass = max(float(model.body_mass[body]), MIN_MASS)
    radius = float(model.geom_rbound[geom])
    return float(model.body_inertia[body].mean()) + mass * radius * radius
