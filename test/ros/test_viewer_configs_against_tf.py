"""The shipped viewer configurations against what the node publishes, from another process: every
frame RViz's RobotModel (``TF Prefix`` + ``/`` + link) and Lichtblick's URDF layer
(``framePrefix`` + link) look up for the links of the published robot_description is a frame
on /tf or /tf_static, and so are the fixed and followed frames. (A layout whose model frames are
on no transform shows no robot: issue 41.)"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('tf2_msgs.msg')

import yaml  # noqa: E402

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, qos, spin_until, wait_for_messages  # noqa: E402
from support.tf_history import TfHistory  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CONFIG = Path(__file__).resolve().parents[2] / 'config'


@pytest.fixture(scope='module')
def client():
    yield from client_node('viewer_configs_client')


@pytest.fixture(scope='module')
def published(tmp_path_factory, client):
    """(links of /rover/robot_description, every frame on /tf and /tf_static)."""
    from std_msgs.msg import String
    history = TfHistory(client)
    with scene_sim_run(tmp_path_factory.mktemp('viewer_configs')):
        (description,) = wait_for_messages(client, String, '/rover/robot_description',
                                           count=1, timeout=30.0, qos=qos(1, True))
        links = [link.get('name') for link in ET.fromstring(description.data).iter('link')]
        assert spin_until(client, lambda: history.can_transform('world', 'rover/mast'), 30.0)
    frames = set(history.dynamic) | set(history.static)
    frames |= {parent for samples in history.dynamic.values() for _, _, parent in samples}
    frames |= set(history.static.values())
    history.close()
    return links, frames


def test_rviz_robot_model_frames_are_on_tf(published):
    links, frames = published
    config = yaml.safe_load((CONFIG / 'scene_sim_ros.rviz').read_text())['Visualization Manager']
    model, = [d for d in config['Displays'] if d['Class'] == 'rviz_default_plugins/RobotModel']
    prefix = model['TF Prefix']
    looked_up = {f'{prefix}/{link}' if prefix else link for link in links}
    assert looked_up - frames == set()
    assert config['Global Options']['Fixed Frame'] in frames


def test_foxglove_layout_urdf_frames_are_on_tf(published):
    links, frames = published
    panel = json.loads((CONFIG / 'foxglove-layout.json').read_text())['configById']['3D!scene']
    urdf, = [layer for layer in panel['layers'].values() if layer['layerId'] == 'foxglove.Urdf']
    looked_up = {urdf.get('framePrefix', '') + link for link in links}
    assert looked_up - frames == set()
    assert panel['followTf'] in frames
    grids = [layer for layer in panel['layers'].values() if layer['layerId'] == 'foxglove.Grid']
    assert all(grid['frameId'] in frames for grid in grids)


def test_a_generated_layout_of_the_game_shows_every_robot_on_tf(tmp_path, client):
    """`scene-sim-ros layout Game.ros2`: every URDF layer's frames (``framePrefix`` + each link
    of that robot's published description) are on /tf while the game runs."""
    from std_msgs.msg import String

    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.ros.outputs.viewer_layout import layout_for
    from support.corpus import CORPUS, skip_if_missing
    game = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
    skip_if_missing(game)
    layers = [layer for layer in layout_for(load_scene(game))['configById']['3D!scene'][
        'layers'].values() if layer['layerId'] == 'foxglove.Urdf']
    history = TfHistory(client)
    looked_up: set[str] = set()
    with scene_sim_run(tmp_path, str(game)):
        for layer in layers:
            (description,) = wait_for_messages(client, String, layer['topic'], count=1,
                                               timeout=60.0, qos=qos(1, True))
            looked_up |= {layer['framePrefix'] + link.get('name')
                          for link in ET.fromstring(description.data).iter('link')}
        assert spin_until(client, lambda: all(history.can_transform('world', frame)
                                              for frame in looked_up), 60.0)
    frames = set(history.dynamic) | set(history.static)
    history.close()
    assert len(layers) == 14 and len(looked_up) >= 14 * 10
    assert looked_up - frames == set()
