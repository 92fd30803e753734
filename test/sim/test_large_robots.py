"""Robots over PyBullet's 127-link limit: built as several multibodies joined by constraints,
with the same joint names, link poses, commands and sensors as any robot."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.scene import Pose
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
from scene_sim_ros.sim.link_layout import MAX_LINKS
from support.large_robots import humanoid_urdf, serial_urdf, write


@pytest.fixture
def snake(tmp_path: Path) -> Simulation:
    """A fresh 200-link chain per test (under a second to build): one test's commands and
    steps must not move the links another test checks at rest."""
    scene = load_scene(write(tmp_path, 'snake', serial_urdf(200)))
    return Simulation(scene)


def test_a_200_link_serial_robot_builds_in_parts_with_its_joints(snake: Simulation) -> None:
    entity = snake.scene.entities[0]
    assert len(entity.links) > MAX_LINKS + 1
    name = entity.name
    states = snake.joint_states(name)
    assert list(states) == [f'j{i}' for i in range(200)]
    poses = snake.link_poses(name)
    assert set(poses) == {link.name for link in entity.links}
    # the chain at rest hangs down: each link 5 cm below the one before
    for i in range(1, 200):
        step = np.subtract(poses[f'l{i}'].position, poses[f'l{i - 1}'].position)
        assert step == pytest.approx((0.0, 0.0, -0.05), abs=1e-6)
    assert len(snake._built(name).parts) >= 1


def test_a_200_link_serial_robot_steps_and_follows_commands(snake: Simulation) -> None:
    name = snake.scene.entities[0].name
    snake.command(name, 'j199', position=0.5)
    snake.command(name, 'j190', position=-0.3)
    snake.step(500)
    states = snake.joint_states(name)
    assert states['j199'][0] == pytest.approx(0.5, abs=0.02)
    assert states['j190'][0] == pytest.approx(-0.3, abs=0.05)  # P servo sags under its load
    # the links across the cuts stay together: l{i} sits 5 cm from l{i-1}
    poses = snake.link_poses(name)
    for i in range(1, 200):
        gap = math.dist(poses[f'l{i}'].position, poses[f'l{i - 1}'].position)
        assert gap == pytest.approx(0.05, abs=1e-4)
    # get_pose of a link in a later part is the one link_poses gives
    position = snake.get_pose(f'{name}/l199')[0]
    assert position == pytest.approx(poses['l199'].position, abs=1e-9)
    assert not snake.warnings


def test_a_150_link_humanoid_falls_as_one_body(tmp_path: Path) -> None:
    scene = load_scene(write(tmp_path, 'humanoid', humanoid_urdf(150)))
    entity = scene.entities[0]
    assert len(entity.links) == 150
    sim = Simulation(scene)
    name = entity.name
    built = sim._built(name)
    assert built.parts and len(built.bodies) >= 2
    before = sim.link_poses(name)
    sim.step(100)  # free fall (no ground): every link drops the same (its 5 rad/s joints do
    after = sim.link_poses(name)  # not cap its speed)
    drops = [before[link].position[2] - after[link].position[2] for link in before]
    expected = 0.5 * 9.81 * (100 * sim.step_length) ** 2
    assert max(drops) == pytest.approx(expected, rel=0.05)
    assert max(drops) - min(drops) < 1e-3
    sim.set_pose(name, (1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 1.0))
    moved = sim.link_poses(name)
    top = f'skin{149}'
    assert moved[top].position[2] - moved['pelvis'].position[2] == \
        pytest.approx(before[top].position[2] - before['pelvis'].position[2], abs=1e-6)
    contacts = sim.contacts(name)
    assert all(c.other_entity != name for c in contacts)  # its parts do not collide
    assert set(sim.joint_states(name)) == {j.name for j in entity.movable_joints}
    sim.reset()
    assert sim.link_poses(name)[top].position == pytest.approx(before[top].position, abs=1e-9)


def test_sensors_on_links_of_a_later_part_read_there(tmp_path: Path) -> None:
    from scene_sim_ros.scene import Box, Collision, Entity, Gps, Link, SingleDistanceSensor
    from scene_sim_ros.scene.transforms import quat_from_axis_angle
    scene = load_scene(write(tmp_path, 'snake', serial_urdf(200)))
    snake = scene.entities[0]
    down = Pose(orientation=quat_from_axis_angle((0.0, 1.0, 0.0), math.pi / 2))  # x -> -z
    snake = dataclasses.replace(snake, sensors=(
        Gps('tip_gps', 'l199'), SingleDistanceSensor('tip_range', 'l199', 0.0, 5.0, down)))
    tip_z = -0.05 * 200
    floor = Entity('floor', 'static', (Link('floor', collisions=(Collision(Box((1, 1, 0.1))),)),),
                   pose=Pose((0.0, 0.0, tip_z - 1.05)))
    sim = Simulation(dataclasses.replace(scene, entities=(snake, floor)))
    sim.step(10)
    assert sim._built(snake.name).locate(sim.link_index(snake.name, 'l199'))[0] != \
        sim.body_id(snake.name)  # the tip is in a later part
    gps = np.asarray(sim.read(snake.name, 'tip_gps'), float).ravel()
    assert gps[:3] == pytest.approx(sim.get_pose(f'{snake.name}/l199')[0], abs=1e-6)
    distance = float(np.asarray(sim.read(snake.name, 'tip_range'), float).ravel()[0])
    assert distance == pytest.approx(1.0, abs=0.01)  # the floor, not the tip's own link


def test_a_large_robot_spawns_deletes_and_resets_like_any(tmp_path: Path) -> None:
    scene = load_scene(write(tmp_path, 'snake', serial_urdf(200)))
    snake = scene.entities[0]
    sim = Simulation(dataclasses.replace(scene, entities=()))
    sim.add_entity(dataclasses.replace(snake, pose=Pose((1.0, 0.0, 0.0))))
    sim.command(snake.name, 'j198', position=0.5)
    sim.step(50)
    first = sim.link_poses(snake.name)
    assert first['l199'].position[0] < 0.99  # j198 turned it (towards 1 - 0.05 sin 0.5)
    sim.reset_entity(snake.name)
    assert sim.link_poses(snake.name)['l199'].position == pytest.approx((1.0, 0.0, -10.0),
                                                                        abs=1e-6)
    sim.remove_entity(snake.name)
    assert sim.entity_names() == []
    sim.step(5)
    again = Simulation(dataclasses.replace(scene, entities=()))
    again.add_entity(dataclasses.replace(snake, pose=Pose((1.0, 0.0, 0.0))))
    again.command(snake.name, 'j198', position=0.5)
    again.step(50)
    assert again.link_poses(snake.name) == first  # deterministic
