"""Robots over PyBullet's 127-link limit: built as several multibodies joined by constraints,
with the same joint names, link poses, commands and sensors as any robot."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.builder import MAX_LINKS
from scene_sim_ros.sim.simulation import Simulation

INERTIA = '<inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="{i}"/>'


def _link(name: str, mass: float = 0.1, size: float = 0.02, collide: bool = False) -> str:
    box = f'<geometry><box size="{size} {size} {size}"/></geometry>'
    collision = f'<collision>{box}</collision>' if collide else ''
    return (f'<link name="{name}"><inertial><mass value="{mass}"/>'
            f'{INERTIA.format(i=mass * size * size / 6)}</inertial>'
            f'<visual>{box}</visual>{collision}</link>')


def _joint(name: str, parent: str, child: str, xyz: str, axis: str = '0 1 0',
           kind: str = 'revolute') -> str:
    limit = '<limit lower="-1.5" upper="1.5" effort="100" velocity="5"/>' \
        if kind == 'revolute' else ''
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}"/><axis xyz="{axis}"/>{limit}</joint>')


def serial_urdf(count: int) -> str:
    """A fixed-base chain of ``count`` links (and the base) hanging down along -z 5 cm apart,
    hinged about y."""
    parts = ['<robot name="snake">', _link('base', 1.0)]
    parent = 'base'
    for i in range(count):
        parts.append(_link(f'l{i}', 0.1, 0.04))
        parts.append(_joint(f'j{i}', parent, f'l{i}', '0 0 -0.05'))
        parent = f'l{i}'
    parts.append('<link name="world"/>')
    parts.append('<joint name="anchor" type="fixed"><parent link="world"/><child link="base"/>'
                 '</joint>')
    return '\n'.join(parts + ['</robot>'])


def humanoid_urdf(count: int = 150) -> str:
    """A free-floating humanoid-like tree of ``count`` links: a pelvis, a torso, a head, two
    arms with many-fingered hands and two legs, collision boxes on the big links."""
    parts = ['<robot name="humanoid">', _link('pelvis', 10.0, 0.3, collide=True)]
    links = 1

    def add(name: str, parent: str, xyz: str, mass: float = 0.5, size: float = 0.08,
            collide: bool = False, kind: str = 'revolute', axis: str = '0 1 0') -> str:
        nonlocal links
        parts.append(_link(name, mass, size, collide))
        parts.append(_joint(f'{name}_joint', parent, name, xyz, axis, kind))
        links += 1
        return name

    torso = add('torso', 'pelvis', '0 0 0.3', 8.0, 0.3, True, 'fixed')
    add('head', torso, '0 0 0.35', 2.0, 0.2, True, axis='0 0 1')
    for side, y in (('l', 0.25), ('r', -0.25)):
        shoulder = add(f'{side}_shoulder', torso, f'0 {y} 0.2')
        elbow = add(f'{side}_elbow', shoulder, '0 0 -0.25')
        wrist = add(f'{side}_wrist', elbow, '0 0 -0.25')
        for finger in range(5):
            parent = wrist
            for phalanx in range(3):
                parent = add(f'{side}_f{finger}_{phalanx}', parent,
                             f'0.01 {0.01 * (finger - 2)} -0.03', 0.02, 0.01)
    for side, y in (('l', 0.12), ('r', -0.12)):
        hip = add(f'{side}_hip', 'pelvis', f'0 {y} -0.1', 2.0, 0.1)
        knee = add(f'{side}_knee', hip, '0 0 -0.4', 2.0, 0.1)
        add(f'{side}_foot', knee, '0 0 -0.4', 1.0, 0.1, True)
    spine = torso
    while links < count:  # sensor-ish small links (a skin, as the iCub's) up the torso
        spine = add(f'skin{links}', spine, '0 0 0.001', 0.01, 0.005, kind='fixed')
    return '\n'.join(parts + ['</robot>'])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f'{name}.urdf'
    path.write_text(f'<?xml version="1.0"?>\n{text}\n')
    return path


@pytest.fixture(scope='module')
def snake(tmp_path_factory: pytest.TempPathFactory) -> Simulation:
    scene = load_scene(write(tmp_path_factory.mktemp('snake'), 'snake', serial_urdf(200)))
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
    sim.step(40)  # free fall (no ground): every link drops the same
    after = sim.link_poses(name)
    drops = [before[link].position[2] - after[link].position[2] for link in before]
    expected = 0.5 * 9.81 * (40 * sim.step_length) ** 2
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
