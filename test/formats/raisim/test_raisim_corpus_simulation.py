"""The corpus's laikago on its treadmill in the PyBullet simulator. Skipped whole without the
corpus; every world running 5 s is in ``test_raisim_simulation.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from formats.raisim.corpus_files import LAIKAGO_QPOS

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation  # noqa: E402
from support.corpus import CORPUS, skip_module_without

skip_module_without(CORPUS / 'raisim')

# the world that ships always, the corpus's where it is present
# PyBullet separates the overlapping spheres and boxes of the <array> violently and flings some
# more than 100 m (RaiSim's solver is gentler); the world still runs without NaN.


def link_positions(sim: Simulation) -> np.ndarray:
    return np.array([pose.position for name in sim.entity_names()
                     for pose in sim.link_poses(name).values()])


def test_corpus_laikago_starts_at_qpos_in_the_simulator(corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/laikago.xml')
    with Simulation(scene) as sim:
        positions = [state[0] for state in sim.joint_states('laikago0').values()]
        assert positions == pytest.approx(LAIKAGO_QPOS, abs=1e-9)
        assert sim.get_pose('laikago0')[0] == pytest.approx((0.0, 0.0, 0.48))


def test_corpus_laikago_treadmill_moves_at_two_metres_per_second(corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/laikago.xml')
    with Simulation(scene) as sim:
        sim.step(500)  # 1 s
        position, orientation = sim.get_pose('treadmill')
    assert position == pytest.approx((2.0, 0.0, 0.0), abs=1e-6)
    assert orientation == pytest.approx((0.0, 0.0, 0.0, 1.0), abs=1e-9)
