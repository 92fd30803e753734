"""Simulation API: frames, reset, determinism, commands, spawn/delete, forces, contacts."""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace

import numpy as np
import pybullet as pb
import pytest

from scene_sim_ros.errors import CommandError, SimulationError
from scene_sim_ros.scene import Collision, Entity, Inertial, Joint, Link, Pose, Sphere
from scene_sim_ros.scene.transforms import quat_from_rpy

from .conftest import (
    arm,
    ball,
    busy_scene,
    crate,
    drive,
    ground,
    pendulum,
    scene_of,
    servo,
    wheel,
    world_state,
)


def test_reset_is_bit_identical_to_a_fresh_load(make_sim):
    fresh = make_sim(busy_scene())
    initial = world_state(fresh)
    drive(fresh)
    after_fresh = world_state(fresh)
    sim = make_sim(busy_scene())
    drive(sim)
    sim.step(37)
    sim.set_pose('ball', (3.0, 3.0, 3.0), (0, 0, 0, 1))
    sim.reset()
    assert world_state(sim) == initial
    drive(sim)
    assert world_state(sim) == after_fresh


def test_simulation_is_deterministic(make_sim):
    a, b = make_sim(busy_scene()), make_sim(busy_scene())
    drive(a)
    drive(b)
    assert world_state(a) == world_state(b)


def test_reset_scopes_remove_spawned_and_restore_deleted_entities(make_sim):
    sim = make_sim(busy_scene())
    sim.remove_entity('crate')
    sim.add_entity(ball('extra', position=(-1.0, 0.0, 1.0)))
    sim.step(10)
    assert 'crate' not in sim.entity_names() and 'extra' in sim.entity_names()
    sim.reset('state')
    assert sim.time == 0.0
    assert 'crate' not in sim.entity_names() and 'extra' in sim.entity_names()
    assert sim.get_pose('extra')[0] == pytest.approx((-1.0, 0.0, 1.0))
    sim.step(10)
    sim.reset('spawned')
    assert sim.time == pytest.approx(10 * sim.step_length)
    assert 'crate' in sim.entity_names() and 'extra' not in sim.entity_names()
    sim.add_entity(ball('extra', position=(-1.0, 0.0, 1.0)))
    sim.reset('all')
    assert sim.entity_names() == ['ground', 'arm', 'crate', 'ball', 'pendulum']


def test_replace_scene_builds_the_new_scene_as_a_fresh_load_would(make_sim):
    pendulum_world = scene_of(ground(), pendulum(), step_length=0.002)
    fresh = make_sim(pendulum_world)
    initial = world_state(fresh)
    fresh.step(50)
    after_fresh = world_state(fresh)
    sim = make_sim(busy_scene())
    drive(sim)
    sim.add_entity(ball('extra', position=(-1.0, 0.0, 1.0)))
    sim.replace_scene(pendulum_world)
    assert sim.entity_names() == ['ground', 'pendulum'] and sim.time == 0.0
    assert sim.step_length == 0.002
    assert world_state(sim) == initial
    sim.step(50)
    assert world_state(sim) == after_fresh  # bit-identical, as a reset is
    sim.add_entity(ball('extra', position=(-1.0, 0.0, 1.0)))
    sim.reset('all')   # back to the new scene, not the old one
    assert sim.entity_names() == ['ground', 'pendulum']


def test_replace_scene_with_an_empty_scene_leaves_no_entity(make_sim):
    sim = make_sim(busy_scene())
    sim.replace_scene(scene_of())
    assert sim.entity_names() == []
    sim.step(3)
    assert sim.time == pytest.approx(3 * sim.step_length)


def test_spawned_entity_falls_and_can_be_deleted(make_sim):
    sim = make_sim(scene_of(ground()))
    sim.add_entity(ball('b1', position=(0, 0, 1.0)))
    with pytest.raises(SimulationError):
        sim.add_entity(ball('b1'))
    sim.step(100)
    assert sim.get_pose('b1')[0][2] < 1.0
    (handle,) = sim.link_handles('b1', 'b1')
    body = handle[0]
    assert sim.entity_of_body(body) == 'b1' and sim.handle_name(handle) == 'b1/b1'
    sim.remove_entity('b1')
    assert sim.entity_names() == ['ground'] and sim.entity_of_body(body) is None


def test_reset_entity_restores_its_initial_state_only(make_sim):
    sim = make_sim(scene_of(ground(), crate(position=(0, 0, 0.1)), ball(position=(2, 0, 1))))
    sim.set_pose('crate', (5.0, 0.0, 3.0), (0, 0, 0, 1))
    sim.step(50)
    ball_height = sim.get_pose('ball')[0][2]
    sim.reset_entity('crate')
    assert sim.get_pose('crate')[0] == pytest.approx((0.0, 0.0, 0.1))
    assert sim.get_velocity('crate')[0] == pytest.approx((0.0, 0.0, 0.0))
    assert sim.get_pose('ball')[0][2] == ball_height


def _offset_com_body() -> Entity:
    """A body whose centre of mass is far from its frame and whose inertia is not diagonal."""
    link = Link('body', Inertial(2.0, (0.3, -0.2, 0.1), (0.05, 0.01, 0.0, 0.04, 0.005, 0.03)),
                collisions=(Collision(Sphere(0.1)),))
    child = Link('tip', Inertial(0.5, (0.0, 0.0, 0.2), (0.01, 0, 0, 0.01, 0, 0.01)))
    joint = Joint('j', 'revolute', 'body', 'tip', Pose((0.5, 0.0, 0.0), quat_from_rpy(0, 0, 0.5)),
                  (0.0, 0.0, 1.0), initial_position=0.3)
    pose = Pose((1.0, 2.0, 3.0), quat_from_rpy(0.1, 0.2, 0.3))
    return Entity('thing', 'object', (link, child), (joint,), pose=pose)


def test_poses_are_model_link_frames_not_centres_of_mass(make_sim):
    entity = _offset_com_body()
    sim = make_sim(scene_of(entity, gravity=(0, 0, 0)))
    xyz, quat = sim.get_pose('thing')
    assert Pose(xyz, quat).is_close(entity.pose, 1e-9, 1e-9)
    joint = entity.joints[0]
    expected_tip = entity.pose * joint.origin * Pose(
        orientation=quat_from_rpy(0, 0, joint.initial_position))
    assert sim.link_world_pose('thing', 'tip').is_close(expected_tip, 1e-9, 1e-9)
    assert Pose(*sim.get_pose('thing/tip')).is_close(expected_tip, 1e-9, 1e-9)
    assert sim.link_poses('thing')['tip'].is_close(expected_tip, 1e-9, 1e-9)
    target = Pose((0.0, 0.0, 1.0), quat_from_rpy(0.0, 0.0, 1.0))
    sim.set_pose('thing', target.position, target.orientation)
    assert Pose(*sim.get_pose('thing')).is_close(target, 1e-9, 1e-9)


def test_velocities_refer_to_the_link_frame_origin(make_sim):
    entity = _offset_com_body()
    sim = make_sim(scene_of(entity, gravity=(0, 0, 0)))
    sim.set_velocity('thing', (0.0, 0.0, 0.0), (0.0, 0.0, 2.0))
    linear, angular = sim.get_velocity('thing')
    assert linear == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    assert angular == pytest.approx((0.0, 0.0, 2.0))
    before = np.array(sim.get_pose('thing/tip')[0])
    v_tip = np.array(sim.link_world_velocity('thing', 'tip')[0])
    sim.step(1)
    moved = (np.array(sim.get_pose('thing/tip')[0]) - before) / sim.step_length
    assert moved == pytest.approx(v_tip, abs=0.05 * np.linalg.norm(v_tip))


def test_command_rejects_unknown_joint_nan_inf_and_nothing(make_sim):
    sim = make_sim(scene_of(arm(servo())))
    for bad in (dict(joint='elbow', position=0.1), dict(joint='shoulder', position=math.nan),
                dict(joint='shoulder', velocity=math.inf), dict(joint='shoulder'),
                dict(joint='shoulder', effort='x')):
        with pytest.raises(CommandError):
            sim.command('arm', **bad)
    with pytest.raises(CommandError):
        sim.command('nobody', 'shoulder', position=0.0)


def test_passive_joint_takes_effort_commands_only(make_sim):
    sim = make_sim(scene_of(pendulum()))
    with pytest.raises(CommandError):
        sim.command('pendulum', 'hinge', position=0.0)
    sim.command('pendulum', 'hinge', effort=1.0)
    assert sim.joint_states('pendulum')['hinge'][2] == 1.0


def test_joint_state_arrays_are_joint_states_in_scene_order(make_sim):
    """The node's per-step read: the same numbers as joint_states, for a servo (the engine's
    applied effort), a commanded effort and a passive joint, links and the link state."""
    sim = make_sim(busy_scene())
    sim.command('pendulum', 'hinge', effort=0.7)
    drive(sim)
    for name in ('arm', 'pendulum', 'crate'):
        states = list(sim.joint_states(name).values())
        positions, velocities, efforts = sim.joint_state_arrays(name)
        assert positions.tolist() == [s[0] for s in states]
        assert velocities.tolist() == [s[1] for s in states]
        assert efforts.tolist() == [s[2] for s in states]
    assert sim.joint_state_arrays('pendulum')[2].tolist() == [0.7]
    for link in ('rod', 'base'):
        pose, linear, angular = sim.link_world_state('arm', link)
        assert pose == sim.link_world_pose('arm', link)
        assert (linear, angular) == sim.link_world_velocity('arm', link)


def test_link_world_state_follows_a_teleport_and_every_step(make_sim):
    """The IMU's per-step query is kept within a step: a teleport or the next step renews it."""
    sim = make_sim(busy_scene())
    sim.step(5)
    root = sim.scene.entity('crate').root.name
    first = sim.link_world_state('crate', root)
    sim.set_pose('crate', (2.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0))
    moved = sim.link_world_state('crate', root)
    assert moved[0] == sim.link_world_pose('crate', root) != first[0]
    sim.step(1)
    stepped = sim.link_world_state('crate', root)
    assert stepped[0] == sim.link_world_pose('crate', root) != moved[0]
    assert stepped[1:] == sim.link_world_velocity('crate', root)


def test_joint_reads_between_steps_are_shared_and_change_nothing(make_sim):
    """A read after a step (the node's joint states) is the one the next step's motors use:
    the trajectory is bit-identical to a simulation nobody reads, a teleport renews the read,
    and the shared arrays cannot be changed by a reader."""
    read, unread = make_sim(busy_scene()), make_sim(busy_scene())
    read.command('arm', 'shoulder', position=1.0)
    unread.command('arm', 'shoulder', position=1.0)
    for _ in range(150):
        read.step(1)
        unread.step(1)
        read.joint_state_arrays('arm')
    assert world_state(read) == world_state(unread)
    positions = read.joint_state_arrays('arm')[0]
    before = positions[0]
    with contextlib.suppress(ValueError):  # read-only where shared (PyBullet), else a copy
        positions[0] = before + 1.0
    assert read.joint_state_arrays('arm')[0][0] == before
    read.set_joint_position('arm', 'shoulder', -0.5)
    assert read.joint_state_arrays('arm')[0][0] == -0.5
    assert read.joint_states('arm')['shoulder'][:2] == (-0.5, 0.0)


@pytest.mark.engines('pybullet', reason="PyBullet's joint and link reads are queried once a "
                     'step and shared read-only (getJointStates, getLinkState cost a call '
                     'each); MuJoCo reads its state arrays directly')
def test_pybullet_reads_are_queried_once_a_step_and_shared_read_only(make_sim):
    sim = make_sim(busy_scene())
    drive(sim)
    root = sim.scene.entity('crate').root.name
    assert sim.link_world_state('crate', root) is sim.link_world_state('crate', root)
    positions, velocities, _ = sim.joint_state_arrays('arm')
    assert sim.joint_state_arrays('arm')[0] is positions
    with pytest.raises(ValueError, match='read-only'):
        positions[0] = 0.0
    built = sim._built('arm')  # noqa: SLF001 - PyBullet's own numbers to compare with
    raw = pb.getJointStates(built.body, built.joint_indices, physicsClientId=sim.client)
    assert positions.tolist() == [s[0] for s in raw]
    assert velocities.tolist() == [s[1] for s in raw]


def test_set_joint_position_teleports_and_servo_holds_it(make_sim):
    sim = make_sim(scene_of(arm(servo()), gravity=(0, 0, 0)))
    sim.set_joint_position('arm', 'shoulder', 0.8)
    sim.step(200)
    assert sim.joint_states('arm')['shoulder'][0] == pytest.approx(0.8, abs=1e-3)


def test_apply_force_for_a_duration_gives_the_impulse(make_sim):
    sim = make_sim(scene_of(crate(position=(0, 0, 0)), gravity=(0, 0, 0), step_length=0.01))
    sim.apply_force('crate', 'crate', (2.0, 0.0, 0.0), duration=0.5)
    sim.step(100)
    assert sim.get_velocity('crate')[0][0] == pytest.approx(2.0 * 0.5 / 1.0)  # J / m


def test_contacts_name_the_other_entity_and_carry_its_weight(make_sim):
    sim = make_sim(scene_of(ground(), crate(position=(0, 0, 0.1), mass=2.0)))
    sim.step(500)
    contacts = sim.contacts('crate')
    assert contacts and {c.other_entity for c in contacts} == {'ground'}
    assert sum(c.normal_force for c in contacts) == pytest.approx(2.0 * 9.81, rel=0.02)
    assert all(c.normal[2] > 0.99 for c in contacts)


def test_center_of_mass_of_a_two_link_body(make_sim):
    entity = _offset_com_body()
    sim = make_sim(scene_of(entity, gravity=(0, 0, 0)))
    body_com = entity.pose.transform_point((0.3, -0.2, 0.1))
    tip_com = sim.link_world_pose('thing', 'tip').transform_point((0.0, 0.0, 0.2))
    expected = (2.0 * np.array(body_com) + 0.5 * np.array(tip_com)) / 2.5
    assert sim.center_of_mass('thing') == pytest.approx(tuple(expected))


def test_kinematic_body_moves_at_its_velocity_unaffected_by_gravity(make_sim):
    platform = replace(crate('platform', position=(0, 0, 1.0)), kinematic=True,
                       linear_velocity=(0.5, 0.0, 0.0))
    sim = make_sim(scene_of(platform, step_length=0.01))
    sim.step(100)
    assert sim.get_pose('platform')[0] == pytest.approx((0.5, 0.0, 1.0))


def test_read_unknown_sensor_is_a_clear_error(make_sim):
    sim = make_sim(scene_of(wheel()))
    with pytest.raises(SimulationError, match='no sensor'):
        sim.read('wheel', 'camera')


def test_simulations_coexist_independently(make_sim):
    a, b = make_sim(scene_of(ball())), make_sim(scene_of(ball(), gravity=(0, 0, 0)))
    a.step(100)
    b.step(100)
    assert a.get_pose('ball')[0][2] < 1.0 and b.get_pose('ball')[0][2] == 1.0


def test_link_poses_of_a_branched_tree_follow_forward_kinematics(make_sim):
    from scene_sim_ros.scene.transforms import quat_from_axis_angle

    def link(name):
        return Link(name, Inertial(0.2, (0.01, 0.02, 0.03), (0.002, 0.0003, 0.0, 0.001, 0.0, 0.003)))

    names = ['root', 'l1', 'r1', 'l2', 'r2', 'l3']
    joints = (Joint('a', 'revolute', 'root', 'l1', Pose((0, 0.1, 0)), (1, 0, 0), initial_position=0.3),
              Joint('b', 'revolute', 'root', 'r1', Pose((0, -0.1, 0)), (0, 1, 0), initial_position=-0.2),
              Joint('c', 'revolute', 'l1', 'l2', Pose((0, 0, -0.2)), (0, 1, 0), initial_position=0.5),
              Joint('d', 'prismatic', 'r1', 'r2', Pose((0, 0, -0.2)), (0, 0, 1), initial_position=0.05),
              Joint('e', 'revolute', 'l2', 'l3', Pose((0.1, 0, 0)), (0, 0, 1), initial_position=1.0))
    entity = Entity('tree', 'robot', tuple(link(n) for n in names), joints,
                    pose=Pose((0, 0, 1), quat_from_rpy(0.1, 0, 0.4)))
    sim = make_sim(scene_of(entity, gravity=(0, 0, 0)))
    expected = {'root': entity.pose}
    for j in joints:
        motion = (Pose(orientation=quat_from_axis_angle(j.axis, j.initial_position))
                  if j.type == 'revolute' else Pose(tuple(a * j.initial_position for a in j.axis)))
        expected[j.child] = expected[j.parent] * j.origin * motion
    poses = sim.link_poses('tree')
    for name in names:
        assert poses[name].is_close(expected[name], 1e-9, 1e-9), name
    assert list(sim.joint_states('tree')) == ['a', 'b', 'c', 'd', 'e']
    assert sim.joint_states('tree')['d'][0] == pytest.approx(0.05)
