"""The corpus's laikago on its treadmill, on every engine. Skipped whole without the
corpus; every world running 5 s is in ``test_raisim_simulation.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats.raisim.corpus_files import LAIKAGO_QPOS

from scene_sim_ros.formats import load_scene
from support.corpus import CORPUS, skip_module_without

skip_module_without(CORPUS / 'raisim')



def test_corpus_laikago_starts_at_qpos_in_the_simulator(make_sim, corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/laikago.xml')
    with make_sim(scene) as sim:
        positions = [state[0] for state in sim.joint_states('laikago0').values()]
        assert positions == pytest.approx(LAIKAGO_QPOS, abs=1e-9)
        assert sim.get_pose('laikago0')[0] == pytest.approx((0.0, 0.0, 0.48))


def test_corpus_laikago_treadmill_moves_at_two_metres_per_second(make_sim,
                                                                corpus_dir: Path) -> None:
    scene = load_scene(corpus_dir / 'raisim/raisim2Lib/rsc/laikago.xml')
    with make_sim(scene) as sim:
        sim.step(500)  # 1 s
        position, orientation = sim.get_pose('treadmill')
    assert position == pytest.approx((2.0, 0.0, 0.0), abs=1e-6)
    assert orientation == pytest.approx((0.0, 0.0, 0.0, 1.0), abs=1e-9)
