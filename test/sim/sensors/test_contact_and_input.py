"""Collision sensor, user input and joint position sensor through the real Simulation."""

from __future__ import annotations

import math
from pathlib import Path

import pybullet as pb
import pytest

import scene_sim_ros
from scene_sim_ros import Simulation, load_scene
from scene_sim_ros.scene import Box, Collision, Entity, Joint, Link, Pose, ServoMotor
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


def bumper_box(parts, position, mass=1.0):
    """A 0.2 m box whose bumper is a thin plate on its front face (+x), 1 cm off the floor."""
    plate = Collision(Box((0.02, 0.2, 0.1)), pose=Pose((0.11, 0.0, 0.01)), name='plate')
    body = parts.box_link('base', (0.2, 0.2, 0.2), mass=mass)
    link = Link('base', inertial=body.inertial, collisions=(*body.collisions, plate),
                visuals=body.visuals)
    return Entity(name='box', kind='robot', links=(link,), pose=Pose(position),
                  sensors=(CollisionSensor('bumper', 'base', ('plate',)),))


def test_collision_sensor_with_named_shapes_ignores_the_other_shapes(parts, simulate):
    floor = parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1))
    sim = simulate(parts.make_scene(bumper_box(parts, (0.0, 0.0, 0.1)), floor))
    sim.step(100)  # resting on the floor: the box touches it, its bumper does not
    assert {c.other_entity for c in sim.contacts('box')} == {'floor'}
    assert sim.read('box', 'bumper') == {'in_contact': False, 'contacts': []}


def test_collision_sensor_with_named_shapes_fires_when_they_hit(parts, simulate):
    floor = parts.static_box('floor', (5.0, 5.0, 0.2), (0.0, 0.0, -0.1))
    wall = parts.static_box('wall', (0.2, 2.0, 1.0), (1.0, 0.0, 0.5))
    sim = simulate(parts.make_scene(bumper_box(parts, (0.0, 0.0, 0.1)), floor, wall))
    sim.step(20)
    assert sim.read('box', 'bumper')['in_contact'] is False
    sim.set_pose('box', (0.78, 0.0, 0.1), (0.0, 0.0, 0.0, 1.0))  # plate front at x 0.9
    sim.set_velocity('box', (0.5, 0.0, 0.0), (0.0, 0.0, 0.0))
    sim.step(20)
    assert sim.read('box', 'bumper') == {'in_contact': True, 'contacts': ['wall/base']}
    bumper = [c for c in sim.contacts('box') if c.other_entity == 'wall']
    assert bumper and {c.link for c in bumper} == {'base'}  # reported as the model link


def test_collision_sensor_shapes_leave_the_model_links_and_mass_alone(parts, simulate):
    sim = simulate(parts.make_scene(bumper_box(parts, (0.0, 0.0, 1.0), mass=2.0)))
    assert list(sim.link_poses('box')) == ['base']
    assert sim.center_of_mass('box') == pytest.approx((0.0, 0.0, 1.0), abs=1e-9)
    body = sim.body_id('box')
    masses = [pb.getDynamicsInfo(body, i, physicsClientId=sim.client)[0]
              for i in range(-1, pb.getNumJoints(body, physicsClientId=sim.client))]
    assert len(masses) == 2 and sum(masses) == pytest.approx(2.0, abs=1e-12)
    helper = sim.sensor_link_index('box', 'bumper')
    assert helper == 0 and sim.link_name(body, helper) == 'base'


def test_rover_bumper_of_the_default_scene_is_quiet_at_rest():
    default = Path(scene_sim_ros.__file__).parent / 'data' / 'scenes' / 'default.ros2'
    with Simulation(load_scene(default)) as sim:
        sim.step(50)
        assert {c.other_entity for c in sim.contacts('rover')} == {'ground'}  # casters, wheels
        assert sim.read('rover', 'bumper') == {'in_contact': False, 'contacts': []}
