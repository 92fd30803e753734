"""The explosion guard (scene_sim_ros.sim.engines.pybullet.guard): reported once, with entity and joint."""

from __future__ import annotations

import math

import pybullet as pb
import pytest

from scene_sim_ros import Simulation
from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Scene

from .conftest import ball, pendulum


def test_fast_body_is_reported_once_with_its_link_and_joint():
    scene = Scene('swing', (pendulum(),), step_length=0.01, gravity=(0.0, 0.0, 0.0))
    with Simulation(scene) as sim:
        sim.set_joint_position('pendulum', 'hinge', 0.0)
        pb.resetJointState(sim.body_id('pendulum'), 0, 0.0, 80.0, physicsClientId=sim.client)  # 80 m/s at 1 m
        sim.step(20)
        reports = [w for w in sim.warnings if 'exploded' in w]
        assert len(reports) == 1
        assert "'pendulum'" in reports[0] and "joint 'hinge'" in reports[0]
        assert "link 'bob'" in reports[0] and '> 50 m/s' in reports[0]
        sim.step(20)
        assert len([w for w in sim.warnings if 'exploded' in w]) == 1


def test_nan_pose_raises_with_the_report():
    with Simulation(Scene('drop', (ball(),), step_length=0.01)) as sim:
        pb.resetBaseVelocity(sim.body_id('ball'), (math.nan, 0.0, 0.0), (0.0, 0.0, 0.0),
                             physicsClientId=sim.client)
        sim.step(10)
        with pytest.raises(SimulationError, match="entity 'ball' exploded: non-finite"):
            sim.get_pose('ball')
        assert any('NaN' in w for w in sim.warnings)


def test_quiet_scene_reports_nothing():
    with Simulation(Scene('drop', (ball(),), step_length=0.01)) as sim:
        sim.step(50)
        assert not [w for w in sim.warnings if 'exploded' in w]
