"""Procedural PROTOs run by a real engine: JavaScript (QuickJS) and Lua (lupa) templates with
Webots' template API (fields, context, helper modules), errors at PROTO:line, and limits."""

from __future__ import annotations

import sys
import time

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.webots import load
from scene_sim_ros.formats.webots.template import Limits, evaluate

FIELDS = {'n': {'value': 3, 'defaultValue': 1},
          'size': {'value': {'x': 1, 'y': 2, 'z': 0.5}, 'defaultValue': {'x': 1, 'y': 1, 'z': 1}},
          'flag': {'value': False, 'defaultValue': True}}


def test_javascript_loop_conditional_and_objects_give_the_text_webots_would():
    body = """
      %< const box = {w: fields.size.value.x * 2, label: 'b'}; >%
      Group { children [
      %< for (let i = 0; i < fields.n.value; ++i) { >%
        Transform { translation %<= i * 0.5 >% 0 0 children [ Shape { geometry Box { size %<= box.w >% 1 1 } } ] }
      %< } >%
      %< if (fields.flag.value) { >% Shape { } %< } else { >% Group { } %< } >%
      ] }"""
    text = evaluate(body, FIELDS, 'P.proto', 1)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    assert lines == ['Group { children [',
                     'Transform { translation 0 0 0 children [ Shape { geometry Box { size 2 1 1 } } ] }',
                     'Transform { translation 0.5 0 0 children [ Shape { geometry Box { size 2 1 1 } } ] }',
                     'Transform { translation 1 0 0 children [ Shape { geometry Box { size 2 1 1 } } ] }',
                     'Group { }',
                     '] }']


def test_javascript_numbers_are_written_as_javascript_writes_them():
    text = evaluate('%<= 0.1 + 0.2 >% %<= 1 / 4 >% %<= 3.0 >% %<= 1e21 >% %<= [1, 2] >%', {},
                    'P.proto', 1)
    assert text == '0.30000000000000004 0.25 3 1e+21 1,2'


def test_vrml_text_is_copied_exactly():
    text = evaluate('Solid { name "a \\"b\\" `c` ${d}" } %<= 1 >%', {}, 'P.proto', 1)
    assert text == 'Solid { name "a \\"b\\" `c` ${d}" } 1'


def test_default_values_context_and_modules():
    body = """%< import * as wbvector3 from 'wbvector3.js';
       import { combine } from 'wbrotation.js';
       import * as wbgeometry from 'wbgeometry.js';
       const r = combine({x: 0, y: 0, z: 1, a: Math.PI / 2}, {x: 0, y: 0, z: 1, a: Math.PI / 2});
       const c = wbgeometry.circle(1, 4, {x: 0, y: 0}, 0); >%
    %<= fields.n.defaultValue >% %<= fields.size.defaultValue.y >%
    %<= wbvector3.norm(wbvector3.cross({x: 1, y: 0, z: 0}, {x: 0, y: 2, z: 0})) >%
    %<= r.a.toFixed(4) >% %<= c.length >% %<= Math.round(c[1].y) >%
    %<= context.coordinate_system >% %<= context.os >% %<= context.id >%
    %<= context.webots_version.major >% %<= context.world >%"""
    text = evaluate(body, FIELDS, 'P.proto', 1,
                    context={'coordinate_system': 'NUE', 'id': '7', 'world': '/w/x.wbt'})
    assert text.split() == ['1', '1', '2', '3.1416', '5', '1', 'NUE', 'linux', '7', 'R2025a',
                            '/w/x.wbt']


def test_unknown_module_is_an_error_at_its_line():
    with pytest.raises(SceneLoadError, match=r"P\.proto:11: template error: no module 'wbnope\.js'"):
        evaluate("\n%< import * as m from 'wbnope.js'; >%", {}, 'P.proto', 10)


PROTOS = """#VRML_SIM R2023b utf8
PROTO Body [ field SFVec3f size 1 2 3 ]
{ Box { size IS size } }
PROTO Rack [
  field SFInt32 count 2
  field SFBool  heavy FALSE
  field SFNode  shape Body { }
  field SFNode  extra NULL
  field SFColor tint 1 0 0
]
{
  %< const s = fields.shape.value; >%
  Robot {
    name "%<= s.node_name + '-' + s.fields.size.value.z + '-' + s.fields.size.defaultValue.z + '-' + (fields.extra.value === undefined) + '-' + fields.tint.value.r >%"
    children [
      %< for (let i = 0; i < fields.count.value; ++i) { >%
        Solid {
          translation 0 0 %<= i >%
          name "slot%<= i >%"
          %< if (fields.heavy.value) { >% physics Physics { mass 5 } %< } else { >% physics Physics { mass 1 } %< } >%
          boundingObject Box { size 0.1 0.1 0.1 }
        }
      %< } >%
    ]
  }
}
"""


def test_javascript_proto_in_a_world(write_file):
    world = write_file('w.wbt', PROTOS + 'Rack { count 3 heavy TRUE shape Body { size 1 1 9 } }\n')
    robot = load(world).entities[0]
    assert robot.name == 'Body-9-3-true-1'
    assert len(robot.links) == 4
    assert robot.mass == pytest.approx(15.0)


LUA_PROTO = """#VRML_SIM R2021a utf8
# template language: lua
PROTO LuaRack [
  field SFInt32 count 2
  field SFVec3f step 0 0 0.5
  field SFBool  heavy FALSE
]
{
  %{ local wbcore = require('wbcore')
     local step = wbcore.deepcopy(fields.step.value) }%
  Robot {
    name "lua-%{= fields.count.value }%-%{= fields.count.defaultValue }%-%{= context.coordinate_system }%"
    children [
      %{ for i = 0, fields.count.value - 1 do }%
        Solid {
          translation 0 0 %{= i * step.z }%
          name "slot%{= i }%"
          %{ if fields.heavy.value then }% physics Physics { mass 5 } %{ else }% physics Physics { mass 1 } %{ end }%
          boundingObject Box { size 0.1 0.1 0.1 }
        }
      %{ end }%
    ]
  }
}
"""


@pytest.mark.parametrize('header', [True, False])
def test_lua_proto_loop_conditional_and_fields(write_file, header):
    """With the ``template language`` header, and without it (pre-R2022b PROTOs: ``%{ }%``)."""
    write_file('LuaRack.proto', LUA_PROTO if header else LUA_PROTO.replace(
        '# template language: lua\n', '# a comment\n'))
    world = write_file('w.wbt', '#VRML_SIM R2021a utf8\n'
                       'WorldInfo { coordinateSystem "ENU" }\nLuaRack { count 3 heavy TRUE }\n')
    robot = load(world).entities[0]
    assert robot.name == 'lua-3-2-ENU'
    assert len(robot.links) == 4
    assert robot.mass == pytest.approx(15.0)


def test_lua_text_and_numbers():
    text = evaluate('%{ x = 0.5 }%\n%{= x * 2 }% %{= 0.1 + 0.2 }% [[a]] %{= "s" }%', {}, 'P.proto',
                    1, header='# template language: lua')
    assert text == '\n1 0.3 [[a]] s'


@pytest.mark.parametrize(('body', 'line', 'message'), [
    ('Solid {\n  %< const a = null; >%\n  name "%<= a.b >%"\n}', 3, "cannot read property 'b'"),
    ('Solid {\n\n  %< let = ; >%\n}', 3, 'SyntaxError'),
    # QuickJS gives no line inside functions: the error is at the line that called it
    ('Solid {\n  %< function f() { throw new Error("bad size"); } >%\n\n  %<= f() >%\n}', 4,
     'bad size'),
    ("%< import * as v from 'wbvector3.js'; >%\nSolid {\n  name \"%<= v.norm(3) >%\"\n}", 3,
     'wbvector3.norm'),
    ('Solid {\n  %{ local a = nil }%\n  %{= a.b }%\n}', 3, 'attempt to index'),
    ('Solid {\n  %{ error("bad size") }%\n}', 2, 'bad size'),
])
def test_template_error_points_at_proto_and_line(write_file, body, line, message):
    header = '#VRML_SIM R2023b utf8\nPROTO Broken [ ]\n{\n'
    proto = write_file('protos/Broken.proto', header + body + '\n}\n')
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\nBroken { }\n')
    with pytest.raises(SceneLoadError) as err:
        load(world)
    assert str(err.value).startswith(f'{proto}:{line + 3}: template error: ')
    assert message in str(err.value)


@pytest.mark.parametrize('body', [
    '%< while (true) {} >%', '%{ while true do end }%',
    '%< while (true) { try { while (true) {} } catch (e) {} } >%',
    '%{ while true do pcall(function() while true do end end) end }%'])
def test_endless_template_stops_at_the_time_limit(write_file, body):
    write_file('Forever.proto', f'#VRML_SIM R2023b utf8\nPROTO Forever [ ]\n{{\n  {body}\n  Solid {{ }}\n}}\n')
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\nForever { }\n')
    start = time.process_time()  # CPU, not wall: a loaded machine stretches the wall time
    with pytest.raises(SceneLoadError, match=r'Forever\.proto:4: template error: stopped after '
                       r'the time limit of 0\.3 s'):
        load(world, parameters={'webots.template_time_limit': '0.3'})
    assert time.process_time() - start < 3.0


@pytest.mark.parametrize('body', ['%< const a = []; while (true) a.push(new Array(1e5).fill(1)); >%',
                                  # small objects leave QuickJS no memory for the error: it
                                  # throws null (deterministic, as pushing {} fills to the byte)
                                  '%< const a = []; while (true) a.push({}); >%',
                                  '%{ local t = {} for i = 1, 1e9 do t[i] = {i} end }%'])
def test_greedy_template_stops_at_the_memory_limit(body):
    with pytest.raises(SceneLoadError, match=r'P\.proto:\d+: template error: stopped at the '
                       r'memory limit of 32 MiB'):
        evaluate(body, {}, 'P.proto', 1, limits=Limits(5.0, 32 * 2**20))


def test_limits_come_from_parameters():
    assert Limits.from_parameters({}) == Limits(2.0, 256 * 2**20)
    assert Limits.from_parameters({'webots.template_time_limit': '0.5',
                                   'webots.template_memory_limit': '64'}) == Limits(0.5, 64 * 2**20)
    with pytest.raises(SceneLoadError):
        Limits.from_parameters({'webots.template_time_limit': '-1'})


@pytest.mark.parametrize('body', ["%{ os.execute('true') }%", "%{ io.open('/etc/passwd') }%",
                                  "%{ python.eval('1') }%", "%{ require('os') }%"])
def test_lua_templates_cannot_reach_files_or_processes(body):
    with pytest.raises(SceneLoadError, match=r'P\.proto:1: template error: '):
        evaluate(body, {}, 'P.proto', 1, header='# template language: lua')


def test_lua_helper_modules():
    body = ("%{ local v = require('wbvector3'); local r = require('wbrotation')\n"
            "   local c = require('wbgeometry').circle(1, 4, 0, 0, 0) }%"
            "%{= v.norm(v.cross({x = 1, y = 0, z = 0}, {x = 0, y = 2, z = 0})) }% "
            "%{= string.format('%.4f', r.combine({x = 0, y = 0, z = 1, a = 1}, {x = 0, y = 0, z = 1, a = 1}).a) }% "
            "%{= #c }%")
    assert evaluate(body, {}, 'P.proto', 1, header='# template language: lua') == '2 2.0000 5'


def test_bad_vrml_from_a_template_says_where_in_the_expansion(write_file):
    write_file('Bad.proto', """#VRML_SIM R2023b utf8
    PROTO Bad [ ]
    {
      Solid {
        children [
          %< for (let i = 0; i < 3; ++i) { >%
          Shape { }
          %< } >%
          Shape { geometry Box { size 1 1 } ] }
      }
    }
    """)
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\nBad { }\n')
    with pytest.raises(SceneLoadError, match=r'Bad\.proto:3: .*\(at line \d+ of the VRML that the '
                       r'template of PROTO Bad produced\)'):
        load(world)


@pytest.mark.parametrize(('module', 'body', 'header'), [
    ('quickjs', '%<= 1 >%', ''), ('lupa.lua52', '%{= 1 }%', '# template language: lua')])
def test_missing_engine_is_a_load_error_saying_what_to_install(monkeypatch, module, body, header):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(SceneLoadError, match=r'P\.proto:1: template error: .*pip install'):
        evaluate(body, {}, 'P.proto', 1, header=header)


# Lua templates (Webots R2019b-R2022a): Webots' Lua modules and console, and the same numbers as
# their JavaScript twins on the same fields (issue 43) ------------------------------------------

LUA = '# template language: lua'
LUA_TWIN = """%{ local v3 = require('wbvector3'); local rot = require('wbrotation')
   local geo = require('wbgeometry'); local rnd = require('wbrandom'); local m = require('wbmath')
   local p, q = fields.p.value, fields.q.value
   local r = rot.combine({x = 0, y = 0, z = 1, a = fields.angle.value}, {x = 1, y = 0, z = 0, a = 0.3})
   local turned = rot.rotatevector3byrotation(r, p)
   local n = v3.normalize(v3.cross(p, q))
   local c = geo.circle(fields.radius.value, 6, 0.5, -0.25, 0.1)
   rnd.seed(fields.seed.value) }%
%{= v3.dot(p, q) }% %{= v3.distance(p, q) }% %{= n.x }% %{= n.y }% %{= n.z }%
%{= r.x }% %{= r.y }% %{= r.z }% %{= r.a }% %{= turned.x }% %{= turned.y }% %{= turned.z }%
%{ for i = 1, #c do }%%{= c[i].x }% %{= c[i].y }% %{ end }%
%{= rnd.real() }% %{= rnd.real(2, 5) }% %{= rnd.integer(10) }% %{= rnd.integer(3, 9) }% %{= m.degrees2radians(30) }%"""

JS_TWIN = """%< import * as v3 from 'wbvector3.js'; import * as rot from 'wbrotation.js';
   import * as geo from 'wbgeometry.js'; import * as rnd from 'wbrandom.js';
   import * as m from 'wbmath.js';
   const p = fields.p.value, q = fields.q.value;
   const r = rot.combine({x: 0, y: 0, z: 1, a: fields.angle.value}, {x: 1, y: 0, z: 0, a: 0.3});
   const turned = rot.rotateVector3ByRotation(r, p);
   const n = v3.normalize(v3.cross(p, q));
   const c = geo.circle(fields.radius.value, 6, {x: 0.5, y: -0.25}, 0.1);
   rnd.seed(fields.seed.value); >%
%<= v3.dot(p, q) >% %<= v3.distance(p, q) >% %<= n.x >% %<= n.y >% %<= n.z >%
%<= r.x >% %<= r.y >% %<= r.z >% %<= r.a >% %<= turned.x >% %<= turned.y >% %<= turned.z >%
%< for (const point of c) { >%%<= point.x >% %<= point.y >% %< } >%
%<= rnd.real() >% %<= rnd.real(2, 5) >% %<= rnd.integer(10) >% %<= rnd.integer(3, 9) >% %<= m.degreesToRadians(30) >%"""

TWIN_FIELDS = {'p': {'x': 0.3, 'y': -1.2, 'z': 2.0}, 'q': {'x': 1.5, 'y': 0.25, 'z': -0.7},
               'angle': 1.1, 'radius': 0.8, 'seed': 42}


def _numbers(text):
    return [float(t) for t in text.split()]


def test_lua_modules_give_the_numbers_of_their_javascript_twins():
    fields = {k: {'value': v, 'defaultValue': v} for k, v in TWIN_FIELDS.items()}
    lua = _numbers(evaluate(LUA_TWIN, fields, 'Twin.proto', 1, header=LUA))
    js = _numbers(evaluate(JS_TWIN, fields, 'Twin.proto', 1))
    assert len(lua) == len(js) == 12 + 2 * 7 + 5
    assert lua == pytest.approx(js, rel=1e-12, abs=1e-12)


def test_wbrandom_is_webots_visual_basic_generator():
    """seed 0: state = (1140671485 * state + 12820163) mod 2^24 (Webots' wbrandom.js/.lua), in
    doubles as JavaScript and Lua 5.2 compute it (the product outgrows 2^53 and rounds)."""
    import math
    state, expected = 0.0, []
    for _ in range(3):
        state = math.fmod(1140671485.0 * state + 12820163.0, 2.0 ** 24)
        expected.append(state / (2 ** 24 - 1))
    body = "%< import * as r from 'wbrandom.js'; >%%<= r.real() >% %<= r.real() >% %<= r.real() >%"
    assert _numbers(evaluate(body, {}, 'P.proto', 1)) == pytest.approx(expected, rel=1e-12)
    lua = "%{ local r = require('wbrandom') }%%{= r.real() }% %{= r.real() }% %{= r.real() }%"
    assert _numbers(evaluate(lua, {}, 'P.proto', 1, header=LUA)) == pytest.approx(expected,
                                                                                     rel=1e-12)


@pytest.mark.parametrize('module, call, result', [
    ('wbcore', 'local t = m.deepcopy({1, {2, 3}}); t[2][1] = 9; return m.tablelength(t)', '2'),
    ('wbfile', "return m.getpathwithoutfilename('a\\\\b/c.proto')", 'a/b'),
    ('wblimits', 'return m.maxdouble + m.mindouble', '0'),
    ('wbmath', "return m.round(2.5) .. ' ' .. m.radians2degrees(math.pi)", '3 180'),
    ('wbstring', "return table.concat(m.split('a,b,,c', ','), '|')", 'a|b||c'),
    ('wbvector2', 'return m.cross({x = 1, y = 0}, {x = 0, y = 1})', '1'),
    ('wbvector2', "local p = m.intersection({x = 0, y = 0}, {x = 2, y = 2}, {x = 0, y = 2}, "
                  "{x = 2, y = 0}); return p.x .. ' ' .. p.y", '1 1'),
    ('wbgeometry', 'return tostring(m.ispointinpolygon(0.5, 0.5, {{x = 0, y = 0}, {x = 1, y = 0}, '
                   '{x = 1, y = 1}, {x = 0, y = 1}}))', 'true'),
    # Webots' law: true when the sum of (x2 - x1)(y2 + y1) over the closed list is negative
    ('wbgeometry', 'return tostring(m.islistclockwise2D({{x = 0, y = 0}, {x = 1, y = 1}, '
                   '{x = 0, y = 1}}))', 'true'),
    ('wbgeometry', 'return tostring(m.islistclockwise2D({{x = 0, y = 0}, {x = 0, y = 1}, '
                   '{x = 1, y = 1}}))', 'false'),
    ('wbgeometry', 'return #m.bspline2D({{x = 0, y = 0}, {x = 1, y = 1}, {x = 2, y = 0}}, 4)', '13'),
    ('wbrotation', "local r = m.frommatrix3(m.tomatrix3({x = 0, y = 0, z = 1, a = 0.5})); "
                   "return string.format('%.6f %.6f', r.z, r.a)", '0.958851 0.500000'),
])
def test_every_webots_lua_module_is_there(module, call, result):
    body = f"%{{ local m = require('{module}'); local function f() {call} end }}%%{{= f() }}%"
    assert evaluate(body, {}, 'P.proto', 1, header=LUA) == result


def test_lua_console_writes_reach_the_log_and_the_warnings(write_file):
    write_file('Talk.proto', """#VRML_SIM R2019b utf8
    # template language: lua
    PROTO Talk [ field SFFloat size 0.1 ]
    {
      %{ io.stderr:write('size ', fields.size.value, ' is small\\n')
         io.write('building talk\\n') }%
      Solid { boundingObject Box { size %{= fields.size.value }% 0.1 0.1 } }
    }
    """)
    world = write_file('w.wbt', '#VRML_SIM R2019b utf8\nTalk { }\n')   # the oldest Lua era
    scene = load(world)
    talk = [w for w in scene.warnings if 'template of PROTO Talk' in w]
    # at the template's first line (the body's opening brace)
    assert talk == [f"{world.parent / 'Talk.proto'}:4: template of PROTO Talk: size 0.1 is small"]
