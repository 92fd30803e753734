"""The motors of all entities of a PyBullet world as one: per physics step the joint states of
every body read in one pass, the motor laws evaluated once for every joint of the world
(:class:`~scene_sim_ros.sim.motors.WorldMotors`), and per body one call for the velocity
motors and one for the torques. Built anew when entities come or go."""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

import numpy as np
import pybullet as pb

from scene_sim_ros.sim.engines.pybullet.built_entity import BuiltEntity
from scene_sim_ros.sim.motors import PASSIVE, MotorOutput, WorldMotors
from scene_sim_ros.sim.simulator import JointSample

_POSITION, _VELOCITY, _APPLIED = itemgetter(0), itemgetter(1), itemgetter(3)
"""Fields of a ``getJointStates`` entry: (position, velocity, reaction wrench, applied)."""

_Send = tuple[int, list[int], int, int, list[int], int, int]
"""(body, its joint indices, their slots a:b, its torque-controlled joint indices, their
efforts' slots ta:tb)."""


class MotorWorld:
    """The entities with movable joints, in ``entities``' order; their joints in that order
    make the world's joint arrays (:attr:`slices`: each entity's part)."""

    def __init__(self, client: int, entities: Iterable[BuiltEntity], step_length: float):
        self.client = client
        built = [entity for entity in entities if entity.joint_indices]
        self.motors = WorldMotors([entity.motors for entity in built], step_length)
        starts = self.motors.offsets.tolist()
        self.slices = {entity.name: slice(a, b)
                       for entity, a, b in zip(built, starts, starts[1:])}
        self._entity_starts = self.motors.offsets[:-1]
        self._bodies: list[tuple[int, list[int], int, int, int]] = []
        """(body, its joint indices, their slots a:b, entity number): the joints by body."""
        slots: list[int] = []  # the world joint of each slot
        for number, entity in enumerate(built):
            for body, indices, ks in entity.joint_groups():
                self._bodies.append((body, indices, len(slots), len(slots) + len(indices),
                                     number))
                slots.extend(starts[number] + k for k in ks)
        self._count = len(slots)
        self._slot_joints = None if slots == list(range(len(slots))) else np.array(slots)
        self._sends: list[_Send] = []
        self._effort_order = np.zeros(0, dtype=int)
        self._planned_modes: bytes | None = None
        self._last_sent: bytes | None = None  # the targets' and forces' bytes sent last

    def read(self) -> JointSample:
        """Positions, velocities and applied efforts of every joint of the world, read-only."""
        states: list[tuple[float, float, tuple[float, ...], float]] = []
        client = self.client
        for body, indices, _, _, _ in self._bodies:
            states += pb.getJointStates(body, indices, physicsClientId=client)
        return (self._joint_array(map(_POSITION, states)),
                self._joint_array(map(_VELOCITY, states)),
                self._joint_array(map(_APPLIED, states)))

    def _joint_array(self, values: Iterable[float]) -> np.ndarray:
        out = np.fromiter(values, np.float64, self._count)
        if self._slot_joints is not None:  # an entity of several bodies: slots != joints
            joints = np.empty_like(out)
            joints[self._slot_joints] = out
            out = joints
        out.flags.writeable = False
        return out

    def apply(self, positions: np.ndarray, velocities: np.ndarray) -> None:
        """One step of every motor: the laws over all joints, then the velocity targets and
        torques sent body by body (entities without an active motor are left alone)."""
        out = self.motors.output(positions, velocities)
        modes = self.motors.mode.tobytes()
        if modes != self._planned_modes:  # which joints take torques follows from the modes
            self._plan(out)
            self._planned_modes = modes
        self._send_velocity_targets(out)
        self._send_torques(out)

    def _send_velocity_targets(self, out: MotorOutput) -> None:
        """The velocity motors' targets and forces of the bodies where they changed. PyBullet
        keeps them until set again, and nothing else sets them while the world stands, so
        sending the same again would change nothing: a NAO, all of whose joints are torque
        servos, would get the same zeros every step."""
        targets, forces = out.velocities, out.forces
        if self._slot_joints is not None:
            targets, forces = targets[self._slot_joints], forces[self._slot_joints]
        sent = targets.tobytes() + forces.tobytes()
        last = self._last_sent
        if sent == last:
            return
        half = len(sent) // 2
        targets_list, forces_list = targets.tolist(), forces.tolist()
        client = self.client
        for body, indices, a, b, _, _, _ in self._sends:
            if last is not None and sent[8 * a:8 * b] == last[8 * a:8 * b] and \
                    sent[half + 8 * a:half + 8 * b] == last[half + 8 * a:half + 8 * b]:
                continue
            pb.setJointMotorControlArray(body, indices, pb.VELOCITY_CONTROL,
                                         targetVelocities=targets_list[a:b],
                                         forces=forces_list[a:b], physicsClientId=client)
        self._last_sent = sent

    def _send_torques(self, out: MotorOutput) -> None:
        """The torques of the effort-commanded joints and torque-law motors (PyBullet forgets
        them after each physics step)."""
        efforts = out.efforts[self._effort_order].tolist()
        client = self.client
        for body, _, _, _, torque_indices, ta, tb in self._sends:
            if torque_indices:
                pb.setJointMotorControlArray(body, torque_indices, pb.TORQUE_CONTROL,
                                             forces=efforts[ta:tb], physicsClientId=client)

    def _plan(self, out: MotorOutput) -> None:
        """The calls of :meth:`apply` for these modes: the bodies of entities with an active
        motor, and the efforts of ``out`` put in their bodies' order."""
        active = np.logical_or.reduceat(self.motors.mode != PASSIVE, self._entity_starts) \
            if len(self._entity_starts) else np.zeros(0, dtype=bool)
        slot_of_joint = np.arange(self._count)
        if self._slot_joints is not None:
            slot_of_joint[self._slot_joints] = np.arange(self._count)
        effort_slots = slot_of_joint[out.effort_joints]
        self._effort_order = np.argsort(effort_slots, kind='stable')
        sorted_slots = effort_slots[self._effort_order]
        self._sends = []
        self._last_sent = None  # send every body's
        for body, indices, a, b, entity in self._bodies:
            if not active[entity]:
                continue
            ta, tb = np.searchsorted(sorted_slots, [a, b]).tolist()
            torque_indices = [indices[slot - a] for slot in sorted_slots[ta:tb].tolist()]
            self._sends.append((body, indices, a, b, torque_indices, ta, tb))
