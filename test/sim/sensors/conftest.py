"""Small scenes built from the model in Python, for the sensor tests (fixture ``parts``)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from scene_sim_ros.scene import Box, Collision, Entity, Inertial, Link, Pose, Scene, Visual
from scene_sim_ros.scene.inertia import box_inertia

RED = (1.0, 0.0, 0.0, 1.0)
GREEN = (0.0, 1.0, 0.0, 1.0)
BLUE = (0.0, 0.0, 1.0, 1.0)
BACKGROUND = (0.2, 0.4, 0.6, 1.0)


def box_link(name: str, size, color=RED, mass: float = 0.0) -> Link:
    inertial = Inertial(mass=mass, inertia=box_inertia(mass, size)) if mass else Inertial()
    return Link(name=name, inertial=inertial, collisions=(Collision(Box(size)),),
                visuals=(Visual(Box(size), color=color),))


def static_box(name: str, size, position, color=RED) -> Entity:
    return Entity(name=name, kind='static', links=(box_link('base', size, color),),
                  pose=Pose(position), fixed_base=True)


def free_box(name: str, size, position, mass=1.0, color=BLUE, sensors=(),
             orientation=(0.0, 0.0, 0.0, 1.0)) -> Entity:
    return Entity(name=name, kind='robot' if sensors else 'object',
                  links=(box_link('base', size, color, mass),), sensors=tuple(sensors),
                  pose=Pose(position, orientation))


HOST_POSE = Pose((0.0, 0.0, 1.0))


def sensor_host(sensors, pose: Pose = HOST_POSE, name: str = 'host') -> Entity:
    """A small fixed robot carrying ``sensors`` on its link 'base'."""
    host = box_link('base', (0.04, 0.04, 0.04), GREEN, 0.1)
    return Entity(name=name, kind='robot', links=(host,), sensors=tuple(sensors), pose=pose,
                  fixed_base=True)


def make_scene(*entities: Entity, **settings) -> Scene:
    settings.setdefault('background', BACKGROUND)
    return Scene(name='test', entities=tuple(entities), **settings)


@pytest.fixture
def simulate():
    """``simulate(scene)``: a Simulation of ``scene``, closed after the test."""
    from scene_sim_ros import Simulation

    sims = []

    def create(scene: Scene, **kwargs):
        sim = Simulation(scene, **kwargs)
        sims.append(sim)
        return sim

    yield create
    for sim in sims:
        close = getattr(sim, 'close', None)
        if close is not None:
            close()


DEG = math.pi / 180.0


@pytest.fixture
def parts() -> SimpleNamespace:
    """The scene builders above, for test modules (conftest modules are not importable)."""
    return SimpleNamespace(box_link=box_link, static_box=static_box, free_box=free_box,
                           sensor_host=sensor_host, make_scene=make_scene, RED=RED, GREEN=GREEN,
                           BLUE=BLUE, BACKGROUND=BACKGROUND, DEG=DEG)
