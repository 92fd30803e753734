"""Velocity motors as rows of MuJoCo's constraint solver: a target velocity reached with at most
``max_force``, solved together with the contacts, as ODE and PyBullet solve their velocity
motors (a wheel on the ground reaches its velocity however heavy the car it drives).

MuJoCo has no velocity-motor constraint, but its friction loss is one with target 0: a row on
the joint's dof whose force is bounded by ``frictionloss`` and which drives the acceleration
towards a reference ``aref`` (``-b v``). Every joint under such a law gets a friction-loss
row, made hard (impedance 0.9999); after ``mj_step1`` made the rows, :meth:`MotorRows.aim`
rewrites each row's reference to ``(v_target - v) / h`` (the target reached in one step) and its
bound to the motor's force, and after ``mj_step2`` :meth:`MotorRows.forces` reads the forces the
solver gave the rows (the motors' efforts). A passive joint's friction is the same row with
target 0 and the friction as its bound (PyBullet's form too).

The impedance d makes a row's acceleration ``d aref + (1 - d) a0`` (``a0``: the joint's without
the row), so a loaded light joint lags by ``(1 - d) h a0``: at 0.99 the scout's wheel fell to
4.47 of 5 rad/s while its body rocked; at 0.9999 it holds 5.0. The price: MuJoCo's Newton solver
takes 43 iterations instead of 12 on Game.ros2 with simrobot_core=2 (336 rows; 3.0 ms a step
instead of 1.4, PyBullet 3.7), where the NAOs stand as in PyBullet (z 0.331 m, tilt 0.44 deg; on
main they collapsed).

Measured on the tests' scenes: a wheel of the default rover holds 6.25 rad/s from the first
step while it accelerates a 10 kg body (an explicit one-step torque without the contacts left
it 13 % short after 2 s, a linearised contact model made it jump).
"""

from __future__ import annotations

import mujoco
import numpy as np

HARD = (0.9999, 0.9999, 0.001, 0.5, 2.0)  # solimp: MuJoCo's hardest impedance
PLACEHOLDER_BOUND = 1.0  # any positive friction loss: MuJoCo makes the row


class MotorRows:
    """The friction-loss rows of the dofs that hold a velocity law (model dof numbers)."""

    def __init__(self, model: mujoco.MjModel, candidates: np.ndarray):
        self.model = model
        self.dofs = np.zeros(0, dtype=np.int64)
        model.dof_frictionloss[candidates] = 0.0  # the builder's friction: a row's bound now
        model.dof_solimp[candidates] = HARD
        self._rows = np.zeros(0, dtype=np.int64)

    def select(self, dofs: np.ndarray) -> bool:
        """Rows for exactly ``dofs`` from the next ``mj_step1`` on; whether that changed."""
        dofs = np.sort(np.asarray(dofs, dtype=np.int64))
        if np.array_equal(dofs, self.dofs):
            return False
        self.model.dof_frictionloss[self.dofs] = 0.0
        self.model.dof_frictionloss[dofs] = PLACEHOLDER_BOUND
        self.dofs = dofs
        return True

    def aim(self, data: mujoco.MjData, dofs: np.ndarray, targets: np.ndarray,
            bounds: np.ndarray, step_length: float) -> None:
        """Each of ``dofs`` (rows selected) reaches ``targets`` in the coming step with at
        most ``bounds`` (after ``mj_step1``)."""
        n = data.nefc
        friction = np.flatnonzero(data.efc_type[:n] == mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)
        if len(friction) != len(self.dofs):  # a row per selected dof, none else (select())
            raise RuntimeError(f'{len(friction)} friction-loss rows for {len(self.dofs)} motor '
                               'rows: mj_step1 has not run since select()')
        rows = friction[np.searchsorted(data.efc_id[friction], dofs)]
        data.efc_aref[rows] = (targets - data.qvel[dofs]) / step_length
        data.efc_frictionloss[rows] = bounds
        self._rows = rows

    def forces(self, data: mujoco.MjData) -> np.ndarray:
        """The forces the solver gave the rows :meth:`aim` aimed (after ``mj_step2``)."""
        return data.efc_force[self._rows].copy()
