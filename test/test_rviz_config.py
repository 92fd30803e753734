"""config/scene_sim_ros.rviz shows what the node serves for the bundled default scene: the robot
model from a topic the node publishes (transient-local, as RViz asks), frames the node uses."""

from pathlib import Path

import yaml

from scene_sim_ros.formats import load_scene
from scene_sim_ros.resources import default_scene_path
from scene_sim_ros.ros.runtime.interface_list import interface_rows

CONFIG = Path(__file__).resolve().parents[1] / 'config' / 'scene_sim_ros.rviz'


def _displays() -> dict[str, dict]:
    config = yaml.safe_load(CONFIG.read_text())
    return {d['Class']: d for d in config['Visualization Manager']['Displays']}


def test_robot_model_reads_a_published_description_with_the_entity_frames():
    model = _displays()['rviz_default_plugins/RobotModel']
    scene = load_scene(default_scene_path())
    published = {topic: kind for direction, topic, kind in interface_rows(scene)
                 if direction == 'pub'}
    topic = model['Description Topic']
    assert published.get(topic['Value']) == 'std_msgs/msg/String'
    assert topic['Durability Policy'] == 'Transient Local'
    robot, = [e.name for e in scene.entities if e.kind == 'robot']
    assert model['TF Prefix'] == robot


def test_every_topic_display_names_a_published_topic_of_its_type():
    scene = load_scene(default_scene_path())
    published = {topic: kind for direction, topic, kind in interface_rows(scene)
                 if direction == 'pub'}
    kinds = {'rviz_default_plugins/Image': 'sensor_msgs/msg/Image',
             'rviz_default_plugins/LaserScan': 'sensor_msgs/msg/LaserScan'}
    for cls, kind in kinds.items():
        display = _displays().get(cls)
        if display is not None:
            assert published.get(display['Topic']['Value']) == kind, cls
