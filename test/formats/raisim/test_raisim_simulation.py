"""RaiSim worlds in the simulator, on every engine: the world that ships and every corpus world (where
present) run 5 s, the example rover starts at its qpos, a ball dropped on a height map."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from formats.raisim.corpus_files import TEMPLATE_PARAMETERS, raisim_worlds
from lxml import etree

from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.raisim import load
from scene_sim_ros.sim.simulator import Simulator
from support.corpus import CORPUS
from support.examples import shipped, shipped_ids

# the world that ships always, the corpus's where it is present
WORLDS = shipped('raisim') + raisim_worlds(CORPUS)
# PyBullet separates the overlapping spheres and boxes of the <array> violently and flings some
# more than 100 m (RaiSim's solver is gentler); the world still runs without NaN.
FLUNG = {'SingleBodies.xml'}


def link_positions(sim: Simulator) -> np.ndarray:
    return np.array([pose.position for name in sim.entity_names()
                     for pose in sim.link_poses(name).values()])


@pytest.mark.parametrize('path', WORLDS, ids=shipped_ids(WORLDS, CORPUS / 'raisim'))
def test_every_world_simulates_five_seconds(make_sim, path: Path) -> None:
    scene = load_scene(path, parameters=TEMPLATE_PARAMETERS)
    with make_sim(scene) as sim:
        start = link_positions(sim) if scene.entities else np.zeros((0, 3))
        sim.step(round(5.0 / scene.step_length))
        assert sim.time == pytest.approx(5.0)
        if not scene.entities:
            return
        end = link_positions(sim)
    assert np.isfinite(end).all()
    if not any(e.kind == 'static' for e in scene.entities):
        # nothing to land on (an include fragment): bodies of equal mass bump into each other,
        # but their mean height falls freely
        assert all(e.mass == 1.0 for e in scene.entities)
        assert end[:, 2].mean() == pytest.approx(start[:, 2].mean() - 0.5 * 9.81 * 25.0, abs=0.2)
    elif path.name in FLUNG:
        assert np.abs(end).max() < 1000.0
    else:
        assert np.abs(end).max() < 100.0


def test_example_rover_starts_at_its_qpos_in_the_simulator(make_sim) -> None:
    """The laikago test's feature on the world that ships: the articulated system's <state qpos>
    (here with the @@rover_x parameter given) sets the base position and, from qpos[7], the
    joint positions in the movable joints' order."""
    (path,) = shipped('raisim')
    system = etree.parse(str(path)).getroot().find('objects/articulated_system')
    qpos_text = system.find('state').get('qpos').replace('@@rover_x', '-0.5')
    qpos = [float(v) for v in qpos_text.replace(',', ' ').split()]
    scene = load_scene(path, parameters={'rover_x': '-0.5'})
    name = system.get('name')
    with make_sim(scene) as sim:
        states = sim.joint_states(name)
        assert len(qpos) == 7 + len(states) and len(states) == 4
        assert [state[0] for state in states.values()] == pytest.approx(qpos[7:], abs=1e-9)
        assert sim.get_pose(name)[0] == pytest.approx(tuple(qpos[:3]))
        assert sim.get_pose(name)[0][0] == pytest.approx(-0.5)
        w, x, y, z = qpos[3:7]   # RaiSim's quaternion is w first
        assert sim.get_pose(name)[1] == pytest.approx((x, y, z, w), abs=1e-9)


def test_heightmap_ball_lands_at_the_terrain_height(
        make_sim, write_file: Callable[[str, str], Path]) -> None:
    # 7 x 7 samples 1 m apart; a flat 3 x 3 plateau around sample (x index 4, y index 1)
    heights = np.zeros((7, 7))
    heights[0:3, 3:6] = 0.7
    heights[5, 1] = 1.5  # where a transposed map would put the plateau's mirror
    x_index, y_index, radius = 4, 1, 0.2
    x, y = -3.0 + x_index, -3.0 + y_index
    values = ' '.join(str(v) for v in heights.ravel())
    path = write_file('drop.xml', f"""
        <raisim>
            <timeStep value="0.002"/>
            <objects>
                <heightmap name="terrain" xSample="7" ySample="7" xSize="6" ySize="6"
                           centerX="0" centerY="0" height="{values}"/>
                <sphere name="ball" mass="1"><dim radius="{radius}"/>
                    <state pos="{x} {y} 2"/></sphere>
            </objects>
        </raisim>""")
    with make_sim(load(path)) as sim:
        sim.step(1500)
        position, _ = sim.get_pose('ball')
    assert position[2] == pytest.approx(heights[y_index, x_index] + radius, abs=0.02)
    assert position[:2] == pytest.approx((x, y), abs=0.05)
