"""RaiSim world XML: settings, objects, templates, height maps, wires (inline worlds)."""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.raisim import load, terrain
from scene_sim_ros.scene import Box, Capsule, Cylinder, Heightfield, MeshFile, Plane, Sphere
from scene_sim_ros.scene.inertia import sphere_inertia

WriteFile = Callable[[str, str], Path]


def world(write_file: WriteFile, body: str, name: str = 'world.xml') -> Path:
    return write_file(name, f'<?xml version="1.0" ?>\n<raisim version="1.0">\n{body}\n</raisim>\n')


def test_load_settings_in_camel_and_snake_case(write_file: WriteFile) -> None:
    camel = load(world(write_file, """
        <timeStep value="0.002"/>
        <gravity value="0, 0.5, -9.0"/>
        <erp erp="0.3" erp2="0.1"/>""", 'camel.xml'))
    snake = load(world(write_file, """
        <time_step value="0.002"/>
        <gravity value="0 0.5 -9.0"/>
        <erp erp="0.3" erp2="0.1"/>""", 'snake.xml'))
    for scene in (camel, snake):
        assert scene.format == 'raisim'
        assert scene.step_length == 0.002
        assert scene.gravity == (0.0, 0.5, -9.0)
        assert scene.erp == 0.3
        assert scene.metadata['erp2'] == 0.1
        assert scene.warnings == ()


def test_load_defaults_without_settings(write_file: WriteFile) -> None:
    scene = load(world(write_file, '<objects/>'))
    assert scene.step_length == 0.005
    assert scene.gravity == (0.0, 0.0, -9.81)


def test_load_materials(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <material>
            <default friction="0.6" restitution="0.1" restitution_threshold="0.2"/>
            <pair_prop name1="steel" name2="rubber" friction="0.8" restitution="0.15"
                       restitution_threshold="0.001"/>
        </material>"""))
    assert scene.contact_defaults.friction == 0.6
    assert scene.contact_defaults.restitution == 0.1
    assert scene.contact_defaults.restitution_threshold == 0.2
    (pair,) = scene.material_pairs
    assert (pair.material_a, pair.material_b) == ('steel', 'rubber')
    assert (pair.friction, pair.restitution, pair.restitution_threshold) == (0.8, 0.15, 0.001)


def test_load_state_quaternion_is_w_first(write_file: WriteFile) -> None:
    half = math.sqrt(0.5)
    scene = load(world(write_file, f"""
        <objects>
            <box name="b" mass="2">
                <dim x="1" y="2" z="3"/>
                <state pos="1 2 3" quat="{half} 0 0 {half}" lin_vel="1,0,0" angVel="0 0 2"/>
            </box>
        </objects>"""))
    box = scene.entity('b')
    assert box.pose.position == (1.0, 2.0, 3.0)
    assert box.pose.orientation == pytest.approx((0.0, 0.0, half, half))  # xyzw
    assert box.linear_velocity == (1.0, 0.0, 0.0)
    assert box.angular_velocity == (0.0, 0.0, 2.0)


def test_load_primitives_with_derived_and_given_inertia(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <sphere name="s" mass="2"><dim radius="0.5"/></sphere>
            <capsule name="c" mass="1"><dim radius="0.2" height="1"/>
                <inertia xx="0.1" xy="0" xz="0" yy="0.2" yz="0" zz="0.3"/></capsule>
            <cylinder name="y" mass="1"><dim radius="0.3" height="0.4"/></cylinder>
            <box name="b" mass="1"><dim x="1" y="2" z="3"/></box>
        </objects>"""))
    shapes = {e.name: e.root.collisions[0].shape for e in scene.entities}
    assert shapes == {'s': Sphere(0.5), 'c': Capsule(0.2, 1.0), 'y': Cylinder(0.3, 0.4),
                      'b': Box((1.0, 2.0, 3.0))}
    assert scene.entity('s').root.inertial.inertia == pytest.approx(sphere_inertia(2.0, 0.5))
    assert scene.entity('c').root.inertial.inertia == (0.1, 0.0, 0.0, 0.2, 0.0, 0.3)
    assert all(e.kind == 'object' and not e.fixed_base for e in scene.entities)
    assert all(len(e.root.visuals) == 1 for e in scene.entities)


def test_load_body_types_and_collision_filters(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <box name="k" mass="1" body_type="kinematic" collisionGroup="4" collision_mask="-1">
                <dim x="1" y="1" z="1"/><state pos="0 0 0" linVel="2 0 0"/></box>
            <box name="s" mass="1" body_type="static"><dim x="1" y="1" z="1"/></box>
            <ground name="floor" height="-0.5" collision_group="-2147483648"/>
        </objects>"""))
    kinematic, static, floor = scene.entities
    assert kinematic.kinematic and kinematic.linear_velocity == (2.0, 0.0, 0.0)
    assert (kinematic.collision_group, kinematic.collision_mask) == (4, -1)
    assert static.kind == 'static' and static.fixed_base and not static.kinematic
    assert floor.kind == 'static' and floor.root.collisions[0].shape == Plane()
    assert floor.pose.position == (0.0, 0.0, -0.5)
    assert floor.collision_group == -2147483648


def test_load_compound_children_poses_and_inertia(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <compound name="c" mass="4">
                <children>
                    <sphere mass="1" material="steel"><dim radius="0.1"/><state pos="1 0 0"/></sphere>
                    <sphere mass="1"><dim radius="0.1"/><state pos="-1 0 0"/></sphere>
                </children>
                <state pos="0 0 2"/>
            </compound>
        </objects>"""))
    link = scene.entity('c').root
    assert [c.pose.position for c in link.collisions] == [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0)]
    assert [c.material for c in link.collisions] == ['steel', None]
    assert link.inertial.mass == 4.0
    assert link.inertial.com == pytest.approx((0.0, 0.0, 0.0))
    # two 2 kg spheres 1 m off the y axis: 2 * (2*1^2 + 0.4*2*0.1^2)
    assert link.inertial.inertia[3] == pytest.approx(2 * (2.0 + 0.4 * 2.0 * 0.01))


def test_load_mesh_object_and_missing_mesh_warns(write_file: WriteFile) -> None:
    write_file('meshes/thing.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')
    scene = load(world(write_file, """
        <objects>
            <mesh name="m" mass="2" file_name="[THIS_DIR]/meshes/thing.obj" com="0 0 0.1"
                  scale="2 2 2"><inertia xx="1" xy="0" xz="0" yy="1" yz="0" zz="1"/></mesh>
            <mesh name="gone" mass="1" file_name="[THIS_DIR]/meshes/missing.obj"/>
        </objects>"""))
    (mesh,) = scene.entities
    shape = mesh.root.collisions[0].shape
    assert isinstance(shape, MeshFile) and shape.path.name == 'thing.obj'
    assert shape.scale == (2.0, 2.0, 2.0)
    assert mesh.root.inertial.com == (0.0, 0.0, 0.1)
    assert any('missing.obj not found' in w and ':7:' in w for w in scene.warnings)


def test_array_params_and_math(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <params><offset value="0.5"/></params>
        <objects>
            <array idx="@@i" start="0" end="@@count" increment="2">
                <sphere name="ball_@@i" mass="1">
                    <dim radius="{0.1+@@i*0.01}"/>
                    <state pos="{cos(0.1*@@i)} 0 {@@offset+@@i}"/>
                </sphere>
            </array>
        </objects>"""), parameters={'count': '5'})
    assert scene.entity_names() == ['ball_0', 'ball_2', 'ball_4']  # end is exclusive
    ball = scene.entity('ball_4')
    assert ball.root.collisions[0].shape == Sphere(pytest.approx(0.14))
    assert ball.pose.position == pytest.approx((math.cos(0.4), 0.0, 4.5))


def _nested_arrays(levels: int, copies: int) -> str:
    body = ('<sphere name="b' + ''.join(f'-@@i{k}' for k in range(levels)) + '" mass="1">'
            '<dim radius="0.01"/><state pos="{@@i0} {' + '+'.join(f'@@i{k}' for k in range(1, levels))
            + '} 0"/></sphere>') if levels > 1 else ''
    for k in reversed(range(levels)):
        body = f'<array idx="@@i{k}" start="0" end="{copies}" increment="1">{body}</array>'
    return f'<objects>{body}</objects>'


def test_nested_arrays_expand_to_the_product_of_their_lengths(write_file: WriteFile) -> None:
    scene = load(world(write_file, _nested_arrays(3, 3)))
    assert len(scene.entities) == 27 and 'b-2-1-0' in scene.entity_names()


def test_nested_arrays_over_the_element_limit_are_refused_at_their_first_copy(
        write_file: WriteFile) -> None:
    """30 nested arrays of 2 (2^30 objects) took 14 s to reach the limit one copy at a time;
    the product of the enclosing arrays' lengths is checked before the first copy."""
    with pytest.raises(SceneLoadError, match='max_elements'):
        load(world(write_file, _nested_arrays(30, 2)))


def test_user_parameters_override_params(write_file: WriteFile) -> None:
    path = world(write_file, """
        <params><h value="1"/></params>
        <objects><ground name="g" height="@@h"/></objects>""")
    assert load(path).entity('g').pose.position[2] == 1.0
    assert load(path, parameters={'h': '-2'}).entity('g').pose.position[2] == -2.0


def test_missing_parameters_raise_naming_them(write_file: WriteFile) -> None:
    path = world(write_file, """
        <objects>
            <ground name="g" height="@@floor_height"/>
            <sphere name="s" mass="@@mass"><dim radius="1"/></sphere>
        </objects>""")
    with pytest.raises(SceneLoadError) as caught:
        load(path)
    message = str(caught.value)
    assert 'floor_height' in message and 'mass' in message
    assert f'{path}:5' in message and f'{path}:6' in message


def test_exist_attribute_skips_objects(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <sphere name="a" mass="1" exist="@@yes"><dim radius="1"/></sphere>
            <sphere name="b" mass="1" exist="false"><dim radius="1"/></sphere>
        </objects>"""), parameters={'yes': 'true'})
    assert scene.entity_names() == ['a']


def test_include_merges_objects_relative_to_the_included_file(write_file: WriteFile) -> None:
    write_file('parts/floor.xml', """
        <raisim><objects><ground name="floor" height="@@h"/></objects></raisim>""")
    scene = load(world(write_file, """
        <include value="[THIS_DIR]/parts/floor.xml"/>
        <params><h value="0.25"/></params>
        <objects><sphere name="s" mass="1"><dim radius="1"/></sphere></objects>"""))
    assert scene.entity_names() == ['floor', 's']
    assert scene.entity('floor').pose.position[2] == 0.25


def test_repeated_names_become_unique_with_one_warning(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <box name="box" mass="1"><dim x="1" y="1" z="1"/></box>
            <box name="box" mass="1"><dim x="1" y="1" z="1"/></box>
            <box name="box_1" mass="1"><dim x="1" y="1" z="1"/></box>
            <box name="box" mass="1"><dim x="1" y="1" z="1"/></box>
        </objects>"""))
    assert scene.entity_names() == ['box', 'box_2', 'box_1', 'box_3']
    assert [e.root.name for e in scene.entities] == scene.entity_names()
    assert sum("'box' is used 3 times" in w for w in scene.warnings) == 1


def test_unknown_elements_and_attributes_warn_or_fail_when_strict(write_file: WriteFile) -> None:
    path = world(write_file, """
        <spaceship/>
        <objects><sphere name="s" mass="1" colour="red"><dim radius="1"/></sphere></objects>""")
    scene = load(path)
    assert any(':4: unknown element <spaceship>' in w for w in scene.warnings)
    assert any(":5: unknown attribute 'colour'" in w for w in scene.warnings)
    with pytest.raises(SceneLoadError, match='colour'):
        load(path, strict=True)


def test_load_scene_dispatches_raisim_xml(write_file: WriteFile) -> None:
    path = write_file('w.xml', '\n\n<?xml version="1.0" ?>\n<raisim><timeStep value="0.01"/></raisim>')
    assert load_scene(path).format == 'raisim'


# --- height maps ---------------------------------------------------------------------------------

def test_heightmap_inline_heights_rows_along_y(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <heightmap name="t" x_sample="3" y_sample="2" x_size="4" y_size="2" center_x="1"
                       center_y="-1" height="0 1 2, 3 4 5"/>
        </objects>"""))
    terrain_entity = scene.entity('t')
    field = terrain_entity.root.collisions[0].shape
    assert isinstance(field, Heightfield)
    assert field.heights.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert (field.size_x, field.size_y) == (4.0, 2.0)
    assert terrain_entity.pose.position == (1.0, -1.0, 0.0)
    assert terrain_entity.kind == 'static'


def test_heightmap_from_text_file(write_file: WriteFile) -> None:
    write_file('map.txt', '3 2 6 4\n1 2 3 4 5 6\n')
    scene = load(world(write_file, """
        <objects><heightmap name="t" text="[THIS_DIR]/map.txt" center_x="0" center_y="0"/></objects>"""))
    field = scene.entity('t').root.collisions[0].shape
    assert field.heights.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert (field.size_x, field.size_y) == (6.0, 4.0)


def write_png(path: Path, rows: list[list[int]], depth: int = 8) -> None:
    """A grey PNG whose rows use every filter type in turn (exercises the decoder)."""
    bpp = depth // 8
    raw_rows = [b''.join(v.to_bytes(bpp, 'big') for v in row) for row in rows]
    out = bytearray()
    previous = bytes(len(raw_rows[0]))
    for index, line in enumerate(raw_rows):
        kind = index % 5
        filtered = bytearray()
        for i, value in enumerate(line):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            upper_left = previous[i - bpp] if i >= bpp else 0
            if kind == 0:
                predictor = 0
            elif kind == 1:
                predictor = left
            elif kind == 2:
                predictor = up
            elif kind == 3:
                predictor = (left + up) // 2
            else:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
            filtered.append((value - predictor) & 0xFF)
        out += bytes([kind]) + filtered
        previous = line

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))

    header = struct.pack('>IIBBBBB', len(rows[0]), len(rows), depth, 0, 0, 0, 0)
    path.write_bytes(terrain.PNG_SIGNATURE + chunk(b'IHDR', header)
                     + chunk(b'IDAT', zlib.compress(bytes(out))) + chunk(b'IEND', b''))


@pytest.mark.parametrize('depth', [8, 16])
def test_png_reader_decodes_every_filter(tmp_path: Path, depth: int) -> None:
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 2 ** depth, size=(7, 5)).tolist()
    write_png(tmp_path / 'h.png', rows, depth)
    assert terrain.read_png_samples(tmp_path / 'h.png').tolist() == rows


def test_heightmap_from_png_top_row_is_positive_y(write_file: WriteFile, tmp_path: Path) -> None:
    write_png(tmp_path / 'map.png', [[10, 20], [30, 40]])
    scene = load(world(write_file, """
        <objects><heightmap name="t" png="[THIS_DIR]/map.png" x_size="8" y_size="6"
                            center_x="0" center_y="0" z_offset="-1" z_scale="0.5"/></objects>"""))
    field = scene.entity('t').root.collisions[0].shape
    assert field.heights.tolist() == [[14.0, 19.0], [4.0, 9.0]]
    assert (field.size_x, field.size_y) == (8.0, 6.0)


def test_heightmap_terrain_generator_is_seeded_and_bounded(write_file: WriteFile) -> None:
    def generated(seed: int, step: float = 0.0) -> np.ndarray:
        path = world(write_file, f"""
            <objects><heightmap name="t" xSample="40" ySample="30" xSize="20" ySize="10"
                                centerX="0" centerY="0">
                <terrainProperties frequency="0.2" zScale="3.0" fractalOctaves="3"
                    fractalLacunarity="2.0" fractalGain="0.25" stepSize="{step}" seed="{seed}"/>
            </heightmap></objects>""", f'gen{seed}_{step}.xml')
        return load(path).entity('t').root.collisions[0].shape.heights

    first, again, other = generated(0), generated(0), generated(7)
    assert first.shape == (30, 40)
    assert np.array_equal(first, again)
    assert not np.allclose(first, other)
    assert np.abs(first).max() <= 3.0 * (1 + 0.25 + 0.0625) + 1e-9
    assert first.std() > 0.05  # not flat
    stepped = generated(0, 0.5)
    assert np.allclose(stepped / 0.5, np.round(stepped / 0.5))


# --- wires ---------------------------------------------------------------------------------------

def test_wires_stiff_and_compliant(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <sphere name="a" mass="1"><dim radius="0.1"/><state pos="0 0 2"/></sphere>
            <sphere name="b" mass="1"><dim radius="0.1"/><state pos="0 0 1"/></sphere>
        </objects>
        <wire name="rope" type="stiff">
            <object1 name="a" local_index="0" pos="0 0 -0.1"/>
            <object2 name="b" local_index="0" pos="0 0 0.1"/>
        </wire>
        <wire name="spring" type="compliant" stiffness="500" length="2">
            <object1 name="a" pos="0 0 0"/><object2 name="b" pos="0 0 0"/>
        </wire>"""))
    rope, spring = scene.wires
    assert (rope.body_a, rope.body_b) == ('a/a', 'b/b')
    assert rope.length == pytest.approx(0.8) and rope.stiffness is None
    assert (spring.length, spring.stiffness) == (2.0, 500.0)


def test_wire_kinds_stretch_types_and_custom_tension(write_file: WriteFile) -> None:
    scene = load(world(write_file, """
        <objects>
            <sphere name="a" mass="1" com="0 0 0.05"><dim radius="0.1"/><state pos="0 0 2"/></sphere>
            <sphere name="b" mass="1"><dim radius="0.1"/><state pos="0 0 1"/></sphere>
        </objects>
        <wire name="rod" type="stiff" stretch_type="BOTH" length="1">
            <object1 name="a" pos="0 0 0"/><object2 name="b" pos="0 0 0"/>
        </wire>
        <wire name="pusher" type="compliant" stiffness="50" stretch_type="COMPRESSION_RESISTANCE_ONLY">
            <object1 name="a" pos="0 0 0"/><object2 name="b" pos="0 0 0"/>
        </wire>
        <wire name="winch" type="custom">
            <object1 name="a" pos="0 0 0"/><object2 name="b" pos="0 0 0"/>
        </wire>
        <wire name="pulled" type="custom" tension="3">
            <object1 name="a" pos="0 0 0"/><object2 name="b" pos="0 0 0"/>
        </wire>"""))
    rod, pusher, winch, pulled = scene.wires
    assert (rod.kind, rod.stretch, rod.stiffness) == ('stiff', 'both', None)
    assert (pusher.kind, pusher.stretch, pusher.stiffness) == ('compliant', 'compression', 50.0)
    assert (winch.kind, winch.tension, pulled.tension) == ('custom', 0.0, 3.0)
    assert [w for w in scene.warnings if 'custom wire' in w and 'winch' in w]
    assert not [w for w in scene.warnings if 'pulled' in w or 'com' in w]
    assert scene.entity('a').root.inertial.com == (0.0, 0.0, 0.05)


def test_unknown_attribute_used_many_times_is_warned_once(write_file: WriteFile) -> None:
    boxes = '\n'.join(f'<box name="b{i}" mass="1" com="0 0 0.{i}" shininess="2"><dim x="1" y="1" '
                      f'z="1"/><state pos="{i} 0 0"/></box>' for i in range(1, 4))
    scene = load(world(write_file, f'<objects>{boxes}</objects>'))
    shininess = [w for w in scene.warnings if 'shininess' in w]
    assert len(shininess) == 1 and shininess[0].endswith('ignored (3 times)')
    assert [scene.entity(f'b{i}').root.inertial.com for i in (1, 2, 3)] == \
        [(0.0, 0.0, 0.1), (0.0, 0.0, 0.2), (0.0, 0.0, 0.3)]
