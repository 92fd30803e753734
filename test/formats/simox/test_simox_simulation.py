"""Simox robots in the simulation, on every engine: stable and held by their servos. ArmarIII (Simox
corpus, where present) and the Simox files that ship (no corpus needed)."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

ARMAR = (CORPUS / 'simox' / 'Simox'
         / 'VirtualRobot' / 'data' / 'robots' / 'ArmarIII' / 'ArmarIII.xml')
# the Simox robot and scene that ship always, ArmarIII where the corpus is present
FILES = shipped('simox') + [ARMAR] * ARMAR.is_file()


@pytest.mark.parametrize('path', FILES, ids=shipped_ids(FILES, CORPUS))
def test_simulation_armar3_five_seconds_without_nan_joints_held(make_sim, path):
    scene = load_scene(path)
    (robot,) = [e for e in scene.entities if e.kind == 'robot']
    with make_sim(scene) as sim:
        sim.step(round(5.0 / scene.step_length))
        assert sim.time == pytest.approx(5.0)
        states = sim.joint_states(robot.name)
        poses = sim.link_poses(robot.name)
    assert len(states) == len(robot.movable_joints) > 0
    for name, (position, velocity, effort) in states.items():
        assert math.isfinite(position) and math.isfinite(velocity) and math.isfinite(effort), name
    for name, pose in poses.items():
        assert all(math.isfinite(v) for v in (*pose.position, *pose.orientation)), name
    if path == ARMAR:
        assert robot.name == 'Armar3' and len(states) == 53
        # the joints that carry the body (platform, hip, neck, arms: links of >= 1 kg) are held
        carrying = [j for j in robot.movable_joints if robot.link(j.child).inertial.mass >= 1.0]
        assert len(carrying) == 19  # 3 hip, 4 neck/head, 6 per arm (Wrist 2 weighs < 1 kg)
    else:   # the small arm: every servo joint holds its initial position, the scene's or zero
        carrying = list(robot.movable_joints)
        assert all(j.motor is not None and j.motor.kind == 'servo' for j in carrying)
        assert any(j.initial_position != 0.0 for j in carrying) == (path.name == 'simox_scene.xml')
    for joint in carrying:
        assert states[joint.name][0] == pytest.approx(joint.initial_position, abs=0.05), joint.name
