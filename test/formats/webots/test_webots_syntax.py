"""The Webots world reader: tokens, field values, DEF/USE, errors with file:line."""

from __future__ import annotations

import math

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots.lexer import RUN_LENGTH, tokenize, version_of
from scene_sim_ros.formats.webots.parser import parse_text

WORLD = """#VRML_SIM R2023b utf8
# a comment line
WorldInfo {
  basicTimeStep 8   # trailing comment
  title "A \\"quoted\\" title with # no comment"
}
DEF BOX Solid {
  translation 1 -2.5 3e-1
  rotation 0 0 1 1.5708
  name "box"
  locked TRUE
  enabled FALSE
  children [
    Shape { geometry DEF G Box { size 0.1 0.2 0.3 } }
  ]
  boundingObject USE G
  physics NULL
}
Robot {
  children [ USE BOX ]
  lookupTable [ 0 0 0, 0.1 1000 0.5 ]
  url [ "a.png" "b.png" ]
  hexColor 0xFF
}
"""


def test_version_of_reads_the_header_year_and_letter():
    assert version_of('#VRML_SIM R2023b utf8\n') == (2023, 'b')
    assert version_of('#VRML_SIM R2021a utf8') == (2021, 'a')
    assert version_of('WorldInfo {}') is None


def test_tokenize_keeps_line_numbers_and_skips_comments():
    tokens = tokenize('a 1\n# c\n"s" }', 'f.wbt')
    assert [(t.kind, t.text, t.line) for t in tokens[:-1]] == [
        ('ident', 'a', 1), ('number', '1', 1), ('string', '"s"', 3), ('punct', '}', 3)]


def test_parser_reads_every_scalar_kind():
    document = parse_text(WORLD, 'w.wbt')
    info, box, robot = document.nodes
    assert document.version == (2023, 'b')
    assert info.float('basicTimeStep', 32) == 8.0
    assert info.string('title', '') == 'A "quoted" title with # no comment'
    assert box.vec3('translation', (0, 0, 0)) == (1.0, -2.5, 0.3)
    quat = box.rotation()
    assert quat[2] == pytest.approx(math.sin(1.5708 / 2))
    assert box.bool('locked', False) is True and box.bool('enabled', True) is False
    assert box.node('physics') is None
    assert robot.mf_vec('lookupTable', 3) == [(0.0, 0.0, 0.0), (0.1, 1000.0, 0.5)]
    assert robot.strings('url') == ['a.png', 'b.png']
    assert robot.float('hexColor', 0) == 255.0


def test_def_use_share_the_same_node():
    box_solid = parse_text(WORLD, 'w.wbt').nodes[1]
    shape = box_solid.nodes('children')[0]
    assert box_solid.node('boundingObject') is shape.node('geometry')
    robot = parse_text(WORLD, 'w.wbt').nodes[2]
    assert robot.nodes('children')[0].def_name == 'BOX'


def test_use_of_an_undefined_name_is_an_error_with_its_line():
    with pytest.raises(SceneLoadError) as err:
        parse_text('Solid {\n  boundingObject USE NOPE\n}', 'w.wbt')
    assert str(err.value).startswith('w.wbt:2:') and 'NOPE' in str(err.value)


def test_missing_brace_is_an_error_naming_the_file():
    with pytest.raises(SceneLoadError, match=r'w\.wbt:\d+:'):
        parse_text('Solid {\n  translation 0 0 1\n', 'w.wbt')


def test_wrong_value_shape_is_an_error_at_the_field_line():
    node = parse_text('Solid {\n\n  translation 0 1\n}', 'w.wbt').nodes[0]
    with pytest.raises(SceneLoadError, match=r'w\.wbt:3: Solid\.translation: expected 3'):
        node.vec3('translation', (0, 0, 0))


def test_proto_interface_declares_types_defaults_and_allowed_values():
    document = parse_text("""PROTO P [
      field SFVec3f translation 0 0 1
      field SFString{"a", "b"} mode "b"
      hiddenField MFNode extra [ Solid { } ]
      field SFBool on TRUE
    ] { Solid { translation IS translation } }""", 'p.proto')
    proto = document.protos['P']
    assert [f.type for f in proto.fields.values()] == ['SFVec3f', 'SFString', 'MFNode', 'SFBool']
    assert proto.fields['mode'].default.items == ['b']
    assert proto.fields['extra'].default.items[0].type == 'Solid'
    assert proto.body[0].fields['translation'].name == 'translation'


def test_template_outside_a_proto_body_is_an_error():
    with pytest.raises(SceneLoadError, match='template outside'):
        parse_text('Solid { translation %<= 1 >% 0 0 }', 'w.wbt')


def test_externproto_declarations_are_keyed_by_proto_name():
    document = parse_text('EXTERNPROTO "webots://projects/x/protos/Floor.proto"\n'
                          'IMPORTABLE EXTERNPROTO "../protos/Thing.proto"\n', 'w.wbt')
    assert document.externprotos['Floor'].url.startswith('webots://')
    assert document.externprotos['Thing'].line == 2


def test_a_row_of_numbers_is_a_few_tokens_with_every_value():
    """Numbers in a row come out as tokens of up to RUN_LENGTH values, so a million-value
    field costs hundreds of tokens; commas, signs, exponents and hex read as before."""
    values = [float(i % 7 - 3) * 0.5 for i in range(10_000)]
    text = 'point [ ' + ' '.join(f'{v:g}' for v in values) + ' ]'
    tokens = tokenize(text, 'f.wbt')
    numbers = [t for t in tokens if t.kind == 'number']
    assert len(numbers) == -(-len(values) // RUN_LENGTH)
    assert [v for t in numbers for v in t.values or []] == values
    node = parse_text('Coordinate {\n point [ 1,2 -3e1\n +.5 5. 0x10 7 ]\n}', 'w.wbt').nodes[0]
    assert node.mf_numbers('point') == [1.0, 2.0, -30.0, 0.5, 5.0, 16.0, 7.0]
    assert node.mf_vec('point', 7) == [(1.0, 2.0, -30.0, 0.5, 5.0, 16.0, 7.0)]


def test_a_non_finite_number_in_a_row_is_reported_at_its_own_line():
    with pytest.raises(SceneLoadError) as err:
        parse_text('Coordinate {\n point [ 1 2 3\n 4 5 6\n 7 1e999 9 ]\n}', 'w.wbt')
    assert str(err.value).startswith('w.wbt:4:') and '1e999 is not finite' in str(err.value)
    with pytest.raises(SceneLoadError) as err:
        parse_text('Solid {\n translation 1 0x' + 'f' * 300 + ' 3\n}', 'w.wbt')
    assert str(err.value).startswith('w.wbt:2:') and 'is not finite' in str(err.value)


def test_a_number_row_stops_at_a_word_glued_to_a_number():
    with pytest.raises(SceneLoadError) as err:
        parse_text('Solid {\n translation 1 2\n 3abc\n}', 'w.wbt')
    assert str(err.value).startswith('w.wbt:3:')


def test_rows_of_strings_and_booleans_keep_each_value():
    tokens = tokenize('url [ "a" "b\\"c","d"\n"e" ] on TRUE FALSE,TRUE', 'f.wbt')
    kinds = [(t.kind, t.text, t.line, t.values) for t in tokens[:-1]]
    assert kinds == [('ident', 'url', 1, None), ('punct', '[', 1, None),
                     ('string', '"a"', 1, ['a', 'b"c', 'd', 'e']), ('punct', ']', 2, None),
                     ('ident', 'on', 2, None), ('bool', 'TRUE', 2, [True, False, True])]
    node = parse_text('Solid {\n url [ "x" "y" ]\n locked TRUE\n}', 'w.wbt').nodes[0]
    assert node.strings('url') == ['x', 'y'] and node.bool('locked', False) is True
