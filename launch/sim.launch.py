"""Start the scene_sim_ros simulation node (and optionally RViz and robot_state_publisher).

    ros2 launch scene_sim_ros sim.launch.py scene:=/path/to/Game.ros2 real_time_factor:=0

The arguments match ``scene-sim-ros run`` options one for one: ``scene`` (empty: the bundled
default scene), ``namespace``, ``use_sim_time``, ``gui``, ``real_time_factor``, ``paused``,
``params_file``, ``rviz``, and ``robot_state_publisher`` (one per robot, fed with its URDF;
the simulator then leaves link TF to them).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = 'scene_sim_ros'

ARGUMENTS = (
    ('scene', '', 'scene file (.ros2/.rsi2/.ros3, .wbt, Simox/RaiSim .xml, .urdf); '
                  'empty for the bundled default scene'),
    ('namespace', '', 'ROS namespace for every topic and service of the simulation'),
    ('use_sim_time', 'true', 'use /clock as time source'),
    ('gui', 'false', 'open the PyBullet window'),
    ('real_time_factor', '1.0', '1.0 paces with the wall clock, 0 runs as fast as possible'),
    ('paused', 'false', 'start paused (step with the step_simulation service)'),
    ('params_file', '', 'a parameters YAML file (see config/params.yaml)'),
    ('rviz', 'false', 'start rviz2 with config/scene_sim_ros.rviz'),
    ('robot_state_publisher', 'false', 'start robot_state_publisher for every robot'),
)


def _truthy(text: str) -> bool:
    return text.strip().lower() in ('1', 'true', 'yes', 'on')


def _simulation_nodes(context):
    value = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    rsp = _truthy(value['robot_state_publisher'])
    parameters = [{
        'scene': value['scene'],
        'use_sim_time': _truthy(value['use_sim_time']),
        'gui': _truthy(value['gui']),
        'real_time_factor': float(value['real_time_factor']),
        'paused': _truthy(value['paused']),
        'publish_link_tf': not rsp,
    }]
    if value['params_file']:
        parameters.insert(0, value['params_file'])
    nodes = [Node(package=PACKAGE, executable='sim_node', name='scene_sim',
                  namespace=value['namespace'], parameters=parameters, output='screen')]
    if rsp:
        nodes += _robot_state_publishers(value)
    return nodes


def _robot_state_publishers(value):
    # The scene loaders and the URDF export are pure Python: no simulation is started here.
    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.resources import default_scene_path
    from scene_sim_ros.sim.urdf import entity_to_urdf

    scene = load_scene(value['scene'] or default_scene_path())
    namespace = value['namespace'].strip('/')
    nodes = []
    for entity in scene.entities:
        if entity.kind != 'robot':
            continue
        nodes.append(Node(
            package='robot_state_publisher', executable='robot_state_publisher',
            namespace='/'.join(p for p in (namespace, entity.name) if p),
            parameters=[{'robot_description': entity_to_urdf(entity),
                         'frame_prefix': f'{entity.name}/',
                         'use_sim_time': _truthy(value['use_sim_time'])}],
            output='screen'))
    return nodes


def generate_launch_description():
    rviz_config = os.path.join(get_package_share_directory(PACKAGE), 'config',
                               'scene_sim_ros.rviz')
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=description)
          for name, default, description in ARGUMENTS),
        OpaqueFunction(function=_simulation_nodes),
        Node(package='rviz2', executable='rviz2', arguments=['-d', rviz_config],
             parameters=[{'use_sim_time': LaunchConfiguration('use_sim_time')}],
             condition=IfCondition(LaunchConfiguration('rviz')), output='screen'),
    ])
