"""SimRobotCore3's torque servo law against its discrete closed form on both engines (the
PyBullet engine's backward-Euler form, scene_sim_ros.sim.torque_servos; the MuJoCo engine's
explicit one, scene_sim_ros.sim.explicit_servos, as Core3 evaluates it), and the PyBullet form's
stability at the gains and steps SimRobot files use, where Core3's explicit law diverges."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from scene_sim_ros.scene import (
    Box,
    Collision,
    Entity,
    Inertial,
    Joint,
    Link,
    Plane,
    Pose,
    Scene,
    ServoMotor,
    VelocityMotor,
)
from scene_sim_ros.scene.inertia import box_inertia
from scene_sim_ros.scene.motors import TORQUE_LAW
from scene_sim_ros.sim.torque_servos import ARMATURE, DAMPING


def core3_servo(p: float, d: float, max_force: float = 100.0, **extra) -> ServoMotor:
    return ServoMotor(max_velocity=10.0, max_force=max_force, p=p, d=d, control=TORQUE_LAW,
                      **extra)


def turntable(inertia: float, motor, step: float) -> Scene:
    """One link turning about a vertical axis through its centre of mass (no gravity torque)."""
    base = Link('base')
    disk = Link('disk', Inertial(1.0, (0.0, 0.0, 0.0), (inertia, 0.0, 0.0, inertia, 0.0,
                                                          inertia)))
    hinge = Joint('hinge', 'revolute', 'base', 'disk', axis=(0.0, 0.0, 1.0), motor=motor)
    entity = Entity('table', 'robot', (base, disk), (hinge,), fixed_base=True,
                    pose=Pose((0.0, 0.0, 1.0)))
    return Scene('turntable', (entity,), step_length=step)


def law_c(inertia: float, p: float, d: float, max_force: float, step: float, setpoint: float,
          steps: int, delay_steps: int = 0) -> np.ndarray:
    """SimRobotCore3's discrete step (MuJoCo Euler, armature and implicit damping 0.01):
    ``(I + a + h b) v' = (I + a) v + h clamp(p (s - q) - d v)``, ``q' = q + h v'``."""
    q = v = 0.0
    total = inertia + ARMATURE
    out = []
    for k in range(steps):
        target = setpoint if k >= delay_steps else 0.0
        tau = min(max(p * (target - q) - d * v, -max_force), max_force)
        v = (total * v + step * tau) / (total + step * DAMPING)
        q += step * v
        out.append(q)
    return np.array(out)


def simulate(make_sim, scene: Scene, setpoint: float, steps: int) -> np.ndarray:
    with make_sim(scene) as sim:
        sim.command('table', 'hinge', position=setpoint)
        out = []
        for _ in range(steps):
            sim.step()
            out.append(sim.joint_states('table')['hinge'][0])
    return np.array(out)


@pytest.mark.parametrize('inertia, p, d', [(0.01, 40.0, 0.5), (0.0005, 40.0, 2.0),
                                           (0.05, 200.0, 5.0)])
def test_step_response_matches_the_discrete_law(make_sim, inertia, p, d):
    # At 1 ms the stable (backward-Euler) evaluation of the PyBullet engine agrees with
    # SimRobotCore3's explicit one (the MuJoCo engine's): the whole trajectory within 2 % of the
    # step height.
    step, setpoint, steps = 0.001, 0.5, 600
    simulated = simulate(make_sim, turntable(inertia, core3_servo(p, d), step), setpoint, steps)
    expected = law_c(inertia, p, d, 100.0, step, setpoint, steps)
    assert np.max(np.abs(simulated - expected)) < 0.02 * setpoint
    assert simulated[-1] == pytest.approx(setpoint, abs=0.01 * setpoint)


def test_torque_limit_and_delay(make_sim):
    # saturated: the joint accelerates at maxForce / (I + armature); the set-point acts after
    # its delay (10 steps of 1 ms)
    step, inertia = 0.001, 0.03
    motor = core3_servo(40.0, 0.5, max_force=1.0, delay=0.01)
    simulated = simulate(make_sim, turntable(inertia, motor, step), 2.0, 60)
    expected = law_c(inertia, 40.0, 0.5, 1.0, step, 2.0, 60, delay_steps=10)
    assert np.all(np.abs(simulated[:10]) < 1e-9)
    assert np.max(np.abs(simulated - expected)) < 0.02 * np.max(np.abs(expected))


EXPLICIT_DIVERGES = ("the PyBullet engine's backward-Euler servo law (sim/torque_servos.py) "
                     "is stable at every gain; the MuJoCo engine evaluates Core3's explicit "
                     'law (sim/explicit_servos.py), which diverges here as in SimRobot')


@pytest.mark.engines('pybullet', reason=EXPLICIT_DIVERGES)
@pytest.mark.parametrize('step', [0.005, 0.012, 0.1])
def test_stiff_servo_on_a_light_link_is_stable(make_sim, step):
    # MuJoCo's own explicit step diverges here (p = 200, d = 5, link 0.0005 kg*m^2)
    simulated = simulate(make_sim, turntable(0.0005, core3_servo(200.0, 5.0, 5.0), step), 0.3,
                         round(2.0 / step))
    assert np.all(np.isfinite(simulated))
    assert simulated[-1] == pytest.approx(0.3, abs=0.003)
    tail = simulated[-max(3, round(0.5 / step)):]
    assert np.ptp(tail) < 1e-3


def test_velocity_motor_core3(make_sim):
    # tau = clamp(0.2 (v_set - v)): the velocity approaches v_set with time constant (I + a) / 0.2
    motor = VelocityMotor(max_velocity=5.0, max_force=10.0, control=TORQUE_LAW)
    step, inertia = 0.001, 0.01
    with make_sim(turntable(inertia, motor, step)) as sim:
        sim.command('table', 'hinge', velocity=2.0)
        sim.step(100)
        velocity = sim.joint_states('table')['hinge'][1]
    v = 0.0
    for _ in range(100):
        tau = min(max(0.2 * (2.0 - v), -10.0), 10.0)
        v = ((inertia + ARMATURE) * v + step * tau) / (inertia + ARMATURE + step * DAMPING)
    assert velocity == pytest.approx(v, rel=0.02)


# --- a humanoid with stiff Core3 servos ------------------------------------------------------

def _box_link(name: str, mass: float, size, center) -> Link:
    return Link(name, Inertial(mass, center, box_inertia(mass, size)),
                collisions=(Collision(Box(size), Pose(center)),))


def humanoid(p: float = 200.0, d: float = 5.0, max_force: float = 10.0) -> Entity:
    """About a NAO: 4.6 kg, 0.48 m; legs with hip roll/pitch, knee, ankle pitch/roll; arms."""
    motor = core3_servo(p, d, max_force)
    links = [_box_link('torso', 2.0, (0.08, 0.14, 0.2), (0.0, 0.0, 0.0))]
    joints = []

    def chain(parent, items):
        for name, axis, origin, mass, size, center in items:
            links.append(_box_link(name, mass, size, center) if size else
                         Link(name, Inertial(mass, (0.0, 0.0, 0.0),
                                             box_inertia(mass, (0.03, 0.03, 0.03)))))
            joints.append(Joint(name + '_joint', 'revolute', parent, name, Pose(origin), axis,
                                limits=(-2.0, 2.0), motor=motor))
            parent = name

    for side, y in (('l', 0.05), ('r', -0.05)):
        chain('torso', [
            (f'{side}_hip_roll', (1.0, 0.0, 0.0), (0.0, y, -0.1), 0.1, None, None),
            (f'{side}_thigh', (0.0, 1.0, 0.0), (0.0, 0.0, 0.0), 0.45, (0.05, 0.05, 0.12),
             (0.0, 0.0, -0.06)),
            (f'{side}_shin', (0.0, 1.0, 0.0), (0.0, 0.0, -0.12), 0.35, (0.045, 0.045, 0.12),
             (0.0, 0.0, -0.06)),
            (f'{side}_ankle', (0.0, 1.0, 0.0), (0.0, 0.0, -0.12), 0.05, None, None),
            (f'{side}_foot', (1.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.15, (0.16, 0.08, 0.02),
             (0.01, 0.0, -0.03)),
        ])
        chain('torso', [
            (f'{side}_upper_arm', (0.0, 1.0, 0.0), (0.0, 2 * y + 0.02 * (1 if y > 0 else -1),
                                                    0.08), 0.2, (0.04, 0.04, 0.1),
             (0.0, 0.0, -0.05)),
            (f'{side}_forearm', (0.0, 1.0, 0.0), (0.0, 0.0, -0.1), 0.15, (0.035, 0.035, 0.1),
             (0.0, 0.0, -0.05)),
        ])
    return Entity('humanoid', 'robot', tuple(links), tuple(joints), pose=Pose((0.0, 0.0, 0.381)))


def ground() -> Entity:
    return Entity('ground', 'static', (Link('ground', collisions=(Collision(Plane()),)),),
                  fixed_base=True)


@pytest.mark.engines('pybullet', reason=EXPLICIT_DIVERGES)
@pytest.mark.parametrize('step', [0.01, 0.1])
def test_stiff_humanoid_stands(make_sim, step):
    scene = Scene('stand', (ground(), humanoid()), step_length=step)
    with make_sim(scene) as sim:
        sim.step(round(10.0 / step))
        position, orientation = sim.get_pose('humanoid')
        joints = sim.joint_states('humanoid')
    assert all(math.isfinite(v) for v in (*position, *orientation))
    assert position[2] == pytest.approx(0.38, abs=0.01)
    tilt = 2.0 * math.degrees(math.asin(min(1.0, math.hypot(orientation[0], orientation[1]))))
    assert tilt < 2.0
    assert max(abs(q) for q, _, _ in joints.values()) < math.radians(1.0)


def test_deflection_limits_are_joint_ranges(make_sim):
    # SimRobotCore3 makes Deflection min/max MuJoCo joint ranges: an effort cannot push past them
    scene = turntable(0.01, core3_servo(40.0, 0.5), 0.001)
    table = scene.entities[0]
    hinge = replace(table.joints[0], limits=(-0.2, 0.2))
    scene = replace(scene, entities=(replace(table, joints=(hinge,)),))
    with make_sim(scene) as sim:
        sim.command('table', 'hinge', effort=5.0)
        sim.step(1000)
        assert sim.joint_states('table')['hinge'][0] == pytest.approx(0.2, abs=0.01)
