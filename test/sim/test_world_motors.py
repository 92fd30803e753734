"""The motors of a world evaluated as one (scene_sim_ros.sim.motors.WorldMotors) give the numbers
of each entity's own evaluation (MotorBank.output), bit for bit: every law, the stacked torque
servo solves (entities of equal and of different sizes), the mass-matrix schedule, partly active
torque servos, resets of one entity, and a world joined anew when entities come or go."""

from __future__ import annotations

import numpy as np

from scene_sim_ros.scene import Joint, PT2Motor, ServoMotor, VelocityMotor
from scene_sim_ros.scene.motors import TORQUE_LAW
from scene_sim_ros.sim.motors import MotorBank, WorldMotors

STEP = 0.012


def core3(p: float, d: float, **extra: float) -> ServoMotor:
    return ServoMotor(max_velocity=5.0, max_force=3.0, p=p, d=d, control=TORQUE_LAW, **extra)


def joint(name: str, motor=None, **extra) -> Joint:
    return Joint(name, 'revolute', 'a', name, limits=(-1.5, 1.5), motor=motor, **extra)


def humanoid_joints(gain: float) -> list[Joint]:
    """Torque servos (one delayed and filtered), a Core3 velocity motor, a Core2 servo."""
    return [joint('j0', core3(gain, 0.5)),
            joint('j1', core3(2.0 * gain, 1.0, delay=0.03, velocity_filter=0.6)),
            joint('j2', core3(gain, 5.0)),
            joint('j3', VelocityMotor(max_velocity=4.0, max_force=2.0, control=TORQUE_LAW)),
            joint('j4', ServoMotor(max_velocity=2.0, max_force=1.0, p=8.0, i=0.5, d=0.01),
                  initial_position=0.2)]


def gadget_joints() -> list[Joint]:
    """No torque servos: PT2, a velocity motor, passive joints with and without an effort."""
    return [joint('k0', PT2Motor(t=0.05, d=0.7, k=1.0, v=3.0, f=2.0)),
            joint('k1', VelocityMotor(max_velocity=1.0, max_force=1.0)),
            joint('k2', friction=0.3),
            joint('k3', max_effort=2.0)]


def entities() -> list[list[Joint]]:
    """Three humanoids of the same size (stacked solves; the last on a fixed base: a smaller
    mass matrix), a larger one, a gadget."""
    return [humanoid_joints(40.0), humanoid_joints(60.0), humanoid_joints(45.0),
            humanoid_joints(50.0) + [joint('j5', core3(30.0, 1.0))], gadget_joints()]


def mass_matrix(seed: int, rows: np.ndarray):
    """A mass-matrix source: a free base (6 dofs; none for seed 2) and the servo ``rows``,
    depending on their positions."""
    base_dofs = 0 if seed == 2 else 6
    size = base_dofs + len(rows)
    base = np.random.default_rng(seed).normal(size=(size, size))
    dofs = np.arange(base_dofs, size)

    def source(positions: np.ndarray):
        matrix = base @ base.T + size * np.eye(size)
        matrix[base_dofs:, base_dofs:] += np.diag(np.cos(positions[rows]) ** 2)
        return matrix, dofs
    return source


def banks() -> list[MotorBank]:
    made = [MotorBank(joints, STEP) for joints in entities()]
    for seed, bank in enumerate(made):
        if len(bank.torque):
            bank.torque.set_mass_matrix_source(mass_matrix(seed, bank.torque.rows))
    return made


def command(step: int, bank: MotorBank) -> None:
    """Commands that move every mode around: torque servos partly effort-commanded, velocity
    commands, position commands that reset controllers."""
    if step == 3:
        bank.command(bank.names[0], effort=0.5)
    if step == 5 and 'j3' in bank.index:
        bank.command('j3', velocity=1.5)
    if step == 7:
        bank.command(bank.names[0], position=0.4)
    if step == 9 and 'k1' in bank.index:
        bank.command('k1', velocity=-0.5)
        bank.command('k2', effort=0.2)
    if step == 11:
        bank.reset()


def test_world_output_equals_each_entity_output():
    own, joined = banks(), banks()
    world = WorldMotors(joined, STEP)
    offsets = world.offsets
    rng = np.random.default_rng(7)
    for step in range(16):
        if step == 12:  # an entity came or went: the world is joined anew
            world = WorldMotors(joined, STEP)
        for bank in (*own, *joined):
            command(step, bank)
        positions = rng.normal(scale=0.5, size=offsets[-1])
        velocities = rng.normal(size=offsets[-1])
        outputs = [bank.output(positions[a:b], velocities[a:b])
                   for bank, a, b in zip(own, offsets, offsets[1:])]
        out = world.output(positions, velocities)
        np.testing.assert_array_equal(out.velocities,
                                      np.concatenate([o.velocities for o in outputs]))
        np.testing.assert_array_equal(out.forces, np.concatenate([o.forces for o in outputs]))
        expected = {int(a + k): e for o, a in zip(outputs, offsets)
                    for k, e in zip(o.effort_joints, o.efforts)}
        assert dict(zip(out.effort_joints.tolist(), out.efforts)) == expected
        for mine, theirs in zip(own, joined):
            np.testing.assert_array_equal(mine.efforts(np.zeros(len(mine.mode))),
                                          theirs.efforts(np.zeros(len(theirs.mode))))


def test_banks_see_the_world_state():
    joined = banks()
    world = WorldMotors(joined, STEP)
    joined[1].command('j2', position=0.7)
    assert world.position_target[world.offsets[1] + 2] == 0.7
    world.output(np.zeros(world.offsets[-1]), np.zeros(world.offsets[-1]))
    joined[1].reset()
    start = world.offsets[1]
    assert world.position_target[start + 2] == 0.0
    assert list(world.torque.steps) == [1, 0, 1, 1]
