"""A Foxglove / Lichtblick layout for any scene (``scene-sim-ros layout SCENE``): the shipped
layout's 3D panel with one URDF layer per robot, on its prefixed frames (``<robot>/``, as the
node publishes them), and image panels for the scene's first camera and first depth camera (the
depth panel spanning that camera's range). Pure Python, from the naming rules the node uses."""

from __future__ import annotations

import copy
import json
from typing import Any

from scene_sim_ros.resources import config_path
from scene_sim_ros.ros.bridge.names import ros_name
from scene_sim_ros.scene import Scene


def layout_for(scene: Scene, template: dict[str, Any] | None = None) -> dict[str, Any]:
    """``template`` (default: the shipped config/foxglove-layout.json) made for ``scene``."""
    template = template or json.loads(config_path('foxglove-layout.json').read_text())
    panels = template['configById']
    scene_panel = copy.deepcopy(panels['3D!scene'])
    grid = [layer for layer in scene_panel['layers'].values() if layer['layerId'] == 'foxglove.Grid']
    scene_panel['layers'] = {'grid': grid[0]} if grid else {}
    robots = [e for e in scene.entities if e.kind == 'robot']
    for robot in robots:
        name = ros_name(robot.name)
        scene_panel['layers'][f'{name}-urdf'] = {
            'visible': True, 'layerId': 'foxglove.Urdf', 'instanceId': f'{name}-urdf',
            'label': robot.name, 'sourceType': 'topic', 'topic': f'/{name}/robot_description',
            'framePrefix': f'{name}/', 'displayMode': 'auto'}
    config: dict[str, Any] = {'3D!scene': scene_panel}
    images = []
    camera = _first_sensor(robots, 'camera')
    if camera is not None:
        config['Image!camera'] = _image_panel(panels['Image!camera'], camera[0])
        images.append('Image!camera')
    depth = _first_sensor(robots, 'depth_camera')
    if depth is not None:
        panel = _image_panel(panels['Image!depth'], depth[0])
        panel['imageMode'].update(minValue=depth[1].min_range, maxValue=depth[1].max_range)
        config['Image!depth'] = panel
        images.append('Image!depth')
    layout: Any = '3D!scene'
    if images:
        right: Any = images[0] if len(images) == 1 else {
            'first': images[0], 'second': images[1], 'direction': 'column', 'splitPercentage': 50}
        layout = {'first': '3D!scene', 'second': right, 'direction': 'row', 'splitPercentage': 60}
    result = {key: copy.deepcopy(value) for key, value in template.items()
              if key not in ('configById', 'layout')}
    result.update(configById=config, layout=layout)
    return result


def _first_sensor(robots: list[Any], kind: str) -> tuple[str, Any] | None:
    """(topic base, sensor) of the first ``kind`` sensor of the robots (perspective depth)."""
    for robot in robots:
        for sensor in robot.sensors:
            if sensor.kind == kind and getattr(sensor, 'projection', 'perspective') != 'spherical':
                return f'/{ros_name(robot.name)}/{ros_name(sensor.name)}', sensor
    return None


def _image_panel(template: dict[str, Any], base: str) -> dict[str, Any]:
    panel = copy.deepcopy(template)
    panel['imageMode'].update(imageTopic=f'{base}/image_raw', calibrationTopic=f'{base}/camera_info')
    return panel
