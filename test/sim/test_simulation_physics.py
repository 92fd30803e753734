"""The simulator against physics: free fall, pendulum, motors, friction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import MaterialPair, PT2Motor, Scene

from .conftest import arm, ball, crate, ground, pendulum, scene_of, servo, wheel

G = 9.81


def test_simulation_ball_dropped_from_one_metre_lands_after_045_s(make_sim):
    radius = 0.05
    sim = make_sim(scene_of(ground(), ball(radius=radius, position=(0, 0, 1.0 + radius))))
    landed = None
    while sim.time < 1.0 and landed is None:
        sim.step()
        if sim.get_pose('ball')[0][2] <= radius:
            landed = sim.time
    expected = math.sqrt(2.0 * 1.0 / G)
    assert landed is not None
    assert abs(landed - expected) <= sim.step_length + 1e-12


def test_simulation_pendulum_period_matches_small_angle_formula(make_sim):
    length = 0.8
    sim = make_sim(scene_of(pendulum(length=length, start_angle=0.05)))
    crossings, last = [], sim.joint_states('pendulum')['hinge'][0]
    while sim.time < 6.0:
        sim.step()
        angle = sim.joint_states('pendulum')['hinge'][0]
        if last > 0.0 >= angle:  # downward zero crossing, once per period
            crossings.append(sim.time - sim.step_length * angle / (angle - last))
        last = angle
    period = float(np.mean(np.diff(crossings)))
    expected = 2.0 * math.pi * math.sqrt(length / G)
    assert len(crossings) >= 3
    assert abs(period - expected) / expected < 0.02


def test_simulation_pendulum_without_motor_is_not_held(make_sim):
    sim = make_sim(scene_of(pendulum(length=1.0, start_angle=0.3)))
    sim.step(round(2.0 * math.pi * math.sqrt(1.0 / G) / 2.0 / sim.step_length))  # half a period
    assert sim.joint_states('pendulum')['hinge'][0] == pytest.approx(-0.3, abs=0.01)


def test_joint_friction_takes_twice_its_torque_over_weight_off_every_half_swing(make_sim):
    """Coulomb friction tau on a pendulum's hinge (m = 1 kg, L = 1 m): each half swing ends
    2 tau / (m g L) lower than it began (small angles: the rest point moves by tau / (m g L)
    against the motion). 0.3 rad and 0.2 N m: 0.2592, 0.2185, 0.1777, 0.1369, 0.0961 rad;
    within 0.003 rad (both engines give 0.2587 ... 0.0947, the large-angle error)."""
    import dataclasses
    robot = pendulum(length=1.0, start_angle=0.3)
    robot = dataclasses.replace(robot, joints=(dataclasses.replace(robot.joints[0],
                                                                   friction=0.2),))
    sim = make_sim(scene_of(robot))
    turns, last_velocity = [], 0.0
    while len(turns) < 5 and sim.time < 6.0:
        sim.step()
        angle, velocity, effort = sim.joint_states('pendulum')['hinge']
        if last_velocity * velocity < 0.0:
            turns.append(abs(angle))
            assert abs(effort) == pytest.approx(0.2)  # sliding: the whole friction
        last_velocity = velocity
    expected = [0.3 - (k + 1) * 2.0 * 0.2 / G for k in range(5)]
    assert turns == pytest.approx(expected, abs=0.003)


def test_servo_reaches_set_point_at_its_speed_limit(make_sim):
    max_velocity = 1.5
    sim = make_sim(scene_of(arm(servo(max_velocity=max_velocity, p=1000.0)), gravity=(0, 0, 0)))
    sim.command('arm', 'shoulder', position=1.2)
    trajectory = []
    while sim.time < 1.5:
        sim.step()
        trajectory.append(sim.joint_states('arm')['shoulder'][0])
    speeds = np.diff(trajectory) / sim.step_length
    assert speeds.max() <= max_velocity * 1.01
    # the ramp takes distance / max_velocity, not less
    reached = sim.step_length * (np.argmax(np.array(trajectory) >= 1.2 - 1e-3) + 1)
    assert reached >= 1.2 / max_velocity - 0.01
    assert reached <= 1.2 / max_velocity + 0.1
    assert abs(trajectory[-1] - 1.2) < 1e-3


def test_servo_set_point_is_clamped_to_joint_limits(make_sim):
    sim = make_sim(scene_of(arm(servo(max_velocity=5.0, p=1000.0), limits=(-0.5, 0.7)),
                            gravity=(0, 0, 0)))
    sim.command('arm', 'shoulder', position=3.0)
    sim.step(1000)
    assert abs(sim.joint_states('arm')['shoulder'][0] - 0.7) < 1e-3


def test_servo_holds_against_gravity_and_keeps_force_limit(make_sim):
    strong = make_sim(scene_of(pendulum(start_angle=0.5, motor=servo(max_force=100.0))))
    weak = make_sim(scene_of(pendulum(start_angle=0.5, motor=servo(max_force=0.5))))
    weak_angles, weak_efforts = [], []
    for _ in range(1000):
        strong.step()
        weak.step()
        _, _, effort = weak.joint_states('pendulum')['hinge']
        weak_angles.append(weak.joint_states('pendulum')['hinge'][0])
        weak_efforts.append(abs(effort))
    assert abs(strong.joint_states('pendulum')['hinge'][0] - 0.5) < 0.01
    assert min(weak_angles) < 0.0  # 0.5 N*m cannot hold m g L sin(0.5) = 4.7 N*m
    assert max(weak_efforts) <= 0.5 + 1e-6


def test_velocity_motor_wheel_turns_at_commanded_speed(make_sim):
    sim = make_sim(scene_of(wheel(max_velocity=10.0)))
    sim.command('wheel', 'spin', velocity=4.0)
    sim.step(500)
    start = sim.joint_states('wheel')['spin'][0]
    sim.step(1000)
    position, velocity, _ = sim.joint_states('wheel')['spin']
    assert abs((position - start) / 1.0 - 4.0) < 0.01
    assert abs(velocity - 4.0) < 0.01


def test_velocity_motor_command_is_clamped_to_max_velocity(make_sim):
    sim = make_sim(scene_of(wheel(max_velocity=3.0)))
    sim.command('wheel', 'spin', velocity=-50.0)
    sim.step(500)
    assert abs(sim.joint_states('wheel')['spin'][1] + 3.0) < 0.01


def test_effort_command_accelerates_as_torque_over_inertia(make_sim):
    sim = make_sim(scene_of(arm(servo()), gravity=(0, 0, 0)))
    sim.command('arm', 'shoulder', effort=0.2)
    sim.step(100)
    _, velocity, effort = sim.joint_states('arm')['shoulder']
    mass, length, width = 0.5, 0.4, 0.04
    inertia = mass * (length ** 2 + width ** 2) / 12.0 + mass * 0.2 ** 2  # about the hinge
    assert effort == pytest.approx(0.2)
    assert velocity == pytest.approx(0.2 / inertia * sim.time, rel=0.02)


def test_pt2_motor_follows_set_point_with_second_order_lag(make_sim):
    """T^2 y'' + 2 D T y' + y = K u, critically damped (D = 1), for a step of u = 0.5 rad:
    y(t) = K u (1 - (1 + s/T) e^(-s/T)) with s = t - one step (the set-point reaches the joint a
    step later). Tolerance 0.002 rad (0.4 % of the step; a delay of three steps is 0.007 off)."""
    motor = PT2Motor(t=0.05, d=1.0, k=1.0, v=10.0, f=50.0)
    sim = make_sim(scene_of(arm(motor), gravity=(0, 0, 0)))
    dt = sim.step_length
    sim.command('arm', 'shoulder', position=0.5)
    worst = 0.0
    for _ in range(400):  # 0.4 s = 8 T
        sim.step(1)
        s = sim.time - dt
        expected = 0.0 if s <= 0.0 else 0.5 * (1.0 - (1.0 + s / 0.05) * math.exp(-s / 0.05))
        worst = max(worst, abs(sim.joint_states('arm')['shoulder'][0] - expected))
    assert worst < 0.002
    sim.step(600)
    assert sim.joint_states('arm')['shoulder'][0] == pytest.approx(0.5, abs=1e-3)  # K u


def _slide_distance(make_sim, friction_pair: float | None) -> float:
    pairs = () if friction_pair is None else (MaterialPair('ice', 'floor', friction=friction_pair),)
    scene = scene_of(ground('floor'), crate(position=(0, 0, 0.1), material='ice'),
                     material_pairs=pairs)
    sim = make_sim(scene)
    sim.set_velocity('crate', (2.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    sim.step(3000)
    return sim.get_pose('crate')[0][0]


def test_friction_pairs_change_sliding_distance(make_sim):
    slippery, default, rough = (_slide_distance(make_sim, mu) for mu in (0.05, None, 0.5))
    # v^2 / (2 mu g): 4.08 m at mu 0.05, 0.41 m at 0.5
    assert slippery == pytest.approx(4.0 / (2 * 0.05 * G), rel=0.1)
    assert rough == pytest.approx(4.0 / (2 * 0.5 * G), rel=0.1)
    assert default < rough


def test_simulation_static_entity_does_not_move(make_sim):
    sim = make_sim(scene_of(ground(), crate(position=(0, 0, 2.0))))
    sim.step(100)
    assert sim.get_pose('ground')[0] == (0.0, 0.0, 0.0)
    assert sim.get_pose('crate')[0][2] < 2.0


def test_simulation_zero_gravity_and_step_length_come_from_scene(make_sim):
    sim = make_sim(scene_of(ball(), step_length=0.004, gravity=(0.0, 0.0, 0.0)))
    sim.step(250)
    assert sim.time == pytest.approx(1.0)
    assert sim.get_pose('ball')[0] == pytest.approx((0.0, 0.0, 1.0))


def test_scene_object_initial_velocity_is_applied(make_sim):
    moving = ball(position=(0, 0, 1.0))
    from dataclasses import replace
    moving = replace(moving, linear_velocity=(1.0, 0.0, 0.0))
    sim = make_sim(Scene('s', (moving,), gravity=(0, 0, 0), step_length=0.01))
    sim.step(100)
    assert sim.get_pose('ball')[0][0] == pytest.approx(1.0, rel=1e-6)


def test_heightfield_terrain_sits_at_its_heights_and_reports_its_model_pose(make_sim):
    from scene_sim_ros.scene import Collision, Entity, Heightfield, Link, Pose

    heights = np.full((5, 5), 0.4)
    heights[0, 0] = 0.0  # min 0, max 0.4: PyBullet would centre the field at 0.2
    terrain = Entity('terrain', 'static', (Link('terrain', collisions=(
        Collision(Heightfield(heights, 4.0, 4.0)),)),), pose=Pose((0.0, 0.0, 0.5)),
        fixed_base=True)
    sim = make_sim(Scene('field', entities=(terrain, ball(position=(0.5, 0.5, 1.5)))))
    assert sim.get_pose('terrain')[0] == pytest.approx((0.0, 0.0, 0.5))
    sim.step(round(1.5 / sim.step_length))
    assert sim.get_pose('ball')[0][2] == pytest.approx(0.5 + 0.4 + 0.05, abs=0.01)


@pytest.mark.parametrize('deceleration', [0.5, 2.0])
def test_simulation_rolling_friction_is_a_deceleration_of_the_rolling_ball(make_sim, deceleration):
    radius = 0.05
    scene = scene_of(ground('carpet'), ball(radius=radius, position=(0, 0, radius),
                                            material='rubber'),
                     material_pairs=(MaterialPair('rubber', 'carpet', friction=1.0,
                                                  rolling_friction=deceleration),))
    sim = make_sim(scene)
    sim.step(20)  # settle
    sim.set_velocity('ball', (1.0, 0.0, 0.0), (0.0, 1.0 / radius, 0.0))  # rolling, not slipping
    sim.step(50)
    v0, t0 = sim.get_velocity('ball')[0][0], sim.time
    sim.step(200)
    v1, t1 = sim.get_velocity('ball')[0][0], sim.time
    assert v1 > 0.0  # still rolling: the interval measures the deceleration, not a stop
    assert (v0 - v1) / (t1 - t0) == pytest.approx(deceleration, rel=0.25)


def test_a_free_robot_with_slow_joints_falls_freely(make_sim):
    # PyBullet's maxJointVelocity caps every coordinate of a body, a free base's too
    import dataclasses
    robot = pendulum(motor=servo(max_velocity=1.0))
    hinge = dataclasses.replace(robot.joints[0], max_velocity=1.0)
    robot = dataclasses.replace(robot, joints=(hinge,), fixed_base=False)
    sim = make_sim(scene_of(robot, step_length=0.01))
    sim.step(100)
    assert sim.get_velocity('pendulum')[0][2] == pytest.approx(-G, rel=0.01)
