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
ball at rest stays at rest). Measured: decelerations within 0.4 % of the scene's for a solid
ball and B-Human's (inertia of a 5 mm sphere), no slip.
"""

from __future__ import annotations

import mujoco
import numpy as np

from scene_sim_ros.sim.link_layout import MIN_MASS


class RollingResistance:
    """The rolling torques of the geoms in ``coefficients`` (geom name -> ``mu_r``)."""

    def __init__(self, model: mujoco.MjModel, coefficients: dict[str, float]):
        self.model = model
        self.coefficient = np.zeros(model.ngeom)
        for name, value in coefficients.items():
            geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
            if geom >= 0:
                self.coefficient[geom] = value
        self.active = bool(self.coefficient.any())
        self._wrench = np.zeros(6)
        self.forget()

    def forget(self) -> None:
        """No solved contacts to go by (after an edit moved things)."""
        self._rolling = np.zeros(0, dtype=np.int64)  # body that rolls, per contact
        self._other = np.zeros(0, dtype=np.int64)
        self._mu = np.zeros(0)
        self._normal = np.zeros((0, 3))
        self._point = np.zeros((0, 3))
        self._force = np.zeros(0)

    def capture(self, data: mujoco.MjData) -> None:
        """The contacts of rolling geoms MuJoCo just solved, and their normal forces (after
        ``mj_step2``)."""
        if not self.active or data.ncon == 0:
            self.forget()
            return
        geoms = data.contact.geom[:data.ncon]
        mu = self.coefficient[geoms]
        hits = np.flatnonzero(mu.max(axis=1) > 0.0)
        if not len(hits):
            self.forget()
            return
        first_rolls = mu[hits, 0] >= mu[hits, 1]
        bodies = self.model.geom_bodyid[geoms[hits]]
        self._rolling = np.where(first_rolls, bodies[:, 0], bodies[:, 1])
        self._other = np.where(first_rolls, bodies[:, 1], bodies[:, 0])
        self._mu = mu[hits].max(axis=1)
        self._normal = data.contact.frame[hits, :3].copy()
        self._point = data.contact.pos[hits].copy()
        self._force = np.array([self._normal_force(data, int(i)) for i in hits])

    def _normal_force(self, data: mujoco.MjData, contact: int) -> float:
        if data.contact.efc_address[contact] < 0:
            return 0.0
        mujoco.mj_contactForce(self.model, data, contact, self._wrench)
        return max(float(self._wrench[0]), 0.0)

    def apply(self, data: mujoco.MjData, forces: np.ndarray) -> None:
        """Add the rolling torques for the coming step to ``forces`` (``xfrc_applied``-shaped;
        the velocities of the state after ``mj_step1``)."""
        if not len(self._rolling):
            return
        omega = data.cvel[self._rolling, :3] - data.cvel[self._other, :3]
        normal = self._normal
        tangential = omega - np.sum(omega * normal, axis=1, keepdims=True) * normal
        speed = np.linalg.norm(tangential, axis=1)
        moving = speed > 1e-12
        if not moving.any():
            return
        axis = tangential[moving] / speed[moving, None]
        body = self._rolling[moving]
        stopping = self._rolling_inertia(data, body, axis, self._point[moving]) * speed[moving] \
            / self.model.opt.timestep
        torque = np.minimum(self._mu[moving] * self._force[moving], stopping)[:, None] * axis
        np.add.at(forces[:, 3:], body, -torque)
        np.add.at(forces[:, 3:], self._other[moving], torque)

    def _rolling_inertia(self, data: mujoco.MjData, body: np.ndarray, axis: np.ndarray,
                         point: np.ndarray) -> np.ndarray:
        """Each body's moment of inertia about ``axis`` through its contact ``point``."""
        rotation = data.ximat[body].reshape(-1, 3, 3)
        local = np.einsum('nji,nj->ni', rotation, axis)  # the axis in the inertial frame
        own = np.sum(self.model.body_inertia[body] * local * local, axis=1)
        arm = np.cross(point - data.xipos[body], axis)
        mass = np.maximum(self.model.body_mass[body], MIN_MASS)
        return own + mass * np.sum(arm * arm, axis=1)
