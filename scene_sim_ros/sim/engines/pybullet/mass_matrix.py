"""The inverse mass matrix of a PyBullet body, for the torque servos' implicit PD
(:mod:`scene_sim_ros.sim.torque_servos`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pybullet as pb

from scene_sim_ros.sim.engines.pybullet import c_output_silenced


def mobility_source(client: int, body: int, joint_indices: Sequence[int],
                    rows: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """A function ``positions -> W``: the block of the inverse mass matrix of ``body`` for the
    movable joints at ``rows`` (positions in the entity's movable-joint order, as
    ``joint_indices``)."""
    indices = list(joint_indices)
    order = np.argsort(indices)  # PyBullet wants the positions in its joint order
    rank = np.empty(len(indices), dtype=int)
    rank[order] = np.arange(len(indices))
    selected = np.asarray(rows, dtype=int)
    first_call = [True]

    def source(positions: np.ndarray) -> np.ndarray:
        ordered = [float(positions[i]) for i in order]
        if first_call[0]:
            # PyBullet builds its inverse-dynamics tree on the first call and warns "axis of
            # motion not a unit axis" for joint axes that are unit to 1e-15, not to its 2e-15
            # (one line per humanoid); later calls reuse the tree and print nothing
            first_call[0] = False
            with c_output_silenced():
                matrix = np.asarray(pb.calculateMassMatrix(body, ordered,
                                                           physicsClientId=client))
        else:
            matrix = np.asarray(pb.calculateMassMatrix(body, ordered, physicsClientId=client))
        dofs = rank[selected] + matrix.shape[0] - len(indices)
        try:
            inverse = np.linalg.inv(matrix)
        except np.linalg.LinAlgError:
            return np.diag(1.0 / np.maximum(np.diag(matrix)[dofs], 1e-12))
        return inverse[np.ix_(dofs, dofs)]

    return source
