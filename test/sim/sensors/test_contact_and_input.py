"""Collision sensor, user input and joint position sensor through the real Simulation."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.scene import Entity, Joint, Pose, ServoMotor
from scene_sim_ros.scene.sensors import CollisionSensor, JointPositionSensor, UserInput
from scene_sim_ros.sim.sensors import create_reader


def test_collision_sensor_fires_on_contact_only(parts, simulate):
    box = parts.free_box('box', (0.2, 0.2, 0.2), (0.0, 0.0, 0.5),
                         sensors=[CollisionSensor('bumper', 'base')])
    scene = parts.make_scene(box, parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)
    sim.step(5)  # falling: 0.4 m above the floor
    assert sim.read('box', 'bumper') == {'in_contact': False, 'contacts': []}
    sim.step(100)  # landed
    assert sim.read('box', 'bumper') == {'in_contact': True, 'contacts': ['floor/base']}


def test_collision_sensor_stays_quiet_near_but_not_touching(parts, simulate):
    host = parts.sensor_host([CollisionSensor('bumper', 'base')], pose=Pose((0.0, 0.0, 0.03)))
    scene = parts.make_scene(host, parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1)))
    sim = simulate(scene)  # the host's 4 cm cube hovers 1 cm above the floor, fixed
    sim.step(10)
    assert sim.read('host', 'bumper')['in_contact'] is False


def test_user_input_reads_default_then_the_value_set(parts, simulate):
    knob = UserInput('knob', 'base', minimum=-1.0, maximum=2.0, default=0.5, unit='m')
    sim = simulate(parts.make_scene(parts.sensor_host([knob])))
    assert sim.read('host', 'knob') == 0.5
    reader = create_reader(sim, 'host', knob)
    reader.set(1.5)
    sim.step()
    assert reader.read() == 1.5
    with pytest.raises(ValueError, match='outside'):
        reader.set(2.5)
    with pytest.raises(ValueError):
        reader.set(math.nan)
    assert reader.read() == 1.5
    reader.reset()
    assert reader.read() == 0.5


def test_joint_position_sensor_reads_the_joint(parts, simulate):
    hinge = Joint('hinge', 'revolute', 'base', 'arm', origin=Pose((0.0, 0.0, 0.2)),
                  axis=(0.0, 1.0, 0.0), limits=(-1.0, 1.0), initial_position=0.3,
                  motor=ServoMotor(max_velocity=2.0, max_force=50.0))
    robot = Entity(name='arm', kind='robot',
                   links=(parts.box_link('base', (0.2, 0.2, 0.2), mass=1.0),
                          parts.box_link('arm', (0.05, 0.05, 0.3), mass=0.2)),
                   joints=(hinge,), sensors=(JointPositionSensor('encoder', 'arm', 'hinge'),),
                   pose=Pose((0.0, 0.0, 0.5)), fixed_base=True)
    sim = simulate(parts.make_scene(robot))
    assert sim.read('arm', 'encoder') == pytest.approx(0.3, abs=1e-6)
    sim.command('arm', 'hinge', position=-0.5)
    sim.step(200)
    assert sim.read('arm', 'encoder') == pytest.approx(sim.joint_states('arm')['hinge'][0])
    assert sim.read('arm', 'encoder') < 0.2  # it moved towards the command
