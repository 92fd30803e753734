"""SimRobot HEAD's grammar (3316d64 and later): PBR ``Surface``, ``Material`` friction
attributes, light ``color``/``intensity`` -- loaded, simulated and rendered."""

from __future__ import annotations

import pybullet as pb
import pytest

from scene_sim_ros import Simulation
from scene_sim_ros.errors import SceneLoadError

HEAD_SCENE = """
  <Surface name="red" albedo="rgb(100%, 0%, 0%)" roughness="1.0"/>
  <Surface name="glass" albedo="#3080ff" alpha="0.5" metallic="1.0" roughness="0.3"/>
  <Surface name="metal" albedo="rgb(50%, 50%, 50%)" metallic="1.0" roughness="0.3"/>
  <Material name="Ice" friction="0"/>
  <Material name="Stone" friction="0.8"/>
  <Material name="Rubber" friction="1.2"/>
"""
BODIES = """
    <PointLight z="8m" color="#ff8000" intensity="0.5"/>
    <Compound name="floor">
      <BoxGeometry width="4" height="0.1" depth="4"><Translation z="-0.05"/>
        <Material ref="Stone"/></BoxGeometry>
      <BoxAppearance width="4" height="0.1" depth="4"><Translation z="-0.05"/>
        <Surface ref="metal"/></BoxAppearance>
    </Compound>
    <Body name="puck">
      <Translation z="0.05"/>
      <BoxMass value="1" width="0.2" height="0.1" depth="0.2"/>
      <BoxGeometry width="0.2" height="0.1" depth="0.2"><Material ref="Ice"/></BoxGeometry>
      <BoxAppearance width="0.2" height="0.1" depth="0.2"><Surface ref="red"/></BoxAppearance>
    </Body>
    <Body name="brick">
      <Translation x="1" z="0.05"/>
      <BoxMass value="1" width="0.2" height="0.1" depth="0.2"/>
      <BoxGeometry width="0.2" height="0.1" depth="0.2"><Material ref="Rubber"/></BoxGeometry>
      <BoxAppearance width="0.2" height="0.1" depth="0.2"><Surface ref="glass"/></BoxAppearance>
    </Body>
"""


@pytest.fixture
def head_scene(scene_of):
    return scene_of(BODIES, HEAD_SCENE, name='head.ros3')


def test_head_grammar_is_detected_and_mapped(head_scene):
    decision = head_scene.metadata['simrobot_dialect']
    assert (decision['grammar'], decision['core']) == ('core3', 3)
    assert head_scene.entity('puck').links[0].visuals[0].color == (1.0, 0.0, 0.0, 1.0)
    glass = head_scene.entity('brick').links[0].visuals[0].color
    assert glass == pytest.approx((0x30 / 255, 0x80 / 255, 1.0, 0.5))
    light = head_scene.lights[0]
    assert light.diffuse[:3] == pytest.approx((0.5, 0.5 * 128 / 255, 0.0))
    pairs = {frozenset((p.material_a, p.material_b)): p.friction
             for p in head_scene.material_pairs}
    # a material's own friction holds against every material; two of them mix by the larger
    assert pairs[frozenset(('Ice', 'Stone'))] == 0.8
    assert pairs[frozenset(('Rubber', 'Stone'))] == 1.2
    assert pairs[frozenset(('Ice', ''))] == 0.0


def test_pbr_surfaces_map_to_phong_materials(head_scene):
    red = head_scene.entity('puck').links[0].visuals[0].surface
    assert red.diffuse == (1.0, 0.0, 0.0, 1.0) and red.ambient[:3] == (1.0, 0.0, 0.0)
    assert red.specular[:3] == pytest.approx((0.04,) * 3) and red.shininess == 1.0
    metal = head_scene.entity('floor').links[0].visuals[0].surface
    assert metal.diffuse[:3] == (0.0, 0.0, 0.0)  # metals have no diffuse term
    assert metal.specular[:3] == pytest.approx((0.5,) * 3)
    assert metal.shininess == 128.0  # 2 / 0.3^4 - 2 = 245, clamped


def test_unrendered_pbr_attributes_warn_once(head_scene):
    for key in ('metallic', 'roughness'):
        assert sum(f'"{key}" of <Surface>' in w for w in head_scene.warnings) == 1


def test_head_scene_simulates_and_renders_its_colours(head_scene):
    # PyBullet holds visual shapes (and their colours) only for TinyRenderer: the gl renderer
    # draws from the scene model
    with Simulation(head_scene, renderer='tiny') as sim:
        sim.step(50)
        assert sim.get_pose('puck')[0][2] == pytest.approx(0.05, abs=0.005)
        colors = {tuple(round(c, 3) for c in shape[7])
                  for shape in pb.getVisualShapeData(sim.body_id('puck'),
                                                     physicsClientId=sim.client)}
        assert (1.0, 0.0, 0.0, 1.0) in colors


def test_surface_without_a_colour_is_an_error(scene_of):
    with pytest.raises(SceneLoadError, match=r'head\.ros3:\d+:.*albedo'):
        scene_of("""<Body name="b"><BoxMass value="1" width="1" height="1" depth="1"/>
                      <BoxAppearance width="1" height="1" depth="1"><Surface ref="s"/>
                      </BoxAppearance></Body>""",
                 '<Surface name="s" roughness="1"/>', name='head.ros3')


@pytest.mark.parametrize('definitions, bodies, construct', [
    ('<Surface name="old" diffuseColor="#ff0000"/>', '', '<Surface> attribute "diffuseColor"'),
    ('', '<Body name="m"><BoxMass value="1" width="1" height="1" depth="1"/>'
         '<PT2Motor T="0.1" D="1" K="1" V="1" F="1"/></Body>', '<PT2Motor>'),
    ('<Material name="old"><Friction material="Stone" value="0.5"/></Material>', '',
     '<Friction>'),
])
def test_core2_constructs_in_a_new_grammar_file_are_errors(scene_of, definitions, bodies,
                                                           construct):
    """SimRobot >= 3316d64 dropped them: its parser rejects them, with the file and line."""
    with pytest.raises(SceneLoadError) as raised:
        scene_of(BODIES + bodies, HEAD_SCENE + definitions, name='head.ros3')
    message = str(raised.value)
    assert construct in message and "not part of SimRobot's current grammar" in message
    assert 'head.ros3:' in message and 'albedo' in message  # where, and the evidence


def test_core2_constructs_in_a_core2_file_still_load(scene_of):
    scene = scene_of('<Body name="b"><BoxMass value="1" width="1" height="1" depth="1"/>'
                     '<BoxAppearance width="1" height="1" depth="1"><Surface ref="s"/>'
                     '</BoxAppearance></Body>',
                     '<Surface name="s" diffuseColor="#ff0000"/>', name='old.ros2')
    assert scene.metadata['simrobot_dialect']['grammar'] == 'core2'
