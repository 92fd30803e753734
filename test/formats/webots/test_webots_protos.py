"""PROTO definitions: IS binding, defaults, nesting, local EXTERNPROTO, templates, missing ones."""

from __future__ import annotations

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load

BLOCK_PROTO = """
PROTO Block [
  field SFVec3f translation 0 0 0.5
  field SFVec3f size 0.2 0.2 0.2
  field SFString name "block"
  field SFNode physics Physics { mass 2 }
]
{
  Solid {
    translation IS translation
    name IS name
    children [ Shape { geometry DEF B Box { size IS size } } ]
    boundingObject USE B
    physics IS physics
  }
}
"""


def test_proto_in_the_world_binds_is_fields_to_values_and_defaults(write_file):
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO + """
    Block { translation 1 2 3 name "first" }
    Block { size 1 1 1 }
    """)
    scene = load(world)
    first, second = scene.entities
    assert first.name == 'first' and first.pose.position == (1.0, 2.0, 3.0)
    assert first.root.collisions[0].shape.size == (0.2, 0.2, 0.2)
    assert first.mass == 2.0 and first.kind == 'object'
    assert second.name == 'block' and second.pose.position == (0.0, 0.0, 0.5)
    assert second.root.collisions[0].shape.size == (1.0, 1.0, 1.0)
    assert second.source == 'Block'


def test_nested_protos_pass_fields_through(write_file):
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO + """
    PROTO Tower [ field SFFloat height 0.7 field SFString name "tower" ]
    { Block { size 0.1 0.1 IS height  name IS name } }
    """)
    # `IS` only binds whole fields: a PROTO field cannot be one component of a vector
    with pytest.raises(SceneLoadError):
        load(world)
    world = write_file('w2.wbt', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO + """
    PROTO Tower [ field SFVec3f size 0.1 0.1 0.7 field SFString name "tower" ]
    { Block { size IS size  name IS name } }
    Tower { name "t" }
    """)
    tower = load(world).entity('t')
    assert tower.root.collisions[0].shape.size == (0.1, 0.1, 0.7)
    assert tower.source == 'Tower'  # the PROTO the world instantiates, as Webots shows it


def test_is_binding_wins_over_a_value_written_for_the_same_field(write_file):
    # Webots' WbNode::readFields keeps the IS alias when the node also writes a value for the
    # field, and redirecting the alias copies the PROTO field's value over it, in either order
    world = write_file('w.wbt', """#VRML_SIM R2023b utf8
    PROTO Cart [ field SFString name "cart" field SFVec3f translation 0 0 1 ]
    {
      Solid {
        name IS name
        translation 5 5 5
        physics Physics { }
        name "written after"
        translation IS translation
      }
    }
    Cart { name "mine" translation 1 2 3 }
    Cart { }
    """)
    mine, default = load(world).entities
    assert mine.name == 'mine' and mine.pose.position == (1.0, 2.0, 3.0)
    assert default.name == 'cart' and default.pose.position == (0.0, 0.0, 1.0)


def test_externproto_to_a_local_file_resolves_relative_to_the_world(write_file):
    write_file('protos/Block.proto', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO)
    world = write_file('worlds/w.wbt', """#VRML_SIM R2023b utf8
    EXTERNPROTO "../protos/Block.proto"
    Block { name "b" }
    """)
    assert load(world).entity('b').mass == 2.0


def test_undeclared_proto_is_found_in_the_protos_folder(write_file):
    write_file('protos/Block.proto', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO)
    world = write_file('worlds/w.wbt', '#VRML_SIM R2023b utf8\nBlock { name "b" }\n')
    assert load(world).entity_names() == ['b']


def test_proto_file_loads_as_a_scene_with_one_instance(write_file):
    path = write_file('Block.proto', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO)
    scene = load(path)
    assert scene.entity_names() == ['block']
    assert scene.entities[0].mass == 2.0


def test_unknown_proto_field_is_a_warning_or_strict_error(write_file):
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\n' + BLOCK_PROTO + 'Block { colour 1 0 0 }\n')
    scene = load(world)
    assert any("no field 'colour'" in w for w in scene.warnings)


def test_procedural_template_substitutes_field_values(write_file):
    world = write_file('w.wbt', """#VRML_SIM R2023b utf8
    PROTO Rod [ field SFFloat length 0.5 field SFVec3f at 1 2 3 ]
    {
      %< import * as wbgeometry from 'wbgeometry.js';
         const half = fields.length.value / 2; >%
      Solid {
        translation %<= fields.at.value.x >% %<= fields.at.value.y * 2 >% %<= half >%
        name "%<= 'rod' + fields.length.value >%"
        boundingObject Box { size 0.1 0.1 %<= fields.length.value >% }
        physics Physics { }
      }
    }
    Rod { length 0.8 }
    """)
    rod = load(world).entities[0]
    assert rod.name == 'rod0.8'
    assert rod.pose.position == (1.0, 4.0, 0.4)
    assert rod.root.collisions[0].shape.size == (0.1, 0.1, 0.8)


def test_template_loop_repeats_vrml_text(write_file):
    world = write_file('w.wbt', """#VRML_SIM R2023b utf8
    PROTO Loop [ field SFInt32 n 3 ]
    {
      Solid {
        children [
          %< for (let i = 0; i < fields.n.value; ++i) { >%
            Shape { geometry Box { } }
          %< } >%
        ]
      }
    }
    Loop { }
    """)
    assert len(load(world).entities[0].root.visuals) == 3


REMOTE = """#VRML_SIM R2023b utf8
EXTERNPROTO "webots://projects/objects/floors/protos/RectangleArena.proto"
EXTERNPROTO "https://example.org/protos/FancyBot.proto"
EXTERNPROTO "webots://projects/appearances/protos/OsbWood.proto"
RectangleArena { }
Solid {
  children [ Shape { appearance OsbWood { } geometry Box { size 1 1 1 } } ]
  boundingObject Box { size 1 1 1 }
}
"""


def test_missing_decorative_remote_protos_are_warnings(write_file):
    scene = load(write_file('w.wbt', REMOTE))
    arena, solid = scene.entities
    assert (arena.name, arena.kind, solid.kind) == ('rectangle arena', 'static', 'static')
    assert arena.root.collisions[0].shape.kind == 'plane'
    # Webots' default contact material, as the arena's floorContactMaterial defaults to
    assert arena.root.collisions[0].material == 'default'
    assert sum('RectangleArena' in w and 'replaced by a floor plane' in w
               for w in scene.warnings) == 1
    assert sum('OsbWood' in w for w in scene.warnings) == 1
    assert solid.root.visuals[0].color[:3] == (0.7, 0.7, 0.7)


def test_missing_decorative_remote_protos_are_errors_when_strict(write_file):
    with pytest.raises(SceneLoadError) as err:
        load(write_file('w.wbt', REMOTE), strict=True)
    assert 'RectangleArena' in str(err.value) and 'OsbWood' in str(err.value)


def test_missing_robot_proto_is_an_error_naming_each_missing_proto(write_file):
    world = write_file('w.wbt', REMOTE + 'FancyBot { controller "x" }\n')
    with pytest.raises(SceneLoadError) as err:
        load(world)
    message = str(err.value)
    assert message.startswith(f'{world}:10: PROTO FancyBot is not available locally')
    assert 'https://example.org/protos/FancyBot.proto' in message
    assert 'also missing: RectangleArena, OsbWood' in message


def test_remote_proto_is_used_when_a_local_copy_is_on_the_search_path(write_file, tmp_path):
    write_file('mine/FancyBot.proto', """#VRML_SIM R2023b utf8
    PROTO FancyBot [ field SFString controller "void" ]
    { Robot { name "fancy" controller IS controller } }
    """)
    world = write_file('w.wbt', REMOTE + 'FancyBot { controller "x" }\n')
    scene = load(world, parameters={'webots.proto_path': str(tmp_path / 'mine')})
    assert scene.entity('fancy').kind == 'robot'
    assert scene.metadata['controllers'] == {'fancy': 'x'}
