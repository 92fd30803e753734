"""Wires (RaiSim's length constraints): stiff, compliant and custom, in the simulator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scene_sim_ros.scene import ContactDefaults, Entity, Link, Pose, Wire
from scene_sim_ros.sim.simulator import Simulator

from .conftest import ball, scene_of

pytestmark = pytest.mark.engines('pybullet',
                                reason='wires/bounce: MuJoCo engine lacks them (in progress)')


def pin(name: str = 'pin', position=(0.0, 0.0, 2.0)) -> Entity:
    return Entity(name, 'static', (Link(name),), pose=Pose(position))


def length(sim: Simulator, a: str, b: str) -> float:
    return math.dist(sim.get_pose(a)[0], sim.get_pose(b)[0])


def test_stiff_wire_of_half_a_metre_keeps_its_length_within_one_percent(make_sim):
    # a 1 kg ball on a 0.5 m wire, released 0.3 m sideways: it swings (taut) for 2 s
    start = (0.3, 0.0, 2.0 - 0.4)
    scene = scene_of(pin(), ball(mass=1.0, position=start),
                     wires=(Wire('rope', 'pin/pin', (0, 0, 0), 'ball/ball', (0, 0, 0), 0.5),))
    sim = make_sim(scene)
    lengths, xs = [], []
    while sim.time < 2.0:
        sim.step()
        lengths.append(length(sim, 'pin', 'ball'))
        xs.append(sim.get_pose('ball')[0][0])
    assert max(abs(v - 0.5) for v in lengths) < 0.005
    assert min(xs) < -0.25  # it swings through to the other side
    assert not sim.warnings


def test_stiff_wire_between_two_free_bodies_only_pulls(make_sim):
    # two balls 0.3 m apart on a 0.5 m wire: slack, they fall together; pulled apart, it holds
    scene = scene_of(ball('a', mass=1.0, position=(0, 0, 2)), ball('b', mass=2.0, position=(0.3, 0, 2)),
                     wires=(Wire('rope', 'a/a', (0, 0, 0), 'b/b', (0, 0, 0), 0.5),),
                     gravity=(0.0, 0.0, 0.0))
    sim = make_sim(scene)
    sim.set_velocity('b', (1.0, 0, 0), (0, 0, 0))
    sim.step(100)  # 0.1 s: slack the whole time, a stays put
    assert sim.get_pose('a')[0][0] == pytest.approx(0.0, abs=1e-9)
    sim.step(900)
    assert length(sim, 'a', 'b') == pytest.approx(0.5, rel=0.01)
    # momentum is conserved: 2 kg * 1 m/s shared by 3 kg
    velocity = sim.get_velocity('a')[0][0] + 2.0 * sim.get_velocity('b')[0][0]
    assert velocity == pytest.approx(2.0, rel=1e-3)


def test_compliant_wire_stretches_by_weight_over_stiffness(make_sim):
    stiffness = 2000.0
    scene = scene_of(pin(), ball(mass=1.0, position=(0, 0, 1.5)),
                     wires=(Wire('spring', 'pin/pin', (0, 0, 0), 'ball/ball', (0, 0, 0), 0.5,
                                 stiffness, kind='compliant'),))
    sim = make_sim(scene)
    stretched = []
    while sim.time < 3.0:
        sim.step()
        stretched.append(length(sim, 'pin', 'ball') - 0.5)
    mean = float(np.mean(stretched[-1000:]))  # it oscillates about the rest stretch
    assert mean == pytest.approx(9.81 / stiffness, rel=0.05)


def test_custom_wire_pulls_with_its_tension(make_sim):
    scene = scene_of(pin(position=(0, 0, 1)), ball(mass=1.0, position=(1, 0, 1)),
                     wires=(Wire('custom', 'pin/pin', (0, 0, 0), 'ball/ball', (0, 0, 0), 0.5,
                                 kind='custom', tension=2.0),), gravity=(0.0, 0.0, 0.0))
    sim = make_sim(scene)
    sim.step(100)
    assert sim.get_velocity('ball')[0][0] == pytest.approx(-2.0 * 0.1, rel=1e-2)


def cradle(make_sim, count: int = 5, radius: float = 0.05, lift: float = 0.2,
           gap: float = 0.002) -> Simulator:
    """Balls on 0.5 m stiff wires from pins a diameter and ``gap`` apart, the first lifted."""
    entities, wires = [], []
    for i in range(count):
        x = (2.0 * radius + gap) * i
        entities.append(pin(f'pin{i}', (x, 0.0, 1.0)))
        position = (x, 0.0, 0.5)
        if i == 0:
            position = (x - math.sqrt(0.5 ** 2 - (0.5 - lift) ** 2), 0.0, 1.0 - (0.5 - lift))
        entities.append(ball(f'ball{i}', radius=radius, mass=0.2, position=position))
        wires.append(Wire(f'wire{i}', f'pin{i}/pin{i}', (0, 0, 0), f'ball{i}/ball{i}', (0, 0, 0),
                          0.5))
    return make_sim(scene_of(*entities, wires=tuple(wires),
                             contact_defaults=ContactDefaults(friction=0.0, restitution=1.0)))


def test_newtons_cradle_of_five_balls_transfers_momentum(make_sim):
    sim = cradle(make_sim)
    speeds = {f'ball{i}': 0.0 for i in range(5)}
    while sim.time < 0.5:  # the first ball swings down (~0.3 s) and hits
        sim.step()
        for name in speeds:
            speeds[name] = max(speeds[name], abs(sim.get_velocity(name)[0][0]))
    first = speeds['ball0']
    assert first > 1.5  # sqrt(2 g 0.2) = 1.98 m/s at the bottom
    # the last ball leaves with the first ball's speed; the others stay (nearly) at rest
    assert speeds['ball4'] > 0.9 * first
    for i in range(4):
        assert abs(sim.get_velocity(f'ball{i}')[0][0]) < 0.1 * first
    assert sim.get_velocity('ball4')[0][0] > 0.5 * first
    for i in range(5):
        assert length(sim, f'pin{i}', f'ball{i}') < 0.5 * 1.01


def test_raisim_world_wire_keeps_a_pendulum_on_its_length(make_sim, tmp_path):
    from scene_sim_ros.formats.raisim import load
    path = tmp_path / 'pendulum.xml'
    path.write_text("""<?xml version="1.0" ?>
<raisim version="1.0">
    <objects>
        <sphere name="pin" mass="1" body_type="static"><dim radius="0.01"/>
            <state pos="0 0 2"/></sphere>
        <sphere name="bob" mass="1" com="0 0 0"><dim radius="0.05"/>
            <state pos="0.3 0 1.6"/></sphere>
    </objects>
    <wire name="string" type="stiff" length="0.5">
        <object1 name="pin" local_index="0" pos="0 0 0"/>
        <object2 name="bob" local_index="0" pos="0 0 0"/>
    </wire>
</raisim>
""")
    scene = load(path)
    assert [w.name for w in scene.wires] == ['string'] and not scene.warnings
    sim = make_sim(scene)
    lengths = []
    while sim.time < 1.0:
        sim.step()
        lengths.append(length(sim, 'pin', 'bob'))
    assert max(abs(v - 0.5) for v in lengths) < 0.005
    assert sim.get_pose('bob')[0][0] < 0.0  # it swung


def test_stiff_wire_resisting_both_ways_is_a_rod(make_sim):
    scene = scene_of(ball('a', mass=1.0, position=(0, 0, 2)), ball('b', mass=1.0, position=(0.5, 0, 2)),
                     wires=(Wire('rod', 'a/a', (0, 0, 0), 'b/b', (0, 0, 0), 0.5, stretch='both'),),
                     gravity=(0.0, 0.0, 0.0))
    sim = make_sim(scene)
    sim.set_velocity('b', (-1.0, 0, 0), (0, 0, 0))  # pushed towards a: the rod pushes a along
    sim.step(300)
    assert length(sim, 'a', 'b') == pytest.approx(0.5, rel=0.01)
    assert sim.get_velocity('a')[0][0] == pytest.approx(-0.5, rel=0.02)
