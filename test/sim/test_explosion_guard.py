"""The explosion guard (scene_sim_ros.sim.guard and each engine's reads): reported once, with
entity and joint, on every engine."""

from __future__ import annotations

import pytest

from scene_sim_ros.errors import SimulationError
from scene_sim_ros.scene import Scene

from .conftest import ball, pendulum


def test_fast_body_is_reported_once_with_its_link_and_joint(make_sim):
    scene = Scene('swing', (pendulum(),), step_length=0.01, gravity=(0.0, 0.0, 0.0))
    with make_sim(scene) as sim:
        sim.set_joint_position('pendulum', 'hinge', 0.0)
        # one step of 8000 N on the 1 kg bob, across its 1 m arm: 80 m/s
        sim.apply_force('pendulum', 'bob', (8000.0, 0.0, 0.0), duration=sim.step_length)
        sim.step(20)
        reports = [w for w in sim.warnings if 'exploded' in w]
        assert len(reports) == 1
        assert "'pendulum'" in reports[0] and "joint 'hinge'" in reports[0]
        assert "link 'bob'" in reports[0] and '> 50 m/s' in reports[0]
        sim.step(20)
        assert len([w for w in sim.warnings if 'exploded' in w]) == 1


def test_nan_pose_raises_with_the_report(make_sim):
    with make_sim(Scene('drop', (ball(),), step_length=0.01)) as sim:
        sim.apply_force('ball', None, (1.7e308, 0.0, 0.0))  # finite; its acceleration is not
        sim.step(10)
        with pytest.raises(SimulationError, match="entity 'ball' exploded: non-finite"):
            sim.get_pose('ball')
        assert any('NaN' in w for w in sim.warnings)


def test_quiet_scene_reports_nothing(make_sim):
    with make_sim(Scene('drop', (ball(),), step_length=0.01)) as sim:
        sim.step(50)
        assert not [w for w in sim.warnings if 'exploded' in w]
