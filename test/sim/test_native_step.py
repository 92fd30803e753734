"""PyBullet steps without the GIL (scene_sim_ros.sim.engines.pybullet.native_step): the same trajectory bit for
bit, other threads run meanwhile, and a PyBullet build without the client table falls back to
``pybullet.stepSimulation``."""

from __future__ import annotations

import pybullet as pb
import pytest

from scene_sim_ros.sim.engines.pybullet import native_step
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
from support.gil import other_thread_runs

from .conftest import ball, busy_scene, drive, ground, scene_of, world_state


def test_steps_without_the_gil_give_the_same_trajectory_bit_for_bit():
    native, plain = Simulation(busy_scene(), release_gil=True), Simulation(busy_scene())
    drive(native)
    drive(plain)
    assert native.release_gil, 'this PyBullet build offers no native step (see native_step.py)'
    assert not plain.release_gil
    assert world_state(native) == world_state(plain)
    native.reset()  # a rebuilt world keeps its client: the same handle steps it
    plain.reset()
    drive(native)
    drive(plain)
    assert world_state(native) == world_state(plain)


def test_other_threads_run_while_pybullet_steps():
    """With a switch interval of 10 s, the spinning thread gets the GIL only where the stepping
    thread releases it: never during pybullet.stepSimulation, always during the native step."""
    sim = Simulation(busy_scene())
    step = native_step.native_step(sim.client)
    assert step is not None
    assert other_thread_runs(lambda: pb.stepSimulation(physicsClientId=sim.client)) == 0
    # whether the waiting thread gets a core while the GIL is free is the OS scheduler's call
    # (on a loaded machine it lost all 300 steps of one round): at least once in 10 rounds
    assert any(other_thread_runs(step) > 0 for _ in range(10))


def test_a_pybullet_without_the_client_table_falls_back(monkeypatch):
    native_step._library.cache_clear()
    monkeypatch.setattr(native_step, '_elf_symbols', lambda path, names: {})
    try:
        sim = Simulation(busy_scene(), release_gil=True)
        assert native_step.native_step(sim.client) is None
        drive(sim)
        assert not sim.release_gil
        assert world_state(sim) == world_state(_driven(Simulation(busy_scene())))
    finally:
        native_step._library.cache_clear()


def _driven(sim: Simulation) -> Simulation:
    drive(sim)
    return sim


def test_client_ids_that_are_not_connected_get_no_native_step():
    assert native_step.native_step(-1) is None
    assert native_step.native_step(native_step.MAX_PHYSICS_CLIENTS) is None
    assert native_step.native_step(native_step.MAX_PHYSICS_CLIENTS - 1) is None


def test_elf_symbols_reads_the_static_symbol_table(tmp_path):
    symbols = native_step._elf_symbols(pb.__file__, {native_step.CLIENT_TABLE, 'no such symbol'})
    assert symbols[native_step.CLIENT_TABLE][1] == 8 * native_step.MAX_PHYSICS_CLIENTS
    assert 'no such symbol' not in symbols
    not_elf = tmp_path / 'not.so'
    not_elf.write_bytes(b'#!/bin/sh\n' * 10)
    with pytest.raises(ValueError, match='ELF'):
        native_step._elf_symbols(str(not_elf), {native_step.CLIENT_TABLE})


def test_a_closed_simulation_refuses_to_step_instead_of_using_a_stale_handle():
    # no motors, so that nothing before the physics step asks PyBullet first
    sim = Simulation(scene_of(ground(), ball(position=(0.0, 0.0, 0.5))), release_gil=True)
    sim.step(2)
    sim.close()
    with pytest.raises(pb.error):
        sim.step(1)


def test_the_gil_release_hook_hears_how_long_recent_steps_took():
    sim = Simulation(busy_scene(), release_gil=True)
    heard = []
    sim.on_gil_release = heard.append
    sim.step(20)
    assert len(heard) == 20 * sim.substeps
    assert heard[0] == 0.0  # nothing measured before the first step
    assert all(value > 0.0 for value in heard[1:])
    assert sim.gil_free_seconds > 0.0


def test_release_gil_tells_from_the_start_whether_it_is_possible(monkeypatch):
    assert Simulation(busy_scene(), release_gil=True).release_gil
    native_step._library.cache_clear()
    monkeypatch.setattr(native_step, '_elf_symbols', lambda path, names: {})
    try:
        assert not Simulation(busy_scene(), release_gil=True).release_gil
    finally:
        native_step._library.cache_clear()
