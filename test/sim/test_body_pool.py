"""Spawn/delete without growth: a deleted spawned entity's PyBullet body is parked (out of the
physics) and the next spawn of an equal entity revives it (``scene_sim_ros.sim.engines.pybullet.body_pool``).

PyBullet keeps per created body memory that only ``resetSimulation`` frees, so reusing bodies
is what keeps 1,000 spawn/delete cycles flat (figures: ``bench/spawn_soak.py``). These tests pin
the mechanism: what a delete leaves behind, that a parked body takes no part in the physics and
that a revived body moves bit for bit as a fresh one.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pybullet as pb

from scene_sim_ros import load_scene
from scene_sim_ros.resources import example_path
from scene_sim_ros.scene import Pose
from scene_sim_ros.sim.engines.pybullet.body_pool import MAX_PARKED, MAX_PARKED_PER_KEY
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

from .conftest import arm, ball, crate, ground, scene_of, servo

ROVER = example_path('raisim_rover.urdf')


def _rover(name: str = 'rover', position=(0.0, 0.0, 0.3)):
    """The rover as a spawn request would bring it: loaded from its file each time."""
    return replace(load_scene(ROVER).entities[0], name=name, pose=Pose(position))


def _bodies(sim: Simulation) -> int:
    return pb.getNumBodies(physicsClientId=sim.client)


def _trajectory(sim: Simulation, name: str, steps: int) -> list:
    out = []
    for _ in range(steps):
        sim.step()
        out.append((sim.get_pose(name), sim.get_velocity(name),
                    sorted(sim.joint_states(name).items())))
    return out


def test_delete_leaves_no_entry_of_the_entity_and_parks_its_body():
    sim = Simulation(scene_of(ground(), step_length=0.005))
    sim.add_entity(_rover())
    sim.step(5)
    body = sim.body_id('rover')
    sim.remove_entity('rover')
    assert 'rover' not in sim.entity_names()
    assert sim.entity_of_body(body) is None
    assert not [key for key in sim._readers if key[0] == 'rover']
    assert sim._pool.bodies() == [body]
    assert pb.getContactPoints(bodyA=body, physicsClientId=sim.client) == ()


def test_spawning_the_same_file_again_reuses_the_body_and_its_shapes():
    sim = Simulation(scene_of(ground(), step_length=0.005))
    sim.add_entity(_rover())
    body, bodies = sim.body_id('rover'), _bodies(sim)
    shapes = (dict(sim._shapes._collision), dict(sim._shapes._visual))
    for _ in range(20):
        sim.remove_entity('rover')
        assert sim._pool.bodies() == [body]
        sim.add_entity(_rover())  # a new load of the file: equal content, new objects
        assert len(sim._pool) == 0
        sim.step(2)
    assert sim.body_id('rover') == body
    assert _bodies(sim) == bodies
    assert (sim._shapes._collision, sim._shapes._visual) == shapes


def test_a_parked_body_takes_no_part_in_the_physics():
    """A crate spawned in the ball's path and deleted at once changes nothing, bit for bit."""
    def scene():
        return scene_of(ground(), ball(position=(0.0, 0.0, 0.5)), step_length=0.005)
    untouched, used = Simulation(scene()), Simulation(scene())
    used.add_entity(crate('obstacle', position=(0.0, 0.0, 0.1)))
    used.remove_entity('obstacle')
    assert len(used._pool) == 1
    assert _trajectory(used, 'ball', 300) == _trajectory(untouched, 'ball', 300)
    hits = pb.rayTestBatch([(0.0, 0.0, -1.0e5 + 10.0)], [(0.0, 0.0, -1.0e5 - 10.0)],
                           physicsClientId=used.client)
    assert hits[0][0] == -1  # the parked crate answers no ray either


def test_a_revived_body_moves_as_a_fresh_one():
    """Free (the rover falls onto the ground) and fixed base (an arm driven by its servo)."""
    sim = Simulation(scene_of(ground(), step_length=0.005))
    runs = []
    for _ in range(3):
        sim.add_entity(_rover())
        sim.add_entity(arm(servo(max_velocity=2.0)))
        sim.command('arm', 'shoulder', position=1.0)
        runs.append((_trajectory(sim, 'rover', 150), _trajectory(sim, 'arm', 50)))
        sim.remove_entity('rover')
        sim.remove_entity('arm')
    assert runs[1] == runs[0]
    assert runs[2] == runs[0]


def test_a_revived_static_entity_still_holds_what_falls_on_it():
    """A fixed base gets PyBullet's static collision filter back (it collides with movers)."""
    table = replace(crate('table', size=(0.4, 0.4, 0.2), position=(0.0, 0.0, 0.1)),
                    kind='static', fixed_base=True)
    sim = Simulation(scene_of(step_length=0.005))
    sim.add_entity(table)
    sim.remove_entity('table')
    sim.add_entity(table)
    assert len(sim._pool) == 0
    sim.add_entity(ball(position=(0.0, 0.0, 0.5)))
    sim.step(400)
    assert abs(sim.get_pose('ball')[0][2] - 0.25) < 2e-3  # on the table top (0.2) + radius


def test_the_pool_is_bounded_and_a_reset_empties_it():
    sim = Simulation(scene_of(ground(), step_length=0.005))
    loaded = _bodies(sim)
    same = [f'same{k}' for k in range(MAX_PARKED_PER_KEY + 2)]  # equal but for the name
    distinct = [f'ball{k}' for k in range(MAX_PARKED + 2)]  # each its own key (link name)
    for k, name in enumerate(same):
        sim.add_entity(replace(ball(position=(k, 0.0, 0.5)), name=name))
    for name in same:
        sim.remove_entity(name)
    assert len(sim._pool) == MAX_PARKED_PER_KEY
    for k, name in enumerate(distinct):
        sim.add_entity(ball(name, position=(k, 1.0, 0.5)))
    for name in distinct:
        sim.remove_entity(name)
    assert len(sim._pool) == MAX_PARKED
    assert _bodies(sim) == loaded + MAX_PARKED
    sim.reset('all')
    assert len(sim._pool) == 0
    assert _bodies(sim) == loaded


def test_deleting_a_loaded_entity_removes_its_body_and_reset_brings_it_back():
    sim = Simulation(scene_of(ground(), ball(position=(0.0, 0.0, 0.5)), step_length=0.005))
    loaded = _bodies(sim)
    sim.remove_entity('ball')
    assert len(sim._pool) == 0
    assert _bodies(sim) == loaded - 1
    sim.reset('spawned')
    assert 'ball' in sim.entity_names()
    assert _bodies(sim) == loaded


def test_an_exploded_body_is_removed_not_parked_and_its_report_goes_with_it():
    sim = Simulation(scene_of(ground(), step_length=0.01))
    loaded = _bodies(sim)
    for _ in range(2):
        sim.add_entity(ball(position=(0.0, 0.0, 0.5)))
        pb.resetBaseVelocity(sim.body_id('ball'), (math.nan, 0.0, 0.0), (0.0, 0.0, 0.0),
                             physicsClientId=sim.client)
        sim.step(10)
        assert 'ball' in sim._guard.reports
        sim.remove_entity('ball')
        assert 'ball' not in sim._guard.reports
        assert len(sim._pool) == 0 and _bodies(sim) == loaded
    sim.add_entity(ball(position=(0.0, 0.0, 0.5)))
    sim.step(10)
    assert all(math.isfinite(v) for v in sim.get_pose('ball')[0])


def test_an_entity_that_cannot_be_hashed_is_removed_not_parked():
    odd = replace(ball(position=(0.0, 0.0, 0.5)), disabled_collisions=[])  # a list: unhashable
    sim = Simulation(scene_of(ground(), step_length=0.01))
    loaded = _bodies(sim)
    sim.add_entity(odd)
    sim.remove_entity('ball')
    assert len(sim._pool) == 0 and _bodies(sim) == loaded
    sim.add_entity(odd)
    assert 'ball' in sim.entity_names()
