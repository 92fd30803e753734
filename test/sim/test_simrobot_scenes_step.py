"""SimRobot scenes build and step without exploding: the scenes that ship (examples and the
default scene) always, the corpus's where present; the arm example's servos hold their initial
positions. The corpus's NAOs standing is in ``test_core3_corpus.py``."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from scene_sim_ros import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
from support.corpus import missing
from support.examples import shipped, shipped_ids

from .conftest import CORPUS

SIMROBOT = CORPUS / 'simrobot'
CORPUS_SCENES = sorted(p for pattern in ('*.ros2', '*.ros3') for p in SIMROBOT.rglob(pattern)) \
    if SIMROBOT.is_dir() else []
SCENES = shipped('simrobot') + CORPUS_SCENES
SMALL = shipped('simrobot') + [p for p in CORPUS_SCENES
                               if p.name in ('SimpleVehicle.ros2', 'Factory.ros2')]
MAX_DISTANCE, MAX_SPEED = 100.0, 100.0


def _load_or_skip(path: Path):
    """The scene; a missing corpus file skips, a scene that stops loading fails."""
    if not path.is_file():
        pytest.skip(missing(path))
    return load_scene(path)


def _assert_sane_for(sim: Simulation, seconds: float) -> None:
    steps = round(seconds / sim.step_length)
    for k in range(steps):
        sim.step()
        if k % 10 and k != steps - 1:
            continue
        for name in sim.entity_names():
            for link, pose in sim.link_poses(name).items():
                assert all(math.isfinite(v) and abs(v) < MAX_DISTANCE for v in pose.position), \
                    f'{name}/{link} at {pose.position} after {sim.time:.2f} s'
                linear, angular = sim.link_world_velocity(name, link)
                speed = math.sqrt(sum(v * v for v in linear))
                assert speed < MAX_SPEED and all(math.isfinite(w) for w in angular), \
                    f'{name}/{link} moves at {speed} m/s after {sim.time:.2f} s'


def _ids(paths):
    return shipped_ids(paths, SIMROBOT)


@pytest.mark.parametrize('path', SMALL, ids=_ids(SMALL))
def test_small_simrobot_scene_steps_5_s_without_exploding(path):
    sim = Simulation(_load_or_skip(path))
    _assert_sane_for(sim, 5.0)


@pytest.mark.slow
@pytest.mark.parametrize('path', SCENES, ids=_ids(SCENES))
def test_every_simrobot_scene_steps_5_s_without_exploding(path):
    sim = Simulation(_load_or_skip(path))
    _assert_sane_for(sim, 5.0)


def test_arm_example_servos_hold_their_initial_positions_10_s():
    """The NAO test's servo feature on the arm that ships: every servo joint holds the
    ``init`` of its Deflection (a fixed base, so the joints carry the whole load)."""
    scene = _load_or_skip(shipped('simrobot')[0])
    arm = scene.entity('arm')
    text = shipped('simrobot')[0].read_text()
    inits = {}   # hinge -> the init of its Deflection (0 where it has none), from the file
    for name, deflection in re.findall(r'<Hinge name="(\w+)">.*?<Deflection ([^>]*)/>', text,
                                       re.DOTALL):
        init = re.search(r'init="(-?[\d.]+)degree"', deflection)
        inits[name] = math.radians(float(init[1])) if init else 0.0
    assert sum(v != 0.0 for v in inits.values()) == 3
    assert sorted(inits) == sorted(j.name for j in arm.movable_joints) and len(inits) == 4
    sim = Simulation(scene)
    worst = dict.fromkeys(inits, 0.0)
    for _ in range(round(10.0 / sim.step_length)):
        sim.step()
        for name, (position, *_rest) in sim.joint_states('arm').items():
            worst[name] = max(worst[name], abs(position - inits[name]))
    assert max(worst.values()) < math.radians(2), {n: math.degrees(w) for n, w in worst.items()}
