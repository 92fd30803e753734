"""The corpus's NAOs stand: B-Human's MuJoCo-era NAO scenes (CR2025 .ros2, HEAD .ros3) with
SimRobotCore3's torque servos, the 14 NAOs of a game stand still (issue 16's acceptance numbers).
Skipped whole without the corpus."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
from support.corpus import missing, skip_module_without

from .conftest import CORPUS, GAME

SIMROBOT = CORPUS / 'simrobot'
skip_module_without(SIMROBOT)
GAMES = [SIMROBOT / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2',
         SIMROBOT / 'BHumanCodeRelease@HEAD' / 'Config' / 'Scenes' / 'Game.ros3']


def _load(path: Path, **kwargs):
    if not path.is_file():
        pytest.skip(missing(path))
    return load_scene(path, **kwargs)


def _sensor(entity, kind: str) -> str:
    return next(s.name for s in entity.sensors if s.kind == kind)


@pytest.mark.slow
@pytest.mark.parametrize('path', GAMES, ids=lambda p: p.parent.parent.parent.name)
def test_game_naos_stand_still_with_core3_servos(path):
    scene = _load(path)
    assert scene.metadata['simrobot_dialect']['core'] == 3
    robots = [e for e in scene.entities if e.kind == 'robot']
    assert len(robots) == 14
    first = robots[0]
    accelerometer, gyroscope = _sensor(first, 'accelerometer'), _sensor(first, 'gyroscope')
    with Simulation(scene) as sim:
        sim.step(round(2.0 / sim.step_length))
        joints = {r.name: [] for r in robots}
        acc, gyro = [], []
        for _ in range(round(2.0 / sim.step_length)):  # 2 s .. 4 s
            sim.step()
            for robot in robots:
                joints[robot.name].append([s[0] for s in sim.joint_states(robot.name).values()])
            acc.append(np.ravel(sim.read(first.name, accelerometer))[:3])
            gyro.append(np.ravel(sim.read(first.name, gyroscope))[:3])
        worst = max(np.degrees(np.ptp(np.array(q), axis=0)).max() for q in joints.values())
        assert worst < 0.5  # degrees peak-to-peak, every servo joint of every NAO
        acc, gyro = np.array(acc), np.array(gyro)
        assert np.median(np.linalg.norm(acc, axis=1)) == pytest.approx(9.81, rel=0.02)
        assert np.all(acc.std(axis=0) <= 0.1)
        assert np.all(gyro.std(axis=0) <= 0.01)
        sim.step(round(6.0 / sim.step_length))  # to 10 s
        for robot in robots:
            start = robot.pose.position[2]
            assert sim.get_pose(robot.name)[0][2] == pytest.approx(start, abs=0.03), robot.name


def test_core2_override_keeps_the_velocity_law():
    scene = _load(GAMES[0], simrobot_core=2)
    decision = scene.metadata['simrobot_dialect']
    assert decision['core'] == 2 and decision['overridden']
    robot = next(e for e in scene.entities if e.kind == 'robot')
    assert all(j.motor.control == 'velocity' for j in robot.joints if j.motor)


def _torso_deviation(sim: Simulation, robots: list[str], seconds: float) -> dict[str, float]:
    start = {name: sim.get_pose(name)[0][2] for name in robots}
    worst = dict.fromkeys(robots, 0.0)
    for _ in range(round(seconds / sim.step_length)):
        sim.step()
        for name in robots:
            worst[name] = max(worst[name], abs(sim.get_pose(name)[0][2] - start[name]))
    return worst


def test_one_nao_with_servos_holding_initial_positions_stands_10_s():
    scene = _load(GAME)
    keep = {'robot1', *(e.name for e in scene.entities if e.kind == 'static')}
    sim = Simulation(replace(scene, entities=tuple(e for e in scene.entities if e.name in keep)))
    assert _torso_deviation(sim, ['robot1'], 10.0)['robot1'] < 0.05


@pytest.mark.slow
def test_all_14_naos_of_game_stand_10_s():
    scene = _load(GAME)
    robots = [e.name for e in scene.entities if e.kind == 'robot' and len(e.joints) == 24]
    assert len(robots) == 14
    worst = _torso_deviation(Simulation(scene), robots, 10.0)
    assert max(worst.values()) < 0.05, worst
