"""The mass matrix of a PyBullet body, for the torque servos' implicit PD
(:mod:`scene_sim_ros.sim.torque_servos`, which inverts those of all entities together)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import pybullet as pb

from scene_sim_ros.sim.engines.pybullet import c_output_silenced
from scene_sim_ros.sim.torque_servos import MassMatrixSource


def mass_matrix_source(client: int, body: int, joint_indices: Sequence[int],
                       rows: np.ndarray) -> MassMatrixSource:
    """A function ``positions -> (M, dofs)``: the mass matrix of ``body`` and the indices in it
    of the movable joints at ``rows`` (positions in the entity's movable-joint order, as
    ``joint_indices``)."""
    indices = list(joint_indices)
    order = np.argsort(indices)  # PyBullet wants the positions in its joint order
    rank = np.empty(len(indices), dtype=int)
    rank[order] = np.arange(len(indices))
    selected = np.asarray(rows, dtype=int)
    dofs: list[np.ndarray] = []  # found on the first call (a free base adds 6 in front)

    def source(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ordered = positions[order].tolist()
        if not dofs:
            # PyBullet builds its inverse-dynamics tree on the first call and warns "axis of
            # motion not a unit axis" for joint axes that are unit to 1e-15, not to its 2e-15
            # (one line per humanoid); later calls reuse the tree and print nothing
            with c_output_silenced():
                matrix = _array(pb.calculateMassMatrix(body, ordered, physicsClientId=client))
            dofs.append(rank[selected] + matrix.shape[0] - len(indices))
            return matrix, dofs[0]
        return _array(pb.calculateMassMatrix(body, ordered, physicsClientId=client)), dofs[0]

    return source


def _array(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """PyBullet's square matrix (a list of rows) as an array, faster than ``np.asarray``."""
    size = len(rows)
    return np.fromiter(chain.from_iterable(rows), np.float64, size * size).reshape(size, size)
