"""Simulation tests on every engine: the ``engine`` fixture is parametrised over
:data:`~scene_sim_ros.sim.engines.ENGINES` (test ids ``[pybullet]``, ``[mujoco]``), and
``make_sim(scene, **kwargs)`` builds ``create_simulator(scene, engine, **kwargs)`` and closes it
when the test ends, so that one test body reads the same on both engines.

A test that cannot hold on some engine for a reason that belongs to the other (PyBullet's link
limit, its body pool, TinyRenderer, ...) names the engines it runs on and why::

    @pytest.mark.engines('pybullet', reason='PyBullet's multibody link limit')

The parametrisation honours the marker (it is not a skip: the other engine's case does not
exist). A conftest imports :func:`pytest_generate_tests`, :func:`engine` and :func:`make_sim`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scene_sim_ros.scene import Scene
from scene_sim_ros.sim.engines import ENGINES, create_simulator
from scene_sim_ros.sim.simulator import Simulator

MARKER = 'engines'


def engines_of(node: Any) -> tuple[str, ...]:
    """The engines a test runs on: all, or those its ``engines`` marker names (which must give
    a reason and name known engines)."""
    marker = node.get_closest_marker(MARKER)
    if marker is None:
        return ENGINES
    reason = marker.kwargs.get('reason', '')
    unknown = [name for name in marker.args if name not in ENGINES]
    if not marker.args or unknown or not reason:
        raise pytest.UsageError(f'{node.nodeid}: @pytest.mark.engines needs known engine names '
                                f'({", ".join(ENGINES)}) and a reason; got {marker.args}, '
                                f'reason={reason!r}')
    return tuple(name for name in ENGINES if name in marker.args)


def _parametrised_by_hand(metafunc: pytest.Metafunc) -> bool:
    for marker in metafunc.definition.iter_markers('parametrize'):
        names = marker.args[0] if marker.args else marker.kwargs.get('argnames', '')
        if 'engine' in ([n.strip() for n in names.split(',')] if isinstance(names, str)
                        else list(names)):
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'engine' in metafunc.fixturenames and not _parametrised_by_hand(metafunc):
        metafunc.parametrize('engine', engines_of(metafunc.definition), indirect=True)


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """The engine's name ('pybullet', 'mujoco')."""
    return str(request.param)


@pytest.fixture
def make_sim(engine: str) -> Iterator[Callable[..., Simulator]]:
    """``make_sim(scene, **kwargs)``: a simulation of ``scene`` in the test's engine (keyword
    arguments as :func:`create_simulator`'s), closed after the test."""
    made: list[Simulator] = []

    def make(scene: Scene, **kwargs: Any) -> Simulator:
        sim = create_simulator(scene, engine, **kwargs)
        made.append(sim)
        return sim

    yield make
    for sim in made:
        sim.close()
