"""The engine registry and the Simulator Protocol: what create_simulator builds offers every
member the Protocol declares (mypy checks the signatures; this checks a built simulation)."""

from __future__ import annotations

import pytest

from scene_sim_ros.scene import Box, Collision, Entity, Inertial, Link, Scene
from scene_sim_ros.sim import simulator
from scene_sim_ros.sim.engines import ENGINES, create_simulator


def _scene() -> Scene:
    box = Link('box', Inertial(mass=1.0), collisions=(Collision(Box((0.1, 0.1, 0.1))),))
    return Scene('one box', entities=(Entity('box', 'object', (box,)),))


def protocol_members(protocol: type) -> set[str]:
    members = {name for name in vars(protocol) if not name.startswith('_')}
    return members | set(protocol.__annotations__)  # the attributes


@pytest.mark.parametrize('engine', ENGINES)
def test_a_built_simulation_has_every_member_of_the_protocol(engine: str) -> None:
    sim = create_simulator(_scene(), engine)
    try:
        missing = sorted(name for name in protocol_members(simulator.Simulator)
                         if not hasattr(sim, name))
        assert missing == []
        sim.step(3)
        assert sim.steps == 3 and sim.entity_names() == ['box']
    finally:
        sim.close()


def test_an_unknown_engine_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown engine 'ode'; engines: pybullet"):
        create_simulator(_scene(), 'ode')


def test_the_protocol_declares_what_the_layers_above_use() -> None:
    members = protocol_members(simulator.Simulator)
    # a sample from each group: time, entities, joints, sensors, edits, engine queries
    assert {'step', 'time', 'entity_names', 'link_world_state', 'joint_state_arrays', 'command',
            'read', 'replace_scene', 'cast_rays', 'draw_software', 'rendering'} <= members
