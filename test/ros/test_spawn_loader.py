"""The spawn loader reads spawn requests in a process of its own and survives its death."""

from __future__ import annotations

import os
import signal

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.ros.supervisor.spawn_loader import BrokenProcessPool, SpawnLoader

BALL = ('<Simulation><Body name="ball"><SphereGeometry radius="0.1"/>'
        '<SphereMass value="1kg" radius="0.1"/></Body></Simulation>')


@pytest.fixture
def loader():
    loader = SpawnLoader()
    yield loader
    loader.shutdown()


def test_an_entity_comes_back_from_the_loader_process(loader):
    entity = loader.submit('', BALL).result(timeout=60)
    assert entity.name == 'ball' and entity.links[0].inertial.mass == pytest.approx(1.0)
    worker_pids = {p.pid for p in loader._pool._processes.values()}  # noqa: SLF001
    assert os.getpid() not in worker_pids


def test_a_broken_file_raises_its_scene_error_here(loader):
    with pytest.raises(SceneLoadError, match=r'<resource_string>:1:'):
        loader.submit('', '<Simulation><Body name="b"><Nonsense').result(timeout=60)


def big_ball(triangles: int = 200_000) -> str:
    """A ball whose mesh makes the fragment a few MB: it takes the loader a while."""
    mesh = ('<ComplexAppearance name="look"><Surface ref="grey"/>'
            '<Vertices>0 0 0 1 0 0 0 1 0</Vertices>'
            f'<Triangles>{" 0 1 2" * triangles}</Triangles></ComplexAppearance>')
    return BALL.replace('<Body', '<Surface name="grey" diffuseColor="#808080"/><Body', 1).replace(
        '<SphereGeometry', mesh + '<SphereGeometry')


def loader_pids(loader) -> list[int]:
    return list(loader._pool._processes)  # noqa: SLF001


def test_a_request_whose_loader_process_dies_fails_and_the_next_one_works(loader):
    loader.submit('', BALL).result(timeout=60)  # the process is up
    busy = loader.submit('', big_ball())
    for pid in loader_pids(loader):
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):
        busy.result(timeout=60)
    assert loader.submit('', BALL).result(timeout=60).name == 'ball'
