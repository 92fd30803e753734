"""``ref``, ``Set`` and ``$placeholders`` with SimRobot's rules; includes; fragments."""

from __future__ import annotations

import pytest

from scene_sim_ros.formats.simrobot import load, load_entity_fragment
from scene_sim_ros.scene import geometry

ROBOT = """
<Surface name="skin-red" diffuseColor="#f00"/>
<Surface name="skin-blue" diffuseColor="#00f"/>
<BoxAppearance name="shell" depth="$Size" width="1" height="1"><Surface ref="skin-$Color"/></BoxAppearance>
<Body name="Robot">
  <Translation z="1"/>
  <Rotation z="90degree"/>
  <Set name="Color" value="red"/>
  <Set name="Size" value="2"/>
  <SphereMass value="1kg" radius="0.1"/>
  <BoxAppearance ref="shell"/>
  <Geometry name="$Color"/>
  <SphereGeometry radius="0.1" name="head-$Color"/>
</Body>
"""


def test_ref_overrides_translation_and_keeps_definition_rotation(scene_of) -> None:
    scene = scene_of('<Body ref="Robot" name="r1"><Translation x="5"/></Body>', ROBOT)
    entity = scene.entity('r1')
    assert entity.pose.position == pytest.approx((5, 0, 0))  # Translation replaced, not added
    assert entity.pose.orientation[2] == pytest.approx(2 ** -0.5)  # Rotation inherited


def test_ref_inherits_name_and_children(scene_of) -> None:
    scene = scene_of('<Body ref="Robot"/>', ROBOT)
    entity = scene.entity('Robot')
    assert entity.mass == pytest.approx(1.0)
    assert [v.shape for v in entity.root.visuals] == [geometry.Box((2.0, 1.0, 1.0))]


def test_set_in_referencing_element_wins_and_resolves_inside_referenced_subtrees(scene_of) -> None:
    scene = scene_of("""
        <Body ref="Robot" name="blue"><Set name="Color" value="blue"/></Body>
        <Body ref="Robot" name="red"/>""", ROBOT)
    blue, red = scene.entity('blue'), scene.entity('red')
    assert blue.root.visuals[0].color == (0.0, 0.0, 1.0, 1.0)
    assert red.root.visuals[0].color == (1.0, 0.0, 0.0, 1.0)
    assert [c.name for c in blue.root.collisions] == ['head-blue']  # placeholder in a name
    assert [c.name for c in red.root.collisions] == ['head-red']


def test_referencing_element_adds_children(scene_of) -> None:
    scene = scene_of("""
        <Body ref="Robot" name="heavy"><BoxMass value="2kg" depth="1" width="1" height="1"/></Body>""",
                     ROBOT)
    assert scene.entity('heavy').mass == pytest.approx(3.0)


def test_placeholder_in_numbers_from_outer_scope(scene_of) -> None:
    scene = scene_of("""
        <Compound name="group">
          <Set name="R" value="25mm"/>
          <Body name="ball"><SphereMass value="1kg" radius="$R"/><SphereGeometry radius="$(R)"/></Body>
        </Compound>""")
    assert scene.entity('ball').root.collisions[0].shape == geometry.Sphere(pytest.approx(0.025))


def test_own_set_does_not_apply_to_own_attributes(scene_of) -> None:
    from scene_sim_ros.errors import SceneLoadError
    with pytest.raises(SceneLoadError, match=r'unresolved placeholder "\$N"'):
        scene_of('<Body name="x$N"><Set name="N" value="1"/><SphereMass value="1kg" radius="1"/></Body>')


def test_ref_chain_and_parameters(scene_of) -> None:
    scene = scene_of('<Body ref="Alias" name="a"/>', ROBOT + '<Body name="Alias" ref="Robot"/>')
    assert scene.entity('a').mass == pytest.approx(1.0)
    scene = scene_of('<Body name="p"><SphereMass value="$M" radius="1"/></Body>',
                     name='p.ros2', parameters={'M': '3kg'})
    assert scene.entity('p').mass == pytest.approx(3.0)


def test_include_relative_to_including_file_and_texture_relative_to_its_file(write_file,
                                                                             tmp_path) -> None:
    write_file('defs/robot.rsi2', """
        <Simulation>
          <Include href="more/surfaces.rsi2"/>
          <Body name="Bot"><SphereMass value="1kg" radius="0.1"/>
            <SphereAppearance radius="0.1"><Surface ref="painted"/></SphereAppearance></Body>
        </Simulation>""")
    write_file('defs/more/surfaces.rsi2', """
        <Simulation>
          <Surface name="painted" diffuseColor="#fff" diffuseTexture="../tex/paint.png"/>
        </Simulation>""")
    main = write_file('scenes/main.ros2', """
        <Simulation>
          <Include href="../defs/robot.rsi2"/>
          <Scene name="S"><Body ref="Bot" name="bot"/></Scene>
        </Simulation>""")
    visual = load(main).entity('bot').root.visuals[0]
    assert visual.texture == tmp_path / 'defs' / 'tex' / 'paint.png'


def test_fragment_body_with_definitions(tmp_path) -> None:
    entity = load_entity_fragment("""
        <Simulation>
          <Surface name="s" diffuseColor="#0f0"/>
          <Body name="crate">
            <Translation z="0.5"/>
            <BoxMass value="1kg" depth="1" width="1" height="1"/>
            <BoxAppearance depth="1" width="1" height="1"><Surface ref="s"/></BoxAppearance>
          </Body>
        </Simulation>""", base_dir=tmp_path)
    assert entity.name == 'crate' and entity.kind == 'object'
    assert entity.pose.position == (0, 0, 0.5)
    assert entity.root.visuals[0].color == (0.0, 1.0, 0.0, 1.0)


def test_fragment_compound_and_name_override() -> None:
    entity = load_entity_fragment('<Compound><BoxGeometry depth="1" width="1" height="1"/></Compound>',
                                  name='wall')
    assert (entity.name, entity.kind, entity.fixed_base) == ('wall', 'static', True)


def test_fragment_errors_have_line_numbers() -> None:
    from scene_sim_ros.errors import SceneLoadError
    with pytest.raises(SceneLoadError) as info:
        load_entity_fragment('<Body name="b">\n  <SphereMass value="1kg" radius="1"/>\n'
                             '  <SphereGeometry radius="2parsecs"/>\n</Body>', source='spawn')
    assert str(info.value).startswith('spawn:3: ')
