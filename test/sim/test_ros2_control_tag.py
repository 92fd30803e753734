"""``urdf --ros2-control``: the URDF still parses with ROS's own parser (urdf_parser_py, which
skips the ros2_control tag as urdfdom does), and the tag has what ros2_control's component
parser (hardware_interface/src/component_parser.cpp) reads: ``<ros2_control name type>``,
``<hardware><plugin>`` with ``<param name>``, and per joint ``<command_interface name>`` and
``<state_interface name>`` with an optional ``<param name="initial_value">``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from urdf_parser_py.urdf import URDF

from scene_sim_ros import load_scene
from scene_sim_ros.scene import command_interface
from scene_sim_ros.sim.ros2_control import PLUGIN
from scene_sim_ros.sim.urdf import entity_to_urdf
from support.examples import shipped

DEFAULT_SCENE = Path(__file__).resolve().parents[2] / 'scene_sim_ros' / 'data' / 'scenes' / \
    'default.ros2'
TOPICS = ('/rover/joint_commands', '/rover/joint_states')


def rover_urdf() -> tuple[object, str]:
    entity = load_scene(DEFAULT_SCENE).entity('rover')
    return entity, entity_to_urdf(entity, ros2_control=TOPICS)


def test_the_urdf_with_the_tag_parses_with_urdf_parser_py():
    entity, text = rover_urdf()
    robot = URDF.from_xml_string(text.encode())
    assert robot.name == 'rover'
    assert {j.name for j in robot.joints} == {j.name for j in entity.joints}


def test_the_tag_names_the_plugin_the_topics_and_each_joints_native_interface():
    entity, text = rover_urdf()
    (tag,) = ET.fromstring(text).findall('ros2_control')
    assert tag.get('name') == 'rover' and tag.get('type') == 'system'
    hardware = tag.find('hardware')
    assert hardware.findtext('plugin') == PLUGIN
    params = {p.get('name'): p.text for p in hardware.findall('param')}
    assert params == {'joint_commands_topic': TOPICS[0], 'joint_states_topic': TOPICS[1]}
    joints = {j.get('name'): j for j in tag.findall('joint')}
    assert list(joints) == [j.name for j in entity.movable_joints]
    expected = {'left_wheel_joint': 'velocity', 'right_wheel_joint': 'velocity',
                'mast_joint': 'position', 'pan_joint': 'position', 'tilt_joint': 'position'}
    for joint in entity.movable_joints:
        element = joints[joint.name]
        commands = [c.get('name') for c in element.findall('command_interface')]
        assert commands == [expected[joint.name]] == [command_interface(joint.motor)]
        states = {s.get('name'): s for s in element.findall('state_interface')}
        assert list(states) == ['position', 'velocity', 'effort']
        initial = {p.get('name'): p.text for p in states['position'].findall('param')}
        assert float(initial['initial_value']) == joint.initial_position
    assert float(joints['mast_joint'].find('state_interface/param').text) == 0.05


def test_every_shipped_robot_gets_a_tag_that_parses():
    for path in shipped():
        for entity in load_scene(path).entities:
            if entity.kind != 'robot' or not entity.movable_joints:
                continue
            text = entity_to_urdf(entity, ros2_control=('/c', '/s'))
            URDF.from_xml_string(text.encode())
            tag = ET.fromstring(text).find('ros2_control')
            assert len(tag.findall('joint')) == len(entity.movable_joints), path
