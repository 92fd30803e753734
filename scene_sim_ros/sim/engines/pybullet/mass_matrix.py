"""The mass matrix of a PyBullet body, for the torque servos' implicit PD
(:mod:`scene_sim_ros.sim.torque_servos`, which inverts those of all entities together).

Through PyBullet's C API where it can be reached (:func:`.native_step.client_handle`): the
matrix is then written straight into an array, where ``pybullet.calculateMassMatrix`` makes a
tuple of tuples of floats first, which takes three times as long as the computation for a NAO
(30 x 30: 9 against 27 us with the conversion; 14 NAOs need 7 a step). The C calls are those of
``pybullet.calculateMassMatrix`` (bullet3 ``examples/pybullet/pybullet.c``), made with the GIL
held as PyBullet's own are; the first call of each body goes through ``pybullet`` and the
native result must equal it bit for bit, else that body keeps ``pybullet``.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np
import pybullet as pb

from scene_sim_ros.sim.engines.pybullet import c_output_silenced
from scene_sim_ros.sim.engines.pybullet.native_step import client_handle
from scene_sim_ros.sim.torque_servos import MassMatrixSource

_log = logging.getLogger(__name__)

NativeMassMatrix = Callable[[int, np.ndarray, int], 'np.ndarray | None']
"""(body, joint positions in PyBullet's order, matrix size) -> the matrix, or None."""


def mass_matrix_source(client: int, body: int, joint_indices: Sequence[int],
                       rows: np.ndarray) -> MassMatrixSource:
    """A function ``positions -> (M, dofs)``: the mass matrix of ``body`` and the indices in it
    of the movable joints at ``rows`` (positions in the entity's movable-joint order, as
    ``joint_indices``)."""
    return _BodyMassMatrix(client, body, joint_indices, rows)


class _BodyMassMatrix:
    def __init__(self, client: int, body: int, joint_indices: Sequence[int], rows: np.ndarray):
        self._client = client
        self._body = body
        indices = list(joint_indices)
        self._order = np.argsort(indices)  # PyBullet wants the positions in its joint order
        self._rank = np.empty(len(indices), dtype=int)
        self._rank[self._order] = np.arange(len(indices))
        self._rows = np.asarray(rows, dtype=int)
        self._dofs: np.ndarray | None = None  # found on the first call (a free base adds 6)
        self._native: NativeMassMatrix | None = None

    def __call__(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ordered = np.ascontiguousarray(positions[self._order], dtype=np.float64)
        if self._dofs is None:
            return self._first(ordered)
        matrix = None if self._native is None else self._native(self._body, ordered,
                                                                  self._size)
        if matrix is None:
            matrix = _array(pb.calculateMassMatrix(self._body, ordered.tolist(),
                                                   physicsClientId=self._client))
        return matrix, self._dofs

    def _first(self, ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # PyBullet builds its inverse-dynamics tree on the first call and warns "axis of
        # motion not a unit axis" for joint axes that are unit to 1e-15, not to its 2e-15
        # (one line per humanoid); later calls reuse the tree and print nothing
        with c_output_silenced():
            matrix = _array(pb.calculateMassMatrix(self._body, ordered.tolist(),
                                                   physicsClientId=self._client))
        self._size = matrix.shape[0]
        self._dofs = self._rank[self._rows] + self._size - len(self._rank)
        self._native = _checked(native_mass_matrix(self._client), self._body, ordered, matrix)
        return matrix, self._dofs


def native_mass_matrix(client: int) -> NativeMassMatrix | None:
    """``calculateMassMatrix`` of client ``client`` through PyBullet's C API, or None where
    it cannot be reached."""
    found = client_handle(client)
    if found is None:
        return None
    library, handle = found
    try:
        init, set_flags, submit, result = _declared(library.held)
    except AttributeError as err:
        _log.debug('native mass matrix: %s', err)
        return None
    count = ctypes.c_int()

    def mass_matrix(body: int, positions: np.ndarray, size: int) -> np.ndarray | None:
        command = init(handle, body, positions.ctypes.data, len(positions))
        set_flags(command, 0)
        status = submit(handle, command)
        # false where the status is not a computed mass matrix
        if not result(handle, status, ctypes.byref(count), None) or count.value != size:
            return None
        matrix = np.empty((size, size))
        result(handle, status, None, matrix.ctypes.data)
        return matrix

    return mass_matrix


def _checked(native: NativeMassMatrix | None, body: int, positions: np.ndarray,
             expected: np.ndarray) -> NativeMassMatrix | None:
    """``native`` where it gives ``expected`` (pybullet's result) bit for bit, else None."""
    if native is None:
        return None
    matrix = native(body, positions, expected.shape[0])
    if matrix is None or matrix.tobytes() != expected.tobytes():
        _log.debug("native mass matrix of body %d differs from pybullet's: not used", body)
        return None
    return native


def _declared(held: ctypes.PyDLL) -> tuple[Any, ...]:
    """The C functions, typed (PhysicsClientC_API.h)."""
    handle, pointer, integer = ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int
    init = held.b3CalculateMassMatrixCommandInit
    init.argtypes, init.restype = [handle, integer, pointer, integer], handle
    set_flags = held.b3CalculateMassMatrixSetFlags
    set_flags.argtypes, set_flags.restype = [handle, integer], None
    submit = held.b3SubmitClientCommandAndWaitStatus
    submit.argtypes, submit.restype = [handle, handle], handle
    result = held.b3GetStatusMassMatrix
    result.argtypes, result.restype = [handle, handle, ctypes.POINTER(integer), pointer], integer
    return init, set_flags, submit, result


def _array(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """PyBullet's square matrix (a tuple of rows) as an array, faster than ``np.asarray``."""
    size = len(rows)
    return np.fromiter(chain.from_iterable(rows), np.float64, size * size).reshape(size, size)
