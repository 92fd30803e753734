"""SimRobotCore3's torque servo law (MuJoCo era) as array math, stable at every step length.

Reference: ``Src/SimRobotCore3/Simulation/Motors/ServoMotor.cpp`` and ``VelocityMotor.cpp`` of
bhuman/SimRobot (HEAD 2bf4e57; the same law since a21086e, 2025-09). Per step, before
integration::

    tau = clamp(p * (setpoint - q) - d * qdot_f, -maxForce, maxForce)
    qdot_f = f * qdot + (1 - f) * qdot_f_prev            (f = velocityLowPassFactor, default 1)

the set-point being the one commanded ``delay`` seconds earlier (ring buffer of
``ceil(delay / stepLength) + 1`` entries, initially the joint's initial position); ``i`` and
``maxVelocity`` are parsed but not used. A VelocityMotor applies ``clamp(0.2 * (v_set - qdot),
+-maxForce)``. MuJoCo adds to every servoed joint ``armature 0.01`` (kg*m^2 or kg, inertia of a
rotor that turns with the joint) and ``damping 0.01``; its Euler step is semi-implicit
(``v' = v + h * a``, ``q' = q + h * v'``), like PyBullet's.

How it is reproduced here (all per joint, vectorised over the servos of all entities):

- **Armature**: PyBullet has none, so :func:`with_armature` adds the inertia of a thin rotor
  disk (0.01 about the joint axis, 0.005 about the perpendicular axes) to the child link's
  inertia tensor. About the joint axis that is exactly MuJoCo's armature; unlike it, the extra
  inertia also turns when the whole link turns (the NAO gets 24 such disks: its falls are
  slightly slower than in SimRobot).
- **Damping 0.01**: added to the torque as ``-0.01 * qdot``.
- **The PD** is evaluated at the *end* of the step (backward Euler, "stable PD" of Tan et al.
  for all servos of an entity together): ``tau = p (e - h v') - d v'`` with
  ``v' = v + h W tau``, ``W`` the joints' block of the inverse mass matrix of the free-floating
  body (armature included; contacts only add inertia, so the prediction errs on the safe side),
  from the engine's mass matrix (:data:`MassMatrixSource`) every :data:`REFRESH_PERIOD` (30 ms;
  every step at longer steps; PyBullet's: ``sim/engines/pybullet/mass_matrix.py``).
  One linear solve per entity and step, ``(1 + h C W) tau = p e - c v`` (``c = p h + d +
  0.01``), then the clamp to ``maxForce``. This is stable for every gain and step (p = 200, d =
  5 at 5..100 ms) and converges to SimRobotCore3's explicit evaluation as ``h -> 0`` (within 2 %
  of its discrete step response at 1 ms, test_torque_servos.py). The explicit evaluation itself
  is not usable here: on the NAO at 12 ms it oscillates by 15 degrees even on joints whose
  one-joint step is stable, through the coupling of the links, and MuJoCo's own explicit step
  diverges for p = 200, d = 5 at 10 ms and for every NAO gain at 100 ms. Per-joint (diagonal)
  implicit evaluation is not enough either: the stiff gains then overshoot through the coupling.
- **Long steps** (over :data:`MAX_TORQUE_STEP`, e.g. 0.1 s) are split into physics sub-steps
  (:func:`substeps_for`; only in scenes with torque-law motors): the backward-Euler PD predicts
  the joints as if free, so under a load held by contacts its stiffness falls to about
  ``p / (1 + h c / m)``, and a humanoid with p = 200, d = 5 would sag at 0.1 s. Sensors, kinematic
  bodies and the scene's clock still advance once per scene step.
- The torque goes to PyBullet's ``TORQUE_CONTROL``; the joint's velocity motor is disabled
  (force 0).
- **All entities at once**: :meth:`TorqueServos.joined` makes one object of the servos of every
  entity of a world (a "block" each), whose step is array math over all rows of the world: the
  per-entity solves stacked (one numpy call for all entities with as many rows, e.g. 14 NAOs),
  the mass matrices inverted in one call per size. The entities' own objects then hold views
  of the joined arrays, so that resetting one entity resets its rows there. The numbers are
  those of one entity's evaluation bit for bit: a stacked ``inv`` or ``@`` runs the same
  LAPACK/BLAS routine on each matrix, and the rest is elementwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from scene_sim_ros.scene import Joint, Link, Scene, ServoMotor, VelocityMotor
from scene_sim_ros.scene.motors import TORQUE_LAW

ARMATURE = 0.01  # kg*m^2 (hinge) or kg (slider), SimRobotCore3 ServoMotor::act
DAMPING = 0.01  # N*m*s/rad or N*s/m
VELOCITY_GAIN = 0.2  # SimRobotCore3 VelocityMotor: MuJoCo velocity actuator kv
EXACT_HALF_LIFE = 0.1  # s: slower-decaying explicit steps are evaluated implicitly
MAX_TORQUE_STEP = 0.0125  # s: longer scene steps are split into physics sub-steps
REFRESH_PERIOD = 0.03  # s between mass-matrix updates (at least one per step)

MassMatrixSource = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""An engine's mass matrix of one entity: the positions of its movable joints (in their order)
-> (the mass matrix of its free-floating body, armature included; the indices in that matrix of
the entity's rows, in row order)."""


def is_torque_controlled(joint: Joint | None) -> bool:
    """Whether ``joint`` has a motor with SimRobotCore3's torque law."""
    motor = None if joint is None else joint.motor
    return isinstance(motor, (ServoMotor, VelocityMotor)) and motor.control == TORQUE_LAW


def with_armature(link: Link, joint: Joint | None) -> Link:
    """``link`` with the armature of its parent ``joint`` added to its inertia (about the
    joint's axis, given in the link frame) when that joint is torque controlled."""
    if not is_torque_controlled(joint) or joint is None or joint.type not in ('revolute',
                                                                                 'continuous'):
        return link  # a slider's armature (kg) would be a mass: not reproduced
    ax, ay, az = joint.axis
    norm = math.sqrt(ax * ax + ay * ay + az * az) or 1.0
    ax, ay, az = ax / norm, ay / norm, az / norm
    xx, xy, xz, yy, yz, zz = link.inertial.inertia
    # a thin rotor disk: a about the axis, a / 2 about the perpendicular axes (a tensor of
    # a * axis axis^T alone would break the triangle inequality PyBullet checks)
    half = ARMATURE / 2.0
    tensor = (xx + half + half * ax * ax, xy + half * ax * ay, xz + half * ax * az,
              yy + half + half * ay * ay, yz + half * ay * az, zz + half + half * az * az)
    return replace(link, inertial=replace(link.inertial, inertia=tensor))


def spectral_radius(p: np.ndarray, c: np.ndarray, inertia: np.ndarray, h: float) -> np.ndarray:
    """Spectral radius of one joint's explicit semi-implicit Euler step under
    ``tau = -p q - c v`` (MuJoCo's evaluation of the law)."""
    a11 = 1.0 - h * h * p / inertia
    a22 = 1.0 - h * c / inertia
    a12 = h * a22
    a21 = -h * p / inertia
    trace = a11 + a22
    det = a11 * a22 - a12 * a21
    disc = trace * trace - 4.0 * det
    root = np.sqrt(np.abs(disc))
    real = np.maximum(np.abs(trace + root), np.abs(trace - root)) / 2.0
    return np.where(disc >= 0.0, real, np.sqrt(np.abs(det)))


def substeps_for(scene: Scene) -> int:
    """Physics sub-steps per scene step: 1, or enough to keep steps of at most
    :data:`MAX_TORQUE_STEP` when an entity has a torque-law motor (the stable PD predicts the
    joints without their contacts, so it softens under load as ``h`` grows)."""
    step = float(scene.step_length)
    if step <= MAX_TORQUE_STEP * 1.0001:
        return 1
    if not any(is_torque_controlled(j) for e in scene.entities for j in e.joints):
        return 1
    return math.ceil(step / MAX_TORQUE_STEP - 1e-9)


_ROW_ARRAYS = ('p', 'd', 'max_force', 'delay', 'filter', 'is_velocity_motor', 'c', 'gain',
               'exact', 'filtered_velocity')
"""The per-row arrays of :class:`TorqueServos` (a joined object's: its parts' concatenated)."""


class _SizeGroup:
    """The blocks (entities) of a :class:`TorqueServos` with the same number of rows, their
    matrices stacked so that one numpy call serves them all."""

    def __init__(self, blocks: np.ndarray, rows: np.ndarray, mobility: np.ndarray):
        self.blocks = blocks  # (G,) their block numbers
        self.rows = rows  # (G, size) their rows
        self.mobility = mobility  # (G, size, size) W, the rows' block of the inverse mass matrix
        self.solver = np.zeros_like(mobility)  # (1 + h C W)^-1 where solver_valid
        self.solver_valid = np.zeros(len(blocks), dtype=bool)  # False once W or C changed
        self.flat = _contiguous(rows.ravel())  # the same rows, a slice where they can be

    @property
    def size(self) -> int:
        return int(self.rows.shape[1])


class TorqueServos:
    """SimRobotCore3 torque law for the torque-controlled joints ("rows", positions in the
    joint arrays) of one entity, or of all entities of a world (:meth:`joined`), evaluated as
    array math over all rows with one linear solve per entity ("block")."""

    def __init__(self, joints: Sequence[Joint], step_length: float):
        self.step_length = h = step_length
        rows, p, d, force, delay, filt, velocity = _servo_parameters(joints, h)
        self.rows = np.array(rows, dtype=int)
        self.p = np.array(p, dtype=float)
        self.d = np.array(d, dtype=float)
        self.max_force = np.array(force, dtype=float)
        self.delay = np.array(delay, dtype=int)
        self.filter = np.array(filt, dtype=float)
        self.is_velocity_motor = np.array(velocity, dtype=bool)
        n = len(rows)
        self.c = self.p * h + self.d * self.filter + DAMPING
        self.gain = self.p.copy()
        self.exact = np.zeros(n, dtype=bool)
        self.filtered_velocity = np.zeros(n)
        self.history = np.zeros((int(self.delay.max()) + 1 if n else 1, n))  # [0]: newest
        blocks = 1 if n else 0
        self.block_start = np.zeros(blocks, dtype=int)
        self.block_size = np.full(blocks, n)
        self.joint_start = np.zeros(blocks, dtype=int)
        self.joint_count = np.full(blocks, len(joints))
        self.steps = np.zeros(blocks, dtype=int)  # physics steps per block since its reset
        self.refresh_steps = np.full(blocks, max(1, round(REFRESH_PERIOD / h)))
        self.sources: list[MassMatrixSource | None] = [None] * blocks
        self.groups = [_SizeGroup(np.zeros(1, dtype=int), np.arange(n)[None, :],
                                  (np.eye(n) / ARMATURE)[None])] if n else []
        self._derive()
        self.reset(np.zeros(len(joints)))

    def __len__(self) -> int:
        return len(self.rows)

    def reset(self, initial_positions: np.ndarray) -> None:
        """Set-points of the last steps at the rows' ``initial_positions`` (one per joint),
        the velocity filter at rest, the mass matrix due at the next step."""
        start = np.asarray(initial_positions, dtype=float)[self.rows]
        self.history[...] = start
        self.filtered_velocity[...] = 0.0
        self.steps[...] = 0

    def set_mass_matrix_source(self, source: MassMatrixSource) -> None:
        """Where an entity's object gets its mass matrix from (before it is joined)."""
        self.sources = [source] * len(self.block_size)
        self._has_source = np.ones(len(self.sources), dtype=bool)

    # -- a world of entities -----------------------------------------------------------------
    @classmethod
    def joined(cls, parts: Sequence[TorqueServos], joint_offsets: Sequence[int],
               step_length: float) -> TorqueServos:
        """One object for the servos of several entities: ``parts`` (one per entity, its joints
        starting at ``joint_offsets`` in the joined joint arrays) with their state; the parts
        then hold views of the joined arrays, so that their :meth:`reset` reaches it."""
        used = [(part, int(offset)) for part, offset in zip(parts, joint_offsets) if len(part)]
        if not used:
            return cls((), step_length)
        pieces = [part for part, _ in used]
        world = cls.__new__(cls)
        world.step_length = step_length
        world.rows = np.concatenate([part.rows + offset for part, offset in used])
        for name in _ROW_ARRAYS:
            setattr(world, name, np.concatenate([getattr(part, name) for part in pieces]))
        world.history = _stacked_history([part.history for part in pieces])
        row_starts = np.cumsum([0] + [len(part) for part in pieces]).tolist()
        block_starts = np.cumsum([0] + [len(part.block_size) for part in pieces]).tolist()
        world.block_start = np.concatenate([part.block_start + start
                                            for part, start in zip(pieces, row_starts)])
        world.joint_start = np.concatenate([part.joint_start + offset for part, offset in used])
        for name in ('block_size', 'joint_count', 'steps', 'refresh_steps'):
            setattr(world, name, np.concatenate([getattr(part, name) for part in pieces]))
        world.sources = [source for part in pieces for source in part.sources]
        world.groups, placed = _joined_groups(pieces, row_starts, block_starts)
        world._derive()
        for part, row, block, where in zip(pieces, row_starts, block_starts, placed):
            part._adopt(world, row, block, where)
        return world

    def _adopt(self, world: TorqueServos, first_row: int, first_block: int,
               placed: list[tuple[_SizeGroup, int]]) -> None:
        """Hold views of ``world``'s arrays from then on (this object's rows start at
        ``first_row`` there, its blocks at ``first_block``; its groups at ``placed``)."""
        rows = slice(first_row, first_row + len(self))
        for name in _ROW_ARRAYS:
            setattr(self, name, getattr(world, name)[rows])
        self.history = world.history[:self.history.shape[0], rows]
        self.steps = world.steps[first_block:first_block + len(self.block_size)]
        for group, (joined, at) in zip(self.groups, placed):
            stack = slice(at, at + len(group.blocks))
            group.mobility = joined.mobility[stack]
            group.solver = joined.solver[stack]
            group.solver_valid = joined.solver_valid[stack]

    def _derive(self) -> None:
        """What the step needs to know about the rows, worked out once."""
        self.max_delay = int(self.delay.max()) if len(self) else 0
        self._columns = np.arange(len(self))
        self._gather = _contiguous(self.rows)  # the rows, a slice (views) where they can be
        self._force_floor = -self.max_force
        filtered = np.logical_or.reduceat(self.filter < 1.0, self.block_start) \
            if len(self.block_start) else np.zeros(0, dtype=bool)
        self._filtered_rows = _selection(np.repeat(filtered, self.block_size))
        self._velocity_rows = _selection(self.is_velocity_motor)
        self._has_source = np.array([source is not None for source in self.sources], dtype=bool)
        self._block_place: dict[int, tuple[_SizeGroup, int]] = {
            int(block): (group, slot) for group in self.groups
            for slot, block in enumerate(group.blocks)}

    # -- one step ----------------------------------------------------------------------------
    def torques(self, active: np.ndarray, setpoints: np.ndarray, velocity_targets: np.ndarray,
                positions: np.ndarray, velocities: np.ndarray) -> np.ndarray:
        """The torques of all rows (0 where not ``active``, a mask over all joints) for the next
        step; advances the set-point ring buffer, the velocity filter and the mass-matrix
        schedule (call once per physics step)."""
        self._refresh_mobility(positions)
        rows = self._gather
        setpoint = self._delayed(setpoints[rows])
        q = positions[rows]
        v = velocities[rows]
        # backward Euler: the PD (and the damping) at v' = v + h W tau, the velocity filter
        # taking v' as its newest sample: (1 + h C W) tau = p e + d (ref - (1 - f) vf) - c v
        rhs = self.gain * (setpoint - q) - self.c * v
        self._filter_velocities(v, rhs)
        motor = self._velocity_rows
        if motor is not None:
            rhs[motor] = (self.d[motor] * velocity_targets[self.rows[motor]]
                          - self.c[motor] * v[motor])
        mask = active[rows]
        tau = self._solve(mask, rhs)
        # clamp the motor's part (the damping 0.01 is the joint's, outside the clamp)
        tau = np.clip(tau + DAMPING * v, self._force_floor, self.max_force) - DAMPING * v
        tau[~mask] = 0.0
        return tau

    def _delayed(self, newest: np.ndarray) -> np.ndarray:
        """Each row's set-point of ``delay`` steps ago, ``newest`` entering the ring buffer."""
        if not self.max_delay:
            return newest
        history = self.history
        history[1:] = history[:-1]  # in place: the entities' objects hold views of it
        history[0] = newest
        return history[self.delay, self._columns]

    def _filter_velocities(self, v: np.ndarray, rhs: np.ndarray) -> None:
        """SimRobotCore3's velocity low-pass, in the entities that have one: its previous
        output enters the right-hand side, ``v`` the filter."""
        rows = self._filtered_rows
        if rows is None:
            return
        f = self.filter[rows]
        previous = self.filtered_velocity[rows].copy()
        self.filtered_velocity[rows] = f * v[rows] + (1.0 - f) * previous
        rhs[rows] -= self.d[rows] * (1.0 - f) * previous

    def _solve(self, mask: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """``(1 + h C W) tau = rhs`` per block over its active rows (0 elsewhere): the fully
        active blocks of each size stacked, the partly active ones one by one (not cached)."""
        tau = np.zeros(len(rhs))
        if mask.all():
            for group in self.groups:
                self._update_solvers(group)
                stack = rhs[group.flat].reshape(group.rows.shape)
                tau[group.flat] = (group.solver @ stack[..., None]).ravel()
            return tau
        if not mask.any():
            return tau
        counts = np.add.reduceat(mask, self.block_start, dtype=int)
        full = counts == self.block_size
        for group in self.groups:
            chosen = np.flatnonzero(full[group.blocks])
            if len(chosen):
                self._solve_stacked(group, chosen, rhs, tau)
        for block in np.flatnonzero((counts > 0) & ~full).tolist():
            self._solve_partly_active(block, mask, rhs, tau)
        return tau

    def _solve_stacked(self, group: _SizeGroup, chosen: np.ndarray, rhs: np.ndarray,
                       tau: np.ndarray) -> None:
        self._update_solvers(group)
        rows = group.rows[chosen]
        tau[rows] = (group.solver[chosen] @ rhs[rows][..., None])[..., 0]

    def _update_solvers(self, group: _SizeGroup) -> None:
        """``(1 + h C W)^-1`` of the group's blocks whose W or C changed (one call for all)."""
        stale = np.flatnonzero(~group.solver_valid)
        if not len(stale):
            return
        c = self.c[group.rows[stale]]
        systems = np.eye(group.size) + (self.step_length * c)[:, :, None] * group.mobility[stale]
        group.solver[stale] = _inverses(systems)
        group.solver_valid[stale] = True

    def _solve_partly_active(self, block: int, mask: np.ndarray, rhs: np.ndarray,
                             tau: np.ndarray) -> None:
        group, slot = self._block_place[block]
        rows = group.rows[slot]
        active = mask[rows]
        mobility = group.mobility[slot][np.ix_(active, active)]
        c = self.c[rows][active]
        system = np.eye(len(c)) + (self.step_length * c)[:, None] * mobility
        tau[rows[active]] = _inverse(system) @ rhs[rows][active]

    # -- the mass matrix ---------------------------------------------------------------------
    def _refresh_mobility(self, positions: np.ndarray) -> None:
        """W of each block with a mass-matrix source every ``refresh_steps`` of its steps, the
        equally large matrices inverted together."""
        due = self.steps % self.refresh_steps == 0
        self.steps += 1
        if not due.any():
            return
        due &= self._has_source
        for group in self.groups:
            slots = np.flatnonzero(due[group.blocks])
            if len(slots):
                masses = [self._mass_matrix(block, positions)
                          for block in group.blocks[slots].tolist()]
                self._set_mobility(group, slots, mobilities(masses))

    def _mass_matrix(self, block: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        source = self.sources[block]
        assert source is not None
        start = self.joint_start[block]
        return source(positions[start:start + self.joint_count[block]])

    def _set_mobility(self, group: _SizeGroup, slots: np.ndarray, mobility: np.ndarray) -> None:
        group.mobility[slots] = mobility
        group.solver_valid[slots] = False
        self._choose_gains(group.rows[slots].ravel(),
                           np.diagonal(mobility, axis1=1, axis2=2).ravel())

    def _choose_gains(self, rows: np.ndarray, mobility: np.ndarray) -> None:
        """Per row (``mobility``: its W_kk): SimRobotCore3's explicit step reproduced exactly
        (in the one-joint model of inertia ``m = 1 / W_kk``) where that step is well damped,
        else backward Euler.

        The implicit form ``(m + h^2 p' + h d') v' = m v + h p' e`` equals the explicit
        ``m v' = m v + h (p e - d v)`` for ``p' = p / k``, ``d' = (d - h p) / k``,
        ``k = 1 - h d / m``; then ``c = p' h + d' = d / k``.
        """
        h = self.step_length
        m = 1.0 / np.maximum(mobility, 1e-12)
        p = self.p[rows]
        d = self.d[rows] * self.filter[rows] + DAMPING
        kappa = 1.0 - h * d / m
        radius = spectral_radius(p, d, m, h)
        # well damped: stable, and a disturbance halves within EXACT_HALF_LIFE
        exact = (kappa > 0.05) & (radius < 1.0) & (
            radius ** (EXACT_HALF_LIFE / h) <= 0.5)
        safe_kappa = np.where(exact, kappa, 1.0)
        self.exact[rows] = exact
        self.gain[rows] = np.where(exact, p / safe_kappa, p)
        self.c[rows] = np.where(exact, d / safe_kappa, p * h + d)


def mobilities(masses: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """W, the block of ``M^-1`` at ``dofs``, for each ``(M, dofs)`` (all of as many ``dofs``),
    stacked: the inverses of equally large matrices in one call, the blocks at equal ``dofs``
    taken out in one; a singular M gives the inverse of its diagonal there."""
    size = len(masses[0][1])
    alike: dict[tuple[tuple[int, ...], bytes], list[int]] = {}
    for index, (matrix, dofs) in enumerate(masses):
        alike.setdefault((matrix.shape, dofs.tobytes()), []).append(index)
    if len(alike) == 1:  # all entities alike (14 NAOs)
        return _alike_mobilities(masses)
    out = np.empty((len(masses), size, size))
    for members in alike.values():
        out[members] = _alike_mobilities([masses[k] for k in members])
    return out


def _alike_mobilities(masses: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """:func:`mobilities` of matrices of one size with the same ``dofs``."""
    dofs = masses[0][1]
    try:
        inverses = np.linalg.inv(np.stack([matrix for matrix, _ in masses]))
    except np.linalg.LinAlgError:
        return np.array([_mobility(matrix, dofs) for matrix, _ in masses])
    return inverses[:, dofs[:, None], dofs]


def _mobility(matrix: np.ndarray, dofs: np.ndarray) -> np.ndarray:
    """W of one mass matrix; where it is singular, the inverse of its diagonal."""
    try:
        inverse = np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return np.diag(1.0 / np.maximum(np.diag(matrix)[dofs], 1e-12))
    return inverse[np.ix_(dofs, dofs)]


def _inverses(matrices: np.ndarray) -> np.ndarray:
    """The inverses of a stack of matrices (one LAPACK call per matrix, as for one); a
    singular one's is that of its diagonal."""
    try:
        return np.linalg.inv(matrices)
    except np.linalg.LinAlgError:
        return np.array([_inverse(matrix) for matrix in matrices])


def _inverse(matrix: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return np.diag(1.0 / np.diag(matrix))


def _joined_groups(parts: Sequence[TorqueServos], row_starts: Sequence[int],
                   block_starts: Sequence[int]) -> tuple[list[_SizeGroup],
                                                         list[list[tuple[_SizeGroup, int]]]]:
    """The parts' blocks grouped by size, their matrices stacked; and for each part where its
    groups went (the joined group, the position of its first block there)."""
    members: dict[int, list[tuple[int, _SizeGroup]]] = {}
    for index, part in enumerate(parts):
        for group in part.groups:
            members.setdefault(group.size, []).append((index, group))
    placed: list[list[tuple[_SizeGroup, int]]] = [[] for _ in parts]
    joined_groups = []
    for items in members.values():
        joined = _SizeGroup(
            np.concatenate([group.blocks + block_starts[index] for index, group in items]),
            np.concatenate([group.rows + row_starts[index] for index, group in items]),
            np.concatenate([group.mobility for _, group in items]))
        joined.solver[...] = np.concatenate([group.solver for _, group in items])
        joined.solver_valid[...] = np.concatenate([group.solver_valid for _, group in items])
        at = 0
        for index, group in items:
            placed[index].append((joined, at))
            at += len(group.blocks)
        joined_groups.append(joined)
    return joined_groups, placed


def _contiguous(indices: np.ndarray) -> slice | np.ndarray:
    """``indices``, as a slice where they are consecutive (indexing then gives views)."""
    if len(indices) and np.array_equal(indices, np.arange(indices[0], indices[0] + len(indices))):
        return slice(int(indices[0]), int(indices[0]) + len(indices))
    return indices


def _selection(mask: np.ndarray) -> slice | np.ndarray | None:
    """An index for the rows of ``mask``: None for none, ``slice(None)`` for all."""
    if not mask.any():
        return None
    return slice(None) if mask.all() else np.flatnonzero(mask)


def _stacked_history(histories: Sequence[np.ndarray]) -> np.ndarray:
    """The parts' set-point ring buffers side by side (as deep as the deepest; a shallower
    one's extra rows are never read)."""
    depth = max(history.shape[0] for history in histories)
    out = np.zeros((depth, sum(history.shape[1] for history in histories)))
    at = 0
    for history in histories:
        out[:history.shape[0], at:at + history.shape[1]] = history
        at += history.shape[1]
    return out


def _servo_parameters(joints: Sequence[Joint], h: float) -> tuple[list[Any], ...]:
    """(rows, p, d, max force, delay in steps, velocity filter, is velocity motor) of the
    torque-controlled ``joints``."""
    rows: list[int] = []
    p: list[float] = []
    d: list[float] = []
    force: list[float] = []
    delay: list[int] = []
    filt: list[float] = []
    velocity: list[bool] = []
    for k, joint in enumerate(joints):
        if not is_torque_controlled(joint):
            continue
        motor = joint.motor
        rows.append(k)
        assert isinstance(motor, (ServoMotor, VelocityMotor))  # is_torque_controlled
        force.append(motor.max_force)
        if isinstance(motor, ServoMotor):
            p.append(motor.p)
            d.append(motor.d)
            delay.append(max(0, math.ceil(motor.delay / h - 1e-9)))
            filt.append(min(max(motor.velocity_filter, 0.0), 1.0))
            velocity.append(False)
        else:
            p.append(0.0)
            d.append(VELOCITY_GAIN)
            delay.append(0)
            filt.append(1.0)
            velocity.append(True)
    return rows, p, d, force, delay, filt, velocity
