"""Webots' propellers in the MuJoCo engine, as the PyBullet engine applies them: the velocity
``w`` of the propeller's joint gives a thrust ``T = t1 |w| w - t2 |w| V`` along the shaft axis
at the centre of thrust and a torque ``Q = q1 |w| w - q2 |w| V`` about it (``V``: the velocity
of the centre of thrust along the axis), on the link that carries the propeller
(:class:`~scene_sim_ros.scene.Propeller`). MuJoCo applies body forces at the centre of mass
(``xfrc_applied``), so the thrust there comes with its moment ``(c - com) x T``."""

from __future__ import annotations

from collections.abc import Iterable

import mujoco
import numpy as np

from scene_sim_ros.sim.engines.mujoco.built_entity import MjEntity


class Propellers:
    """Every propeller of ``entities`` as arrays (rebuilt with the model)."""

    def __init__(self, model: mujoco.MjModel, entities: Iterable[MjEntity]):
        bodies, dofs, centers, axes, constants = [], [], [], [], []
        for built in entities:
            joints = [j.name for j in built.movable_joints]
            for propeller in built.entity.propellers:
                bodies.append(built.body_of(built.link_index[propeller.link]))
                dofs.append(int(built.dofs[joints.index(propeller.joint)]))
                centers.append(propeller.center)
                axes.append(propeller.axis)
                constants.append((*propeller.thrust, *propeller.torque))
        self.model = model
        self.bodies = np.array(bodies, dtype=np.int64)
        self.dofs = np.array(dofs, dtype=np.int64)
        self.centers = np.array(centers, dtype=float).reshape(-1, 3)
        self.axes = np.array(axes, dtype=float).reshape(-1, 3)
        self.constants = np.array(constants, dtype=float).reshape(-1, 4)
        self.active = bool(len(bodies))

    def apply(self, data: mujoco.MjData, forces: np.ndarray) -> None:
        """Add the thrusts and torques for the coming step to ``forces`` (``xfrc_applied``
        shaped; velocities of the state after ``mj_step1``)."""
        if not self.active:
            return
        bodies = self.bodies
        rotation = data.xmat[bodies].reshape(-1, 3, 3)
        center = data.xpos[bodies] + np.einsum('nij,nj->ni', rotation, self.centers)
        axis = np.einsum('nij,nj->ni', rotation, self.axes)
        angular, linear = data.cvel[bodies, :3], data.cvel[bodies, 3:]
        root_com = data.subtree_com[self.model.body_rootid[bodies]]
        velocity = linear + np.cross(angular, center - root_com)  # of the centre of thrust
        along = np.sum(velocity * axis, axis=1)
        omega = data.qvel[self.dofs]
        spin = np.abs(omega)
        t1, t2, q1, q2 = self.constants.T
        thrust = (t1 * spin * omega - t2 * spin * along)[:, None] * axis
        torque = (q1 * spin * omega - q2 * spin * along)[:, None] * axis
        moment = np.cross(center - data.xipos[bodies], thrust)
        np.add.at(forces[:, :3], bodies, thrust)
        np.add.at(forces[:, 3:], bodies, torque + moment)
