"""RaiSim templated worlds: every missing ``@@`` parameter in one message, with paths as the user
gave them, and "did you mean" for a misspelled parameter (in the file or on the command line)."""

from __future__ import annotations

import os

import pytest

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.formats.raisim import load

WORLD = """
<raisim version="1.0">
  <params>
    <floor_height value="0"/>
  </params>
  <include value="[THIS_DIR]/parts/spheres.xml"/>
  <objects>
    <ground name="floor" height="@@flor_height"/>
    <box name="b" mass="1"><dim x="@@box_x" y="1" z="1"/><state pos="0 0 @@box_z"/></box>
  </objects>
</raisim>
"""
SPHERES = """
<raisim version="1.0">
  <objects>
    <array idx="@@i" start="0" end="@@sphere_count" increment="1">
      <sphere name="s_@@i" mass="1"><dim radius="0.1"/><state pos="@@i 0 1"/></sphere>
    </array>
  </objects>
</raisim>
"""


@pytest.fixture
def world(write_file, tmp_path, monkeypatch):
    write_file('parts/spheres.xml', SPHERES)
    path = write_file('world.xml', WORLD)
    monkeypatch.chdir(tmp_path)
    return path


def error_of(path, **kwargs) -> str:
    with pytest.raises(SceneLoadError) as err:
        load(path, **kwargs)
    return str(err.value)


def test_all_missing_parameters_in_one_message_with_the_users_paths(world) -> None:
    given = os.path.join('parts', '..', 'world.xml')   # a path as a user might type it
    message = error_of(given)
    assert len(message.splitlines()) == 1, message       # no follow-up errors (the <array>)
    first = message.split(': missing template parameters: ')[0]
    assert first == given
    for name in ('flor_height', 'box_x', 'box_z', 'sphere_count'):
        assert f'{name} (first used at ' in message, name
    assert os.path.join('parts', '..', 'parts', 'spheres.xml') in message \
        or os.path.join('parts', 'spheres.xml') in message
    assert 'flor_height (first used at ' in message and 'did you mean @@floor_height?' in message


def test_a_misspelled_given_parameter_says_did_you_mean(world) -> None:
    message = error_of(world, parameters={'flor_height': '0', 'box_x': '1', 'box_z': '1',
                                          'sphere_cuont': '3'})
    assert 'missing template parameters: sphere_count' in message
    assert 'sphere_cuont was given: did you mean sphere_count?' in message


def test_with_every_parameter_the_world_loads(world) -> None:
    scene = load(world, parameters={'flor_height': '0', 'box_x': '1', 'box_z': '1',
                                    'sphere_count': '3'})
    assert [e.name for e in scene.entities] == ['s_0', 's_1', 's_2', 'floor', 'b']
