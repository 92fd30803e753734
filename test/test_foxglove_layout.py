"""config/foxglove-layout.json shows what the node serves for the bundled default scene: every
topic a panel names is one the node publishes (the Publish panel: one it subscribes to), with
the type the panel needs; the joint plots name the joints they say."""

import json
import re
from pathlib import Path

import pytest

from scene_sim_ros.formats import load_scene
from scene_sim_ros.resources import default_scene_path
from scene_sim_ros.ros.runtime.interface_list import interface_rows

LAYOUT = Path(__file__).resolve().parents[1] / 'config' / 'foxglove-layout.json'


def _rows(direction: str) -> dict[str, str]:
    scene = load_scene(default_scene_path())
    return {topic: kind for d, topic, kind in interface_rows(scene) if d == direction}


def test_layout_panels_name_topics_the_default_scene_publishes():
    layout = json.loads(LAYOUT.read_text())
    published = _rows('pub')
    panels = layout['configById']
    urdf, = [layer for layer in panels['3D!scene']['layers'].values()
             if layer['layerId'] == 'foxglove.Urdf']
    assert published[urdf['topic']] == 'std_msgs/msg/String'
    for key in ('Image!camera', 'Image!depth'):
        mode = panels[key]['imageMode']
        assert published[mode['imageTopic']] == 'sensor_msgs/msg/Image'
        assert published[mode['calibrationTopic']] == 'sensor_msgs/msg/CameraInfo'
    for topic in panels['3D!scene']['topics']:
        assert topic in published
    for key in ('Plot!joints', 'Plot!imu'):
        for path in panels[key]['paths']:
            topic = re.match(r'(/[\w/]+)\.', path['value']).group(1)
            assert topic in published, path['value']
    publish = panels['Publish!pan']
    assert _rows('sub')[publish['topicName']] == publish['datatype']
    # every panel is placed in the layout tree
    placed = set(re.findall(r'"([A-Za-z0-9]+![a-z]+)"', json.dumps(layout['layout'])))
    assert placed == set(panels)


def test_joint_plot_labels_match_the_joint_order():
    scene = load_scene(default_scene_path())
    robot, = [e for e in scene.entities if e.kind == 'robot']
    joints = [j.name for j in robot.movable_joints]
    paths = json.loads(LAYOUT.read_text())['configById']['Plot!joints']['paths']
    for path in paths:
        index = int(re.search(r'\[(\d+)\]', path['value']).group(1))
        assert path['label'].split()[0] == joints[index]


def test_layout_uses_the_keys_and_values_lichtblick_reads():
    """Names as Lichtblick (the Foxglove Studio fork) reads them (packages/suite-base: Plot
    utils/config.ts, ThreeDeeRender IRenderer.ts and renderables/Urdfs.ts, Grids.ts,
    util/layout.ts PANEL_TITLE_CONFIG_KEY); a key it does not know is silently ignored."""
    layout = json.loads(LAYOUT.read_text())
    assert {'configById', 'layout', 'globalVariables', 'userNodes', 'playbackConfig'} <= set(
        layout)
    panels = layout['configById']
    for key, config in panels.items():
        assert 'title' not in config, key  # the panel title is foxglovePanelTitle
        if key.startswith('Plot!'):
            assert config['foxglovePanelTitle'] and config['xAxisVal'] == 'timestamp'
            assert config['legendDisplay'] in ('floating', 'top', 'left', 'none')
            for path in config['paths']:
                assert path['timestampMethod'] in ('receiveTime', 'headerStamp')
        if key.startswith(('3D!', 'Image!')):
            assert config['followMode'] in ('follow-pose', 'follow-position', 'follow-none')
            assert config['publish']['type'] in ('pose', 'point', 'pose_estimate')
    layers = {layer['layerId']: layer for layer in panels['3D!scene']['layers'].values()}
    assert layers['foxglove.Urdf']['sourceType'] == 'topic'
    assert layers['foxglove.Urdf']['displayMode'] in ('auto', 'visual', 'collision')
    assert set(layers) == {'foxglove.Urdf', 'foxglove.Grid'}
    publish = panels['Publish!pan']
    assert isinstance(publish['advancedView'], bool) and json.loads(publish['value'])


def test_depth_panel_spans_the_depth_cameras_range():
    """Lichtblick maps a 32FC1 image's minValue..maxValue (IRenderer.ts ImageModeConfig) onto
    its colour map; unset, 0..1 m, and the default scene's depth image (median ~1.9 m) was
    ~98 % white. Now the sensor's own range, in a colour map."""
    layout = json.loads(LAYOUT.read_text())
    image_mode = layout['configById']['Image!depth']['imageMode']
    topic = image_mode['imageTopic']
    entity, sensor_name = topic.strip('/').split('/')[:2]
    sensor = load_scene(default_scene_path()).entity(entity).sensor(sensor_name)
    assert (image_mode['minValue'], image_mode['maxValue']) == pytest.approx(
        (sensor.min_range, sensor.max_range))
    assert image_mode['colorMode'] == 'colormap' and image_mode['colorMap'] == 'turbo'


def test_a_generated_layout_shows_every_robot_of_the_game_on_published_topics():
    """`scene-sim-ros layout SCENE`: one URDF layer per robot, each on a topic `run` publishes
    and on the robot's prefixed frames; the first camera in the image panel. (The frames on
    /tf: test/ros/test_viewer_configs_against_tf.py.)"""
    from scene_sim_ros.ros.outputs.viewer_layout import layout_for
    from support.corpus import CORPUS, skip_if_missing
    game_file = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
    skip_if_missing(game_file)
    game = load_scene(game_file)
    layout = layout_for(game)
    published = {topic for direction, topic, _ in interface_rows(game) if direction == 'pub'}
    layers = [layer for layer in layout['configById']['3D!scene']['layers'].values()
              if layer['layerId'] == 'foxglove.Urdf']
    robots = [e.name for e in game.entities if e.kind == 'robot']
    assert len(layers) == len(robots) == 14
    for layer in layers:
        name = layer['topic'].split('/')[1]
        assert layer['topic'] in published and layer['framePrefix'] == f'{name}/'
    image = layout['configById']['Image!camera']['imageMode']
    assert image['imageTopic'] in published and image['calibrationTopic'] in published
    assert set(layout) == set(json.loads(LAYOUT.read_text()))


def test_the_generated_layout_of_the_default_scene_matches_the_shipped_one():
    from scene_sim_ros.ros.outputs.viewer_layout import layout_for
    shipped = json.loads(LAYOUT.read_text())['configById']
    generated = layout_for(load_scene(default_scene_path()))['configById']
    assert generated['3D!scene']['layers'] == shipped['3D!scene']['layers']
    assert generated['Image!camera'] == shipped['Image!camera']
    assert generated['Image!depth'] == shipped['Image!depth']
