"""Webots' Emitter and Receiver (sim/sensors/radio.py): a packet sent is received after the next
step by every receiver of the same medium and channel within range and both apertures, once,
and not before that step."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.sim.engines.pybullet.simulation import Simulation

WORLD = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 10 }
Robot { name "sender" translation 0 0 0.1
  children [
    Emitter { name "radio" channel 1 range 5 }
    Emitter { name "beam" channel 2 aperture 0.5 type "infra-red" }
    Emitter { name "broadcast" channel -1 }
  ] }
Robot { name "near" translation 2 0 0.1 rotation 0 0 1 3.14159
  children [ Receiver { name "rx" channel 1 } Receiver { name "ir" channel 2 type "infra-red" aperture 1 } ] }
Robot { name "far" translation 8 0 0.1
  children [ Receiver { name "rx" channel 1 } ] }
Robot { name "aside" translation 0 2 0.1
  children [ Receiver { name "rx" channel 1 } Receiver { name "ir" channel 2 type "infra-red" } ] }
Robot { name "other_channel" translation 1 0 0.1
  children [ Receiver { name "rx" channel 3 } ] }
Robot { name "all_channels" translation 1 0 0.1
  children [ Receiver { name "rx" channel -1 } ] }
"""

RECEIVERS = [('near', 'rx'), ('near', 'ir'), ('far', 'rx'), ('aside', 'rx'), ('aside', 'ir'),
             ('other_channel', 'rx'), ('all_channels', 'rx')]


@pytest.fixture
def sim(tmp_path):
    (tmp_path / 'radio.wbt').write_text(WORLD)
    with Simulation(load_scene(tmp_path / 'radio.wbt')) as sim:
        yield sim


def heard(sim):
    return {(e, r): sim.read(e, r) for e, r in RECEIVERS}


def test_packets_arrive_after_the_next_step_where_medium_channel_range_and_aperture_allow(sim):
    sim.reader('sender', 'radio').send('hello')
    sim.reader('sender', 'beam').send('ping')
    assert all(not packets for packets in heard(sim).values())   # not before a step
    sim.step(1)
    got = heard(sim)
    assert got[('near', 'rx')] == ['hello']          # channel 1, 2 m < range 5
    assert got[('far', 'rx')] == []                  # 8 m > range 5
    assert got[('aside', 'rx')] == ['hello']         # omnidirectional
    assert got[('other_channel', 'rx')] == []        # channel 3
    assert got[('all_channels', 'rx')] == ['hello']  # a receiver on channel -1 hears all
    assert got[('near', 'ir')] == ['ping']           # in the 0.5 rad beam, facing it
    assert got[('aside', 'ir')] == []                # 90 degrees off the beam
    sim.step(1)
    assert all(not packets for packets in heard(sim).values())   # each packet once


def test_a_broadcast_emitter_reaches_every_channel_of_its_medium(sim):
    sim.reader('sender', 'broadcast').send('all')
    sim.step(1)
    got = heard(sim)
    assert got[('near', 'rx')] == got[('other_channel', 'rx')] == got[('far', 'rx')] == ['all']
    assert got[('near', 'ir')] == []   # another medium


def test_the_receiver_aperture_is_a_cone_about_its_x_axis(sim):
    """'near' faces the sender (turned by pi): inside its 1 rad cone; turned away it hears
    nothing from the beam."""
    sim.set_pose('near', (2.0, 0.0, 0.1), (0.0, 0.0, 0.0, 1.0))   # +x now points away
    sim.reader('sender', 'beam').send('ping')
    sim.step(1)
    assert sim.read('near', 'ir') == []
    assert math.isclose(sim.read('sender', 'beam'), 1)   # sent, though nobody heard it
