"""ArmarIII (Simox corpus) in the PyBullet simulation: stable and held by its default servos."""

from __future__ import annotations

import math

import pytest

pytest.importorskip('pybullet')

from scene_sim_ros.formats import load_scene  # noqa: E402
from scene_sim_ros.sim.simulation import Simulation  # noqa: E402
from support.corpus import CORPUS, missing

ARMAR = (CORPUS / 'simox' / 'Simox'
         / 'VirtualRobot' / 'data' / 'robots' / 'ArmarIII' / 'ArmarIII.xml')


def test_simulation_armar3_five_seconds_without_nan_joints_held(corpus_dir):
    if not ARMAR.is_file():
        pytest.skip(missing(ARMAR))
    scene = load_scene(ARMAR)
    armar = scene.entity('Armar3')
    with Simulation(scene) as sim:
        sim.step(round(5.0 / scene.step_length))
        assert sim.time == pytest.approx(5.0)
        states = sim.joint_states('Armar3')
        poses = sim.link_poses('Armar3')
    assert len(states) == len(armar.movable_joints) == 53
    for name, (position, velocity, effort) in states.items():
        assert math.isfinite(position) and math.isfinite(velocity) and math.isfinite(effort), name
    for name, pose in poses.items():
        assert all(math.isfinite(v) for v in (*pose.position, *pose.orientation)), name
    # the joints that carry the body (platform, hip, neck, arms: links of >= 1 kg) are held
    carrying = [j for j in armar.movable_joints if armar.link(j.child).inertial.mass >= 1.0]
    assert len(carrying) == 19  # 3 hip, 4 neck/head, 6 per arm (Wrist 2 weighs < 1 kg)
    for joint in carrying:
        assert states[joint.name][0] == pytest.approx(joint.initial_position, abs=0.05), joint.name
