"""Which SimRobot grammar and servo law a scene targets (formats/simrobot/dialect.py)."""

from __future__ import annotations

import pytest

from scene_sim_ros import load_scene
from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.scene.summary import summary_text
from support.corpus import CORPUS as CORPUS_ROOT
from support.corpus import missing
from support.examples import shipped

CORPUS = CORPUS_ROOT / 'simrobot'

ARM = """
    <Body name="robot">
      <BoxMass value="1kg" depth="0.1" width="0.1" height="0.1"/>
      <Hinge name="joint">
        <Axis y="1">
          <Deflection min="-30degree" max="60degree"/>
          {servo}
        </Axis>
        <Body name="arm"><SphereMass value="0.5kg" radius="0.01"/></Body>
      </Hinge>
    </Body>"""
NAO_SERVO = '<ServoMotor maxVelocity="400degree/s" maxForce="5" p="40" d="0.5"{extra}/>'
ODE_SERVO = '<ServoMotor maxVelocity="400degree/s" maxForce="16" p="20"/>'


def _motor(scene):
    return scene.entity('robot').joint('joint').motor


def test_mujoco_era_nao_gains_without_ode_attributes_are_core3(scene_of):
    scene = scene_of(ARM.format(servo=NAO_SERVO.format(extra='')))
    decision = scene.metadata['simrobot_dialect']
    assert (decision['grammar'], decision['core']) == ('core2', 3)
    assert 'maxForce <= 10' in decision['reasons'][0]
    assert _motor(scene).control == 'torque'
    assert 'SimRobotCore3 torque PD' in summary_text(scene)


def test_ode_attributes_decide_core2(scene_of):
    scene = scene_of(ARM.format(servo=NAO_SERVO.format(extra='')), scene_attributes=' ERP="0.2"')
    decision = scene.metadata['simrobot_dialect']
    assert decision['core'] == 2 and 'Scene ERP' in decision['reasons'][0]
    assert _motor(scene).control == 'velocity'


def test_no_evidence_keeps_core2(scene_of):
    scene = scene_of(ARM.format(servo=ODE_SERVO))
    assert scene.metadata['simrobot_dialect']['core'] == 2
    assert _motor(scene).control == 'velocity'


def test_delay_is_mujoco_only_and_is_read(scene_of):
    scene = scene_of(ARM.format(servo=NAO_SERVO.format(
        extra=' delay="0.024s" velocityLowPassFactor="0.5"')), scene_attributes=' ERP="0.2"')
    decision = scene.metadata['simrobot_dialect']
    assert decision['core'] == 3 and 'delay' in decision['reasons'][0]
    motor = _motor(scene)
    assert (motor.control, motor.delay, motor.velocity_filter) == ('torque', 0.024, 0.5)


def test_pbr_surface_is_the_new_grammar(scene_of):
    scene = scene_of(ARM.format(servo=ODE_SERVO),
                     definitions='<Surface name="red" albedo="#f00"/>')
    decision = scene.metadata['simrobot_dialect']
    assert (decision['grammar'], decision['core']) == ('core3', 3)


@pytest.mark.parametrize('choice, control', [(2, 'velocity'), ('3', 'torque'),
                                             ('auto', 'torque')])
def test_override(scene_of, choice, control):
    scene = scene_of(ARM.format(servo=NAO_SERVO.format(extra='')), simrobot_core=choice)
    assert _motor(scene).control == control
    assert scene.metadata['simrobot_dialect']['overridden'] == (choice == 2)


def test_bad_override_is_an_error(scene_of):
    with pytest.raises(SceneLoadError, match='simrobot_core'):
        scene_of(ARM.format(servo=ODE_SERVO), simrobot_core='4')


@pytest.mark.parametrize('relative, grammar, core', [
    ('BHumanCodeRelease/Config/Scenes/Game.ros2', 'core2', 3),  # CR2025: MuJoCo inside Core2
    ('BHumanCodeRelease@HEAD/Config/Scenes/Game.ros3', 'core2', 3),
    ('BHumanCodeRelease@2018/Config/Scenes/Game.ros2', 'core2', 2),
    ('SimRobot/Scenes/Factory.ros2', 'core2', 2),
])
def test_corpus_decisions(relative, grammar, core):
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(missing(path))
    decision = load_scene(path).metadata['simrobot_dialect']
    assert (decision['grammar'], decision['core']) == (grammar, core), decision['reasons']


@pytest.mark.parametrize('path', shipped('simrobot'), ids=lambda p: p.name)
def test_shipped_scenes_are_core2_with_the_velocity_servo_law(path):
    """The scenes that ship carry no evidence of the new grammar (PBR surfaces, light intensity)
    nor of the MuJoCo-era servo (delay, velocityLowPassFactor, a damping gain d): the decision is
    the Core2 grammar with SimRobotCore2's velocity servo law."""
    text = path.read_text()
    assert '<ServoMotor' in text or '<VelocityMotor' in text
    evidence = ('albedo=', 'metallic=', 'roughness=', 'intensity=', 'delay=',
                'velocityLowPassFactor=', ' d="')
    assert not [word for word in evidence if word in text]
    decision = load_scene(path).metadata['simrobot_dialect']
    assert (decision['grammar'], decision['core'], decision['servo_law']) == \
        ('core2', 2, 'velocity'), decision['reasons']
    assert not decision['overridden']


def test_nao_motor_mode_is_core2_and_warned_once(scene_of):
    servo = NAO_SERVO.format(extra=' isNaoMotor="true" fudgeFactor="0.5"')
    scene = scene_of(ARM.format(servo=servo))
    assert scene.metadata['simrobot_dialect']['core'] == 2
    assert sum('isNaoMotor' in w and 'approximated' in w for w in scene.warnings) == 1
