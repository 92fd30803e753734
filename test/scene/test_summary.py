import json
import math

from scene_sim_ros.scene import Box, Camera, Collision, Entity, Inertial, Joint, Link, Scene, ServoMotor
from scene_sim_ros.scene.summary import scene_summary, summary_text


def make_scene() -> Scene:
    arm = Entity(
        name='arm', kind='robot',
        links=(Link('base', Inertial(1.0)), Link('upper', Inertial(0.5), (Collision(Box((1, 1, 1))),)),
               Link('tool', Inertial(0.25))),
        joints=(Joint('shoulder', 'revolute', 'base', 'upper', limits=(-1.0, 1.0),
                      motor=ServoMotor(2.0, 10.0, p=5.0)),
                Joint('flange', 'fixed', 'upper', 'tool')),
        sensors=(Camera('eye', 'tool', 64, 48, math.radians(60), math.radians(45)),))
    return Scene('demo', (arm,), format='test', step_length=0.005, warnings=('f:1: note',))


def test_summary_lists_movable_joints_only_with_motor_parameters():
    entity = scene_summary(make_scene())['entities'][0]
    assert entity['links'] == 3
    assert entity['mass'] == 1.75
    assert [j['name'] for j in entity['joints']] == ['shoulder']
    assert entity['joints'][0]['motor'] == {'type': 'servo', 'max_velocity': 2.0,
                                            'max_force': 10.0, 'p': 5.0, 'i': 0.0, 'd': 0.0}
    assert entity['joints'][0]['limits'] == [-1.0, 1.0]


def test_summary_sensors_carry_type_link_and_parameters():
    sensor = scene_summary(make_scene())['entities'][0]['sensors'][0]
    assert sensor['type'] == 'camera' and sensor['link'] == 'tool'
    assert (sensor['width'], sensor['height']) == (64, 48)
    assert 'pose' not in sensor


def test_summary_is_json_serialisable_and_keeps_warnings():
    data = json.loads(json.dumps(scene_summary(make_scene())))
    assert data['step_length'] == 0.005
    assert data['gravity'] == [0.0, 0.0, -9.81]
    assert data['warnings'] == ['f:1: note']


def test_summary_text_names_robots_and_sensors():
    text = summary_text(make_scene())
    assert 'robot  arm: 3 links, 1.750 kg, 1 joints, 1 sensors' in text
    assert 'eye (camera)' in text
