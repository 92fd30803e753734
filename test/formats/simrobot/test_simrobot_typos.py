"""Typos in SimRobot scenes are caught as SimRobot's own parser does (it rejects elements and
attributes its element table does not know), with the closest known name."""

from __future__ import annotations

import re

import pytest

from scene_sim_ros.errors import SceneLoadError

BALL = '<Body name="ball"><SphereMass value="1kg" radius="0.1"/>{}</Body>'


def error_of(scene_of, *args, **kwargs) -> str:
    with pytest.raises(SceneLoadError) as err:
        scene_of(*args, **kwargs)
    return str(err.value)


def test_misspelled_element_is_an_error_with_did_you_mean(scene_of) -> None:
    message = error_of(scene_of, BALL.format('<BoxGeomtry width="1" height="1" depth="1"/>'))
    assert re.match(r'^\S*test\.ros2:4: unknown element <BoxGeomtry> '
                    r'\(did you mean <BoxGeometry>\?\)$', message), message


def test_misspelled_attribute_is_named_not_the_required_one_it_hides(scene_of) -> None:
    message = error_of(scene_of, BALL.format('<BoxGeometry widht="1" height="1" depth="1"/>'))
    assert 'unknown attribute "widht" of <BoxGeometry> (did you mean "width"?)' in message
    assert 'missing required attribute' not in message
    assert len(message.splitlines()) == 1


def test_misspelled_top_level_definition_and_set_attribute(scene_of) -> None:
    message = error_of(scene_of, '<Set name="x" vlaue="1"/>',
                       definitions='<Surfce name="red" diffuseColor="#f00"/>')
    assert 'unknown element <Surfce> (did you mean <Surface>?)' in message
    assert 'unknown attribute "vlaue" of <Set> (did you mean "value"?)' in message
    assert 'missing required attribute "value"' not in message


def test_misspelled_reference_says_did_you_mean(scene_of) -> None:
    message = error_of(scene_of, '<Body ref="whele" name="w"/>', definitions=(
        '<Body name="wheel"><SphereMass value="1kg" radius="0.1"/></Body>'))
    assert 'unknown reference: no top-level <Body name="whele"> (did you mean "wheel"?)' in message


def test_core3_names_are_known_not_errors(scene_of) -> None:
    """PBR Surface, Material friction and Light intensity (SimRobotCore3, .ros3) load; where the
    Core2 element table does not list them they are at most warnings."""
    scene = scene_of(
        '<DirLight x="0" y="0" z="1" diffuseColor="#fff" intensity="0.8"/>'
        '<Compound name="c"><BoxGeometry width="1" height="1" depth="1"><Material ref="m"/>'
        '</BoxGeometry><BoxAppearance width="1" height="1" depth="1"><Surface ref="s"/>'
        '</BoxAppearance></Compound>',
        definitions='<Material name="m" friction="0.8" rollingFriction="0.01"/>'
                    '<Surface name="s" albedo="#888" alpha="1" metallic="0" '
                    'roughness="0.5"/>')
    assert not any('unknown' in w for w in scene.warnings)


def test_known_but_misplaced_names_stay_warnings(scene_of) -> None:
    scene = scene_of(BALL.format('<SphereGeometry radius="0.1" width="1"/>'))
    assert any('unexpected attribute "width" of <SphereGeometry>' in w for w in scene.warnings)
