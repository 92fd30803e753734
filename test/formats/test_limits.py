"""Each resource limit of ``scene_sim_ros/limits.py``: a scene over it is one SceneLoadError that names
the limit and the environment variable raising it; raising it lets the scene through."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from scene_sim_ros import limits
from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats import load_scene
from scene_sim_ros.formats.validate import validate
from scene_sim_ros.scene import Collision, Entity, Link, Mesh, Scene

WriteFile = Callable[[str, str], Path]
BOX = '<BoxGeometry width="1" height="1" depth="1"/>'


def refused(path: Path, limit: str, where: Path | None = None) -> str:
    """The message of loading ``path``, checked to name ``limit`` and the file ``where``."""
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    message = str(info.value)
    assert f'over the limit {limit} = ' in message, message
    assert limits.env_name(limit) in message
    assert message.startswith(str(where or path))
    return message


@pytest.mark.parametrize('name', ['huge.ros2', 'huge.wbt', 'huge.urdf', 'huge.xml'])
def test_file_size_is_checked_before_reading(name: str, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / name
    with path.open('wb') as stream:
        stream.truncate(int(limits.current().max_file_mb * 1024 * 1024) + 1)
    read: list[object] = []

    def recording(original: Callable[..., bytes]) -> Callable[..., bytes]:
        def read_bytes(*args: object) -> bytes:
            read.append(args)
            return original(*args)
        return read_bytes

    monkeypatch.setattr(Path, 'read_bytes', recording(Path.read_bytes))
    monkeypatch.setattr(limits, 'read_bytes', recording(limits.read_bytes))
    assert 'file is 64.0 MiB' in refused(path, 'max_file_mb')
    assert not read


def test_file_size_limit_is_raised_by_environment(write_file: WriteFile, monkeypatch) -> None:
    path = write_file('small.urdf', '<robot name="r"><link name="a"/></robot>')
    monkeypatch.setenv(limits.env_name('max_file_mb'), '0.00001')
    refused(path, 'max_file_mb')
    monkeypatch.setenv(limits.env_name('max_file_mb'), '1')
    assert load_scene(path).entities[0].name == 'r'


def test_simrobot_ref_doubling_is_refused_before_expanding(write_file: WriteFile) -> None:
    definitions = [f'<Compound name="c0">{BOX}</Compound>'] + [
        f'<Compound name="c{i}"><Compound ref="c{i - 1}"/><Compound ref="c{i - 1}"/></Compound>'
        for i in range(1, 40)]
    path = write_file('bomb.ros2', '<Simulation>' + '\n'.join(definitions)
                      + '\n<Scene name="s"><Compound ref="c39"/></Scene></Simulation>')
    assert 'expands to 1649267441664 elements' in refused(path, 'max_elements')


def test_webots_use_doubling_is_refused(write_file: WriteFile) -> None:
    lines = ['#VRML_SIM R2023b utf8',
             'DEF N0 Transform { children [ Shape { geometry Box { size 1 1 1 } } ] }']
    lines += [f'DEF N{i} Transform {{ children [ USE N{i - 1} USE N{i - 1} ] }}'
              for i in range(1, 40)]
    refused(write_file('bomb.wbt', '\n'.join(lines) + '\n'), 'max_elements')


def test_raisim_array_of_a_billion_is_refused(write_file: WriteFile) -> None:
    path = write_file('bomb.xml', '<raisim version="1.0"><objects><array idx="@@i" start="0" '
                      'end="1000000000" increment="1"><sphere name="s@@i" mass="1">'
                      '<dim radius="0.1"/></sphere></array></objects></raisim>')
    assert '<array> copies' in refused(path, 'max_elements')


ELEMENT_FILES = {  # format: (file name, head, element i (one line), tail)
    'simrobot': ('many.ros2', '<Simulation><Scene name="s">',
                 lambda i: f'<Compound name="c{i}">{BOX}</Compound>', '</Scene></Simulation>'),
    'urdf': ('many.urdf', '<robot name="r"><link name="l"/>',
             lambda i: f'<link name="l{i}"/><joint name="j{i}" type="fixed"><parent link="l"/>'
                       f'<child link="l{i}"/></joint>', '</robot>'),
    'raisim': ('many.xml', '<raisim version="1.0"><objects>',
               lambda i: f'<sphere name="s{i}" mass="1"><dim radius="0.1"/><state pos="{i} 0 0"/>'
                         '</sphere>',
               '</objects></raisim>'),
    'simox': ('many.xml', "<Robot Type='R' RootNode='n0'>",
              lambda i: f"<RobotNode name='n{i}'><Child name='n{i + 1}'/></RobotNode>",
              "<RobotNode name='n3000'/></Robot>"),
}


@pytest.mark.parametrize('fmt', sorted(ELEMENT_FILES))
def test_xml_elements_are_counted_while_parsing(fmt: str, write_file: WriteFile) -> None:
    """A file of many elements stops where the count passes max_xml_elements, before the rest
    is parsed (63 MiB of them took 1 to 3.5 GB and over a minute to refuse)."""
    name, head, element, tail = ELEMENT_FILES[fmt]
    lines = [head, *(element(i) for i in range(3000)), tail]
    path = write_file(name, '\n'.join(lines) + '\n')
    opened = itertools.accumulate(len(re.findall('<[A-Za-z]', line)) for line in lines)
    line_of_1001st = 1 + next(i for i, count in enumerate(opened) if count > 1000)
    with limits.override(max_xml_elements=1000):
        message = refused(path, 'max_xml_elements')
    assert message.startswith(f'{path}:{line_of_1001st}: the file has more than 1000 XML '
                              'elements')
    assert load_scene(path).entities  # under the default limit it loads


def test_include_depth(write_file: WriteFile) -> None:
    for i in range(5):
        write_file(f'i{i}.rsi2', f'<Simulation><Include href="i{i + 1}.rsi2"/></Simulation>')
    write_file('i5.rsi2', f'<Simulation><Compound name="c">{BOX}</Compound></Simulation>')
    path = write_file('deep.ros2', '<Simulation><Include href="i0.rsi2"/>'
                      '<Scene name="s"><Compound ref="c"/></Scene></Simulation>')
    with limits.override(max_include_depth=3):
        message = refused(path, 'max_include_depth', path.parent / 'i2.rsi2')
    assert 'i2.rsi2:1: includes nest 4 deep' in message
    assert load_scene(path).entities


def test_magnitude_of_a_mass(write_file: WriteFile) -> None:
    path = write_file('heavy.urdf', '<robot name="r"><link name="a"><inertial>'
                      '<mass value="1e308"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
                      'iyz="0"/></inertial></link></robot>')
    assert "link 'a' inertial mass is 1e+308" in refused(path, 'max_magnitude')


def test_time_step_range(write_file: WriteFile) -> None:
    path = write_file('slow.xml', '<raisim version="1.0"><timeStep value="5"/></raisim>')
    assert 'time step is 5 s' in refused(path, 'max_time_step')
    zero = write_file('zero.xml', '<raisim version="1.0"><timeStep value="0"/></raisim>')
    with pytest.raises(SceneLoadError, match='must be positive'):
        load_scene(zero)


def test_math_expression_cost(write_file: WriteFile) -> None:
    terms = '+'.join(['1'] * 300)
    path = write_file('math.xml', '<raisim version="1.0"><objects><sphere name="s" '
                      f'mass="{{{terms}}}"><dim radius="0.1"/></sphere></objects></raisim>')
    message = refused(path, 'max_math_nodes')
    assert 'math.xml:1: mass: expression has 899 parts' in message


def test_triangle_count() -> None:
    mesh = Mesh(np.zeros((3, 3)), np.array([[0, 1, 2]] * 10))
    scene = Scene('s', (Entity('e', 'object', (Link('a', collisions=(Collision(mesh),)),)),),
                  source=Path('m.wbt'))
    assert validate(scene) is scene
    with limits.override(max_triangles=9), pytest.raises(SceneLoadError) as info:
        validate(scene)
    assert 'has 10 triangles, over the limit max_triangles = 9' in str(info.value)


def test_scene_tree_levels(write_file: WriteFile) -> None:
    write_file('a/b/meshes/box.stl', 'solid x\nendsolid x\n')
    path = write_file('a/b/c/d/r.urdf', '<robot name="r"><link name="a"><visual><geometry>'
                      '<mesh filename="../../meshes/box.stl"/></geometry></visual></link></robot>')
    load_scene(path)
    with limits.override(scene_tree_levels=1), \
            pytest.raises(SceneLoadError, match='is outside the scene') as info:
        load_scene(path)
    assert 'SCENE_SIM_ROS_SCENE_TREE_LEVELS' in str(info.value)


def test_limits_from_environment_must_be_numbers(monkeypatch) -> None:
    monkeypatch.setenv(limits.env_name('max_elements'), 'lots')
    with pytest.raises(SceneLoadError, match='SCENE_SIM_ROS_MAX_ELEMENTS'):
        limits.current()


def test_simox_include_depth(write_file: WriteFile) -> None:
    for i in range(4):
        write_file(f'r{i}.xml', f"""<Robot Type='R{i}' RootNode='n{i}'><RobotNode name='n{i}'>
            <ChildFromRobot><File>r{i + 1}.xml</File></ChildFromRobot></RobotNode></Robot>""")
    write_file('r4.xml', "<Robot Type='R4' RootNode='n4'><RobotNode name='n4'/></Robot>")
    path = write_file('r0.xml', """<Robot Type='R0' RootNode='n0'><RobotNode name='n0'>
        <ChildFromRobot><File>r1.xml</File></ChildFromRobot></RobotNode></Robot>""")
    with limits.override(max_include_depth=3):
        message = refused(path, 'max_include_depth', path.parent / 'r3.xml')
    assert 'robot files (ChildFromRobot) nest 4 deep' in message
    assert len(load_scene(path).entities[0].links) == 5


def test_webots_file_of_numbers_is_refused_while_reading(write_file: WriteFile) -> None:
    """A few MB of `1 1 1 ...` in one MF field: refused at its line once the values counted
    pass max_values, whatever follows (the row is never parsed to the end)."""
    head = '#VRML_SIM R2023b utf8\nSolid {\n  children [ Shape { geometry IndexedFaceSet {\n'
    path = write_file('numbers.wbt', head + '    coord Coordinate { point [\n'
                      + '1 1 1\n' * 500_000 + ']\n}\n} } ]\n}\n')
    with limits.override(max_values=300_000):
        message = refused(path, 'max_values')
    assert 'more than 300000 values' in message
    line = int(message.split(':')[1])
    assert abs(line - (5 + 300_000 // 3)) <= 5  # the row where the count went over


def test_webots_values_limit_counts_words_and_strings_too(write_file: WriteFile) -> None:
    path = write_file('words.wbt', '#VRML_SIM R2023b utf8\nSolid {\n  name ['
                      + ' "a"' * 2000 + ' ]\n}\n')
    with limits.override(max_values=1000):
        refused(path, 'max_values')
    with limits.override(max_values=3000):
        assert load_scene(path).entities


def test_webots_tokens_are_bounded_apart_from_values(write_file: WriteFile) -> None:
    """Many words (each a parser object) are bounded by max_tokens; a long row of numbers is
    a few tokens (rows of up to 4096 values), so it passes the same limit."""
    words = write_file('words.wbt', '#VRML_SIM R2023b utf8\nSolid {\n'
                       + 'a 1\n' * 20_000 + '}\n')
    row = write_file('row.wbt', '#VRML_SIM R2023b utf8\nSolid {\n  children [ Shape { '
                     'geometry IndexedFaceSet { coord Coordinate { point [\n'
                     + '0 0 0\n' * 20_000 + '] } } } ]\n}\n')
    with limits.override(max_tokens=1_000):
        assert 'more than 1000 tokens' in refused(words, 'max_tokens')
        assert load_scene(row).entities


def test_many_errors_are_shown_up_to_twenty(write_file: WriteFile) -> None:
    """A file of 3,000 duplicate names was a message of 3,000 lines (megabytes at 50,000)."""
    compounds = '\n'.join(f'<Compound name="c">{BOX}</Compound>' for _ in range(3000))
    path = write_file('dups.ros2', f'<Simulation>\n{compounds}\n</Simulation>\n')
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    lines = str(info.value).splitlines()
    assert len(lines) == limits.MAX_ERRORS_SHOWN + 1
    assert lines[0].startswith(f'{path}:3: duplicate definition of <Compound name="c">')
    assert lines[-1] == f'... and {3000 - limits.MAX_ERRORS_SHOWN} more errors'  # + no <Scene>


def test_urdf_roots_are_listed_up_to_ten(write_file: WriteFile) -> None:
    links = ''.join(f'<link name="l{i}"/>' for i in range(500))
    path = write_file('r.urdf', f'<robot name="r">{links}</robot>')
    with pytest.raises(SceneLoadError) as info:
        load_scene(path)
    assert str(info.value).endswith("found 500: 'l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', "
                                    "'l8', 'l9' and 490 more")


def test_image_sensor_size(write_file: WriteFile) -> None:
    world = write_file('w.wbt', '#VRML_SIM R2023b utf8\nRobot { children [ Camera { '
                       'name "cam" width 100000 height 100000 } ] }\n')
    with pytest.raises(SceneLoadError, match=r"w\.wbt: entity 'robot' sensor 'cam' is "
                       r'100000x100000 pixels, over the limit max_image_pixels'):
        load_scene(world)
    with limits.override(max_image_pixels=10**10):
        assert load_scene(world).entities[0].sensors[0].width == 100000


def test_image_sensor_of_no_pixels_in_the_model() -> None:
    from scene_sim_ros.scene.sensors import Camera
    camera = Camera('cam', 'a', 0, 24, 1.0, 0.8)
    scene = Scene('s', (Entity('e', 'robot', (Link('a'),), sensors=(camera,)),),
                  source=Path('m.ros2'))
    with pytest.raises(SceneLoadError, match=r"m\.ros2: entity 'e' sensor 'cam' is 0x24 pixels; "
                       'an image needs at least one pixel a side'):
        validate(scene)
