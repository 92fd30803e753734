"""Start the scene_sim_ros simulation node (and optionally RViz and robot_state_publisher).

    ros2 launch scene_sim_ros sim.launch.py scene:=/path/to/scene.ros2 real_time_factor:=0
    ros2 launch path/to/sim.launch.py                   # by path works too

The arguments match ``scene-sim-ros run`` options one for one; both come from the option table
(``scene_sim_ros/ros/options.py``: :func:`launch_arguments`, and :func:`launch_parameters` for
what the node gets): ``scene`` (empty: the bundled default scene), ``namespace``,
``use_sim_time``, ``engine`` (pybullet or mujoco; empty: the parameter, else pybullet), ``gui``,
``renderer`` (camera renderer: auto, gl or tiny), ``real_time_factor``, ``params_file``,
``paused``, ``worlds``, ``rviz``,
``robot_state_publisher`` (one per robot, fed with its URDF; the simulator then leaves link TF to
them), ``isolate`` (clock and TF in the namespace, frames prefixed with it: several simulations
on one ROS domain), ``record`` (a rosbag2 MCAP file to record into), ``foxglove`` (the port of
the Foxglove live view; 0: off) and ``offline`` (no downloads for Webots worlds).

``scene`` takes a file or an example name, as ``scene-sim-ros run`` does; one that is neither
stops the launch before anything starts, with exit code 2 (the command line's code for a bad
argument). Optional packages (rviz2, robot_state_publisher) are looked up before anything starts:
a missing one stops the launch with a message saying which and how to install it, so no
simulation is left running on its own. The simulation ending ends the launch; ending with an
error makes ``ros2 launch`` exit with 1 (launch's code for a failed launch) once every other
process of it has stopped.
"""

import os
import shutil
import signal
import sys

from launch.actions import DeclareLaunchArgument, OpaqueFunction, Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from scene_sim_ros.ros.options import launch_arguments, launch_parameters, launch_values

PACKAGE = 'scene_sim_ros'
HERE = os.path.dirname(os.path.abspath(__file__))


class MissingPackage(RuntimeError):
    pass


def _installed(package: str) -> bool:
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix
    try:
        get_package_prefix(package)
    except (PackageNotFoundError, OSError):  # OSError: AMENT_PREFIX_PATH not set
        return False
    return True


def _require(packages):
    missing = [p for p in packages if not _installed(p)]
    if missing:
        names = ' '.join(f'ros-$ROS_DISTRO-{p.replace("_", "-")}' for p in missing)
        raise MissingPackage(
            f'{", ".join(missing)} not installed (needed by the launch arguments given); '
            f'install with: sudo apt install {names}, or leave those arguments false')


def _scene_or_exit(value: str) -> str:
    """``value`` as the node will take it (a file, or an example name resolved to its file);
    neither: the reason on stderr and exit code 2, before any process starts."""
    if not value:
        return value
    from scene_sim_ros.errors import SceneSimError
    from scene_sim_ros.resources import resolve_scene
    try:
        resolved = resolve_scene(value)
    except SceneSimError as err:
        print(f'[ERROR] [sim.launch.py]: scene:={value}: {err}', file=sys.stderr)
        raise SystemExit(2) from None
    if not os.path.isfile(resolved):
        print(f'[ERROR] [sim.launch.py]: scene:={value}: no such file, and no example of that '
              'name (scene-sim-ros examples lists them)', file=sys.stderr)
        raise SystemExit(2)
    return resolved


def _end_launch(event, context):
    """The simulation ended: end the launch; with an error, fail it (exit code 1)."""
    code = event.returncode
    if code not in (0, None, -signal.SIGINT, -signal.SIGTERM):
        raise RuntimeError(f'the simulation exited with code {code}')
    return [Shutdown(reason='the simulation ended')]


def _sim_node_action(**kwargs):
    """Our node by package where the ament index knows it, else the ``sim_node`` beside this
    Python or on PATH (a launch file run by path from a source checkout or plain venv)."""
    if _installed(PACKAGE):
        return Node(package=PACKAGE, executable='sim_node', **kwargs)
    beside = os.path.join(os.path.dirname(sys.executable), 'sim_node')
    executable = beside if os.access(beside, os.X_OK) else shutil.which('sim_node')
    if executable is None:
        raise MissingPackage(f'{PACKAGE} is not installed: no sim_node in the ament index '
                             '(AMENT_PREFIX_PATH), beside this Python or on PATH')
    return Node(executable=executable, **kwargs)


def _launch_setup(context):
    texts = {name: LaunchConfiguration(name).perform(context) for name, _, _ in launch_arguments()}
    texts['scene'] = _scene_or_exit(texts['scene'])
    value = launch_values(texts)
    rsp, rviz = value['robot_state_publisher'], value['rviz']
    _require([p for p, wanted in (('robot_state_publisher', rsp), ('rviz2', rviz)) if wanted])
    parameters = [launch_parameters(value)]
    if value['params_file']:
        parameters.insert(0, value['params_file'])
    actions = [_sim_node_action(name='scene_sim', namespace=value['namespace'],
                                parameters=parameters, output='screen',
                                on_exit=_end_launch)]
    if rsp:
        actions += _robot_state_publishers(value)
    if rviz:
        from scene_sim_ros.ros.bridge.names import isolation_remappings
        actions.append(Node(
            package='rviz2', executable='rviz2', output='screen',
            arguments=['-d', os.path.join(HERE, '..', 'config', 'scene_sim_ros.rviz')],
            remappings=isolation_remappings(value['namespace'], value['isolate']),
            parameters=[{'use_sim_time': value['use_sim_time']}]))
    return actions


def _robot_state_publishers(value):
    from scene_sim_ros.ros.robot_state_publishers import robot_state_publishers
    return [
        Node(package='robot_state_publisher', executable='robot_state_publisher',
             namespace=publisher.namespace, remappings=list(publisher.remappings),
             parameters=[publisher.parameters()], output='screen')
        for publisher in robot_state_publishers(value['scene'], namespace=value['namespace'],
                                                isolate=value['isolate'],
                                                use_sim_time=value['use_sim_time'])]


def generate_launch_description():
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=default, description=description)
          for name, default, description in launch_arguments()),
        OpaqueFunction(function=_launch_setup),
    ])
