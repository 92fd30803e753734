"""``scene-sim-ros inspect`` on one real file of every format from the corpus (SimRobot's Game.ros2,
a Webots device world, Simox ArmarIII and a scene, a RaiSim templated world with its ``@@``
parameters, a plain URDF). Skipped whole without the corpus; ``test_cli.py`` runs the same
commands on the scenes that ship."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from support.cli import FILE_LINE_MESSAGE, REPO, cli, inspect_json, params, robots
from support.corpus import CORPUS, missing, skip_module_without

skip_module_without(CORPUS)

GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
WEBOTS_CAMERA = CORPUS / 'webots' / 'webots' / 'projects' / 'samples' / 'devices' / 'worlds' / 'camera.wbt'
SIMOX_DATA = CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data'
ARMAR = SIMOX_DATA / 'robots' / 'ArmarIII' / 'ArmarIII.xml'
SIMOX_SCENE = SIMOX_DATA / 'scenes' / 'examples' / 'SceneViewer' / 'scene1.xml'
RAISIM = CORPUS / 'raisim' / 'raisim2Lib' / 'rsc'
TEMPLATED_WORLD = RAISIM / 'xmlScripts' / 'templatedWorld' / 'templatedWorld.xml'
LAIKAGO_URDF = RAISIM / 'laikago' / 'laikago.urdf'

TEMPLATE_PARAMETERS = {'laikago_start_x': '1.5', 'laikago_start_y': '-2', 'floor_height': '0.25',
                       'sphere_count': '3', 'spawn_sphere': 'true', 'spawn_box': 'false',
                       'sphere_height_offset': '0.5'}
REQUIRED_TEMPLATE_PARAMETERS = ('floor_height', 'sphere_count', 'laikago_start_x', 'laikago_start_y')


def needs(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=missing(path))


@needs(GAME)
def test_inspect_json_simrobot_game_has_fourteen_naos() -> None:
    summary = inspect_json(GAME)
    assert summary['format'] == 'simrobot'
    assert summary['gravity'] == pytest.approx([0.0, 0.0, -9.80665])
    naos = robots(summary)
    assert len(naos) == 14
    for name, nao in naos.items():
        assert len(nao['joints']) == 24, name
        assert {j['type'] for j in nao['joints']} == {'revolute'}
        assert {j['motor']['type'] for j in nao['joints']} == {'servo'}
        assert nao['mass'] == pytest.approx(next(iter(naos.values()))['mass'])
        cameras = {s['name']: s for s in nao['sensors'] if s['type'] == 'camera'}
        assert set(cameras) == {'CameraTop', 'CameraBottom'}
        assert {s['link'] for s in cameras.values()} == {'Head'}


@needs(WEBOTS_CAMERA)
def test_inspect_json_webots_camera_world_lists_the_robot_devices() -> None:
    summary = inspect_json(WEBOTS_CAMERA)
    assert summary['format'] == 'webots'
    (bot,) = robots(summary).values()
    assert bot['name'] == 'MyBot'
    assert sorted(j['name'] for j in bot['joints']) == ['left wheel motor', 'right wheel motor']
    assert all(j['motor'] is not None for j in bot['joints'])
    sensors = {s['name']: s for s in bot['sensors']}
    assert (sensors['camera']['type'], sensors['camera']['width'], sensors['camera']['height']) \
        == ('camera', 80, 60)
    assert sensors['camera']['fov_x'] == pytest.approx(1.047)
    assert {sensors[n]['type'] for n in ('ds0', 'ds1')} == {'single_distance'}
    assert sensors['left wheel sensor']['type'] == 'joint_position'
    assert sensors['left wheel sensor']['joint'] == 'left wheel motor'
    # the remote PROTOs of the arena are not in the corpus: warnings that name them
    assert any('RectangleArena' in w for w in summary['warnings'])


@needs(ARMAR)
def test_inspect_json_simox_armar3_has_53_joints_with_prismatic_ones() -> None:
    summary = inspect_json(ARMAR)
    assert summary['format'] == 'simox'
    (armar,) = robots(summary).values()
    assert len(armar['joints']) == 53
    types = Counter(j['type'] for j in armar['joints'])
    assert types['revolute'] > 0 and types['prismatic'] > 0
    assert all(j['motor'] is not None for j in armar['joints'])


@needs(SIMOX_SCENE)
def test_inspect_json_simox_scene_holds_the_robot_and_obstacles() -> None:
    summary = inspect_json(SIMOX_SCENE)
    assert summary['format'] == 'simox'
    kinds = Counter(e['kind'] for e in summary['entities'])
    assert kinds['robot'] == 1 and kinds['static'] >= 1
    (armar,) = robots(summary).values()
    assert len(armar['joints']) == 53


@needs(TEMPLATED_WORLD)
def test_inspect_json_raisim_templated_world_with_its_parameters() -> None:
    summary = inspect_json(TEMPLATED_WORLD.resolve(), *params(TEMPLATE_PARAMETERS))
    assert summary['format'] == 'raisim'
    assert summary['step_length'] == pytest.approx(0.001)
    (laikago,) = robots(summary).values()
    assert len(laikago['joints']) == 12 and {j['type'] for j in laikago['joints']} == {'revolute'}
    spheres = [e for e in summary['entities'] if e['name'].startswith('sphere_array_')]
    assert len(spheres) == int(TEMPLATE_PARAMETERS['sphere_count'])   # <array> end is exclusive
    assert all(e['kind'] == 'object' for e in spheres)
    assert not any(e['name'].startswith('box') for e in summary['entities'])  # spawn_box=false


@needs(TEMPLATED_WORLD)
def test_inspect_raisim_without_its_parameters_names_each_missing_one() -> None:
    result = cli('inspect', '--json', TEMPLATED_WORLD.resolve())
    assert result.returncode == 2 and result.stdout == ''
    for name in REQUIRED_TEMPLATE_PARAMETERS:
        # the parameter, where it is first used as file:line, on one line of stderr
        assert re.search(rf'{name}\b[^\n]*\.xml:\d+', result.stderr), (name, result.stderr)


@needs(TEMPLATED_WORLD)
def test_inspect_raisim_world_given_by_a_relative_path() -> None:
    relative = os.path.relpath(TEMPLATED_WORLD, REPO)
    result = cli('inspect', '--json', relative, *params(TEMPLATE_PARAMETERS))
    assert result.returncode == 0, result.stderr
    assert len(robots(json.loads(result.stdout))) == 1


@needs(LAIKAGO_URDF)
def test_inspect_json_plain_urdf_is_one_robot() -> None:
    summary = inspect_json(LAIKAGO_URDF)
    assert summary['format'] == 'urdf'
    (laikago,) = summary['entities']
    assert laikago['kind'] == 'robot'
    assert (laikago['links'], len(laikago['joints'])) == (21, 12)
    limits = {j['name']: j['limits'] for j in laikago['joints']}
    assert limits['FR_hip_joint'] == pytest.approx([-1.0471975512, 0.872664625997])
    # the .dae visuals are not in the corpus: one warning each, file:line
    assert summary['warnings'] and all(FILE_LINE_MESSAGE.match(w) for w in summary['warnings'])
