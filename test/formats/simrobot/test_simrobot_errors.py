"""Each error case of the SimRobot loader: one SceneLoadError with ``file:line: what``."""

from __future__ import annotations

import pytest

from scene_sim_ros import limits
from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.simrobot import load

MASS = '<SphereMass value="1kg" radius="1"/>'


def _error(scene_of, body: str, definitions: str = '') -> SceneLoadError:
    with pytest.raises(SceneLoadError) as info:
        scene_of(body, definitions)
    return info.value


def test_unknown_ref(scene_of) -> None:
    err = _error(scene_of, '\n<Body ref="Ghost"/>')
    assert err.line == 5 and err.file is not None and err.file.endswith('test.ros2')
    assert 'unknown reference' in str(err) and 'Ghost' in str(err)


def test_looping_ref(scene_of) -> None:
    err = _error(scene_of, '<Body ref="A"/>', '<Body name="A" ref="B"/><Body name="B" ref="A"/>')
    assert 'looping reference' in str(err)


def test_unknown_unit(scene_of) -> None:
    err = _error(scene_of, f'<Body name="b">{MASS}\n<Translation x="3furlongs"/></Body>')
    assert "unknown unit 'furlongs'" in str(err) and err.line == 5


def test_missing_required_attribute(scene_of) -> None:
    err = _error(scene_of, f'<Body name="b">{MASS}<BoxGeometry depth="1" width="1"/></Body>')
    assert 'missing required attribute "height" of <BoxGeometry>' in str(err)


def test_missing_required_child(scene_of) -> None:
    err = _error(scene_of, '<Body name="massless"/>')
    assert '<Body> needs a child element' in str(err)


def test_unresolved_placeholder(scene_of) -> None:
    err = _error(scene_of, f'<Body name="b">{MASS}<SphereGeometry radius="$Nowhere"/></Body>')
    assert 'unresolved placeholder "$Nowhere"' in str(err)


def test_missing_include(write_file) -> None:
    path = write_file('s.ros2', '<Simulation>\n<Include href="gone.rsi2"/>\n<Scene/></Simulation>')
    with pytest.raises(SceneLoadError, match=r's\.ros2:2: included file "gone\.rsi2" not found'):
        load(path)


def test_include_cycle(write_file) -> None:
    write_file('a.rsi2', '<Simulation><Include href="b.rsi2"/></Simulation>')
    write_file('b.rsi2', '<Simulation>\n<Include href="a.rsi2"/></Simulation>')
    path = write_file('s.ros2', '<Simulation><Include href="a.rsi2"/><Scene/></Simulation>')
    with pytest.raises(SceneLoadError, match=r'b\.rsi2:2: include cycle: .*a\.rsi2 -> .*b\.rsi2 '
                                             r'-> .*a\.rsi2'):
        load(path)


def test_malformed_xml_has_line(write_file) -> None:
    path = write_file('bad.ros2', '<Simulation>\n<Scene>\n</Simulation>')
    with pytest.raises(SceneLoadError, match=r'bad\.ros2:3: not well-formed XML'):
        load(path)


def test_external_entities_are_not_expanded(write_file, tmp_path) -> None:
    secret = write_file('secret.txt', 'TOPSECRET')
    path = write_file('xxe.ros2', f"""<?xml version="1.0"?>
        <!DOCTYPE Simulation [<!ENTITY leak SYSTEM "file://{secret}">]>
        <Simulation><Scene name="&leak;"/></Simulation>""")
    try:
        scene = load(path)
    except SceneLoadError:
        return  # rejecting the document is fine too
    assert 'TOPSECRET' not in scene.name


def test_oversized_file_is_rejected(tmp_path) -> None:
    path = tmp_path / 'huge.ros2'
    with path.open('wb') as handle:
        handle.truncate(int(limits.current().max_file_mb * 1024 * 1024) + 1)
    with pytest.raises(SceneLoadError, match='over the limit max_file_mb'):
        load(path)


def test_duplicate_definition_and_missing_scene(write_file) -> None:
    path = write_file('d.ros2', f'<Simulation><Body name="x">{MASS}</Body>\n'
                                f'<Body name="x">{MASS}</Body></Simulation>')
    with pytest.raises(SceneLoadError) as info:
        load(path)
    assert 'duplicate definition' in str(info.value) and 'no <Scene>' in str(info.value)


def test_several_errors_are_reported_together(scene_of) -> None:
    err = _error(scene_of, f'<Body name="b">{MASS}<SphereGeometry radius="1parsec"/>'
                           '<SphereGeometry radius="$X"/></Body>')
    assert len(str(err).splitlines()) == 2
