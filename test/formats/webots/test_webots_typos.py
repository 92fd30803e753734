"""Typos in Webots files, reported as Webots does ("skipped unknown field", unknown node) but
with the node, ``file:line`` and the closest known name; errors with ``strict``."""

from __future__ import annotations

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load

HEADER = '#VRML_SIM R2023b utf8\n'
BOX = 'Solid {{\n  {field}\n  children [ Shape {{ geometry Box {{ size 0.1 0.1 0.1 }} }} ]\n}}\n'


def test_misspelled_field_warns_once_naming_node_line_and_closest(write_file) -> None:
    world = write_file('typo.wbt', HEADER + BOX.format(field='translaton 0 0 0.1'))
    scene = load(world)
    found = [w for w in scene.warnings if 'translaton' in w]
    assert found == [f'{world}:3: Solid: unknown field "translaton" skipped '
                     '(did you mean "translation"?)'], scene.warnings
    assert scene.entities[0].pose.position == (0.0, 0.0, 0.0)   # skipped, as Webots does


def test_misspelled_field_is_an_error_when_strict(write_file) -> None:
    world = write_file('typo.wbt', HEADER + BOX.format(field='translaton 0 0 0.1'))
    with pytest.raises(SceneLoadError, match=r'typo\.wbt:3: Solid: unknown field "translaton"'):
        load(world, strict=True)


def test_field_in_a_proto_body_is_reported_once_for_all_instances(write_file) -> None:
    world = write_file('protos.wbt', HEADER + """
PROTO Crate [ field SFVec3f translation 0 0 0 ]
{
  Solid {
    translation IS translation
    children [ Shape { geometry Box { sise 1 1 1 } } ]
  }
}
Crate { translation 1 0 0 }
Crate { translation 2 0 0 }
Crate { translaton 3 0 0 }
""")
    warnings = load(world).warnings
    assert [w for w in warnings if 'sise' in w] == [
        f'{world}:7: Box: unknown field "sise" skipped (did you mean "size"?)']
    assert [w for w in warnings if 'translaton' in w] == [
        f"{world}:12: PROTO Crate has no field 'translaton'; skipped "
        '(did you mean "translation"?)']


def test_unknown_node_type_says_did_you_mean(write_file) -> None:
    world = write_file('robbot.wbt', HEADER + 'Robbot {\n  name "r"\n}\n')
    scene = load(world)
    assert scene.warnings == (f'{world}:2: unknown node Robbot (did you mean Robot?); skipped',)
    with pytest.raises(SceneLoadError, match='unknown node Robbot \\(did you mean Robot\\?\\)'):
        load(world, strict=True)


def test_unknown_node_inside_a_robot_and_a_misspelled_proto_name(write_file) -> None:
    world = write_file('nested.wbt', HEADER + """
PROTO Wheel [ ] { Solid { } }
Robot {
  children [
    Whell { }
    DistanceSensr { }
  ]
}
""")
    warnings = load(world).warnings
    assert f'{world}:6: unknown node Whell (did you mean Wheel?); skipped' in warnings
    assert f'{world}:7: unknown node DistanceSensr (did you mean DistanceSensor?); skipped' \
        in warnings
    assert len(warnings) == 2


def test_use_of_a_misspelled_def_name(write_file) -> None:
    world = write_file('use.wbt', HEADER + """
Solid { children [ DEF WHEEL_SHAPE Shape { geometry Sphere { } } ] boundingObject USE WHEEL_SHAEP }
""")
    with pytest.raises(SceneLoadError) as err:
        load(world)
    assert 'USE WHEEL_SHAEP: no node was defined with DEF WHEEL_SHAEP (did you mean WHEEL_SHAPE?)' \
        in str(err.value)
    assert str(err.value).startswith(f'{world}:3:')
