"""Every option of the simulation node in one table, :data:`OPTIONS`, and what is derived from it.

An option is a node parameter the node declares for every scene (its description is what
``ros2 param describe`` prints), an option of ``scene-sim-ros run`` and argument of
``sim.launch.py`` (the two take the same options, one for one), or both. Derived from the table:

- the ``run`` flags (:func:`add_run_flags`) and the launch arguments (:func:`launch_arguments`);
- what a run or a launch gives the node: :func:`run_parameters` and :func:`run_ros_arguments`
  (``scene-sim-ros run``), :func:`launch_values` and :func:`launch_parameters` (the launch file);
- the node's declarations (:func:`scene_sim_ros.ros.option_parameters.declare_options`, called by
  each part of the node that ``declared_by`` names, see :data:`DECLARERS`);
- ``config/params.yaml`` (:mod:`scene_sim_ros.ros.runtime.params_yaml`).

The publish rates (``publish_rates.<kind>``) are options too; their defaults come from
``PUBLISH_RATES`` (:mod:`.runtime.parameters`), which the caller passes to
:func:`node_options`. Per-scene parameters (``sensors.<entity>.<sensor>.*``,
``controllers.<entity>.<controller>.*``, ``mobile_bases.<entity>.*``) are declared with the
scene, by :mod:`.runtime.parameters` and :mod:`.bridge.mobile_base`.

Pure Python, no rclpy: the command line imports it at start-up, the launch file at launch time.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scene_sim_ros.sim.engines import ENGINES

Value = bool | int | float | str | tuple[str, ...] | tuple[float, ...]
"""A default; arrays are tuples here (the table is immutable) and lists on the node."""

DECLARERS = {
    'node': 'ros/runtime/parameters.py declare_node_parameters, before the scene is loaded',
    'mobile_base': 'ros/bridge/mobile_base.py declare_parameters, with the scene',
    'robot_description': 'ros/bridge/robot_description.py, once the entities are bridged',
    'worlds': 'ros/supervisor/world_services.py, when the supervisor starts',
    'scene_services': 'ros/supervisor/scene_services.py, when the supervisor starts',
    'supervisor_extras': 'ros/supervisor/extras.py, when the supervisor starts',
    'outputs': 'ros/outputs/extension.py, when the outputs extension starts',
}
"""Who declares an option (:attr:`Option.declared_by`) and when; the parameters of an extension
that does not start (the supervisor without simulation_interfaces) do not exist."""


def _as_is(value: Any) -> Any:
    return value


def _text(text: str) -> str:
    return text


def _truthy(text: str) -> bool:
    return text.strip().lower() in ('1', 'true', 'yes', 'on')


def _no_ros_arguments(value: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class CommandLine:
    """How an option is given to ``scene-sim-ros run`` (``--name-with-dashes``) and to
    ``sim.launch.py`` (``name:=text``), and what of it reaches the node.

    A value is None where the option was not given (a launch text that means "off" reads as
    None too); ``run`` then gives the node ``run_default`` unless ``--params-file`` is given,
    which may set it (options given on the command line win over the file). A launch gives
    every argument, from its text or its default, and so always wins over ``params_file``.
    """
    name: str
    launch_help: str
    launch_default: str
    run_help: str | None
    """None: ``run`` takes the option with the scene arguments every scene command has
    (cli/main.py: the SCENE argument, ``--offline``), not from here."""
    run_flag: Mapping[str, Any] = field(default_factory=dict)
    """argparse keywords of the ``run`` flag besides ``help``."""
    run_default: Any = None
    read_launch: Callable[[str], Any] = _text
    """The launch argument's text as a value (None: not given)."""
    sets: str | None = None
    """The node parameter the value sets (None: none)."""
    to_parameter: Callable[[Any], Any] = _as_is
    """The value as that parameter's value (None: the parameter is left alone)."""
    to_ros_arguments: Callable[[Any], list[str]] = _no_ros_arguments
    """What ``run`` puts after ``--ros-args`` for the value (the launch file gives the same to
    its Node action: the namespace, the parameters file)."""

    @property
    def run_flag_name(self) -> str:
        return '--' + self.name.replace('_', '-')


@dataclass(frozen=True)
class InParamsYaml:
    """How an option appears in ``config/params.yaml``: in ``section`` (the file's sections are
    in :mod:`.runtime.params_yaml`), under ``comment``, with ``note`` at the end of its line;
    ``commented_out`` options are shown as a comment (with ``example`` instead of the default
    where given): uncommenting the line sets them."""
    section: str
    comment: str = ''
    note: str = ''
    commented_out: bool = False
    example: Value | None = None


@dataclass(frozen=True)
class Option:
    """One option: a node parameter (``declared_by`` names who declares it, see
    :data:`DECLARERS`; None: no parameter of ours), a command-line option, or both."""
    name: str
    default: Value
    description: str = ''
    declared_by: str | None = 'node'
    read_only: bool = True
    dynamic_typing: bool = False
    """A number that takes integers and doubles alike (``real_time_factor:=0``)."""
    command_line: CommandLine | None = None
    params_yaml: InParamsYaml | None = None

    @property
    def is_parameter(self) -> bool:
        return self.declared_by is not None

    @property
    def is_string_array(self) -> bool:
        return isinstance(self.default, tuple) and all(isinstance(v, str) for v in self.default)

    @property
    def parameter_default(self) -> bool | int | float | str | list[str] | list[float]:
        """The default as the node declares it (arrays as lists)."""
        if not isinstance(self.default, tuple):
            return self.default
        if self.is_string_array:
            return [str(v) for v in self.default]
        return [float(v) for v in self.default]


# --- how command-line values become parameters -------------------------------------------------

def _absolute_path(value: str) -> str | None:
    return str(Path(value).resolve()) if value else None


def _absolute_paths(values: Sequence[str]) -> list[str] | None:
    return [str(Path(v).expanduser().resolve()) for v in values if v] or None


def _folders(text: str) -> list[str]:
    return [part for part in text.split(os.pathsep) if part]


def _port(text: str) -> int | None:
    return None if text.strip().lower() in ('', '0', 'false', 'off') else int(text)


def _namespace_remap(namespace: str) -> list[str]:
    if not namespace:
        return []
    return ['-r', f'__ns:={namespace if namespace.startswith("/") else "/" + namespace}']


def _params_file_argument(path: Path | str | None) -> list[str]:
    return ['--params-file', str(path)] if path else []


def _switch(name: str, launch_help: str, run_help: str) -> CommandLine:
    """An on/off option: ``run --name`` (left out: off), ``name:=true|false``."""
    return CommandLine(name, launch_help, 'false', run_help,
                       run_flag={'action': 'store_true', 'default': None}, run_default=False,
                       read_launch=_truthy, sets=name)


DEFAULT_FORWARD_CONTROLLERS = ('position_controller', 'velocity_controller')
"""The ``forward_controllers`` parameter's default: ``<entity>/<name>/commands`` per robot."""

PUBLISH_RATE_NOTES = {
    'radio': 'receivers: every step (packets are published as they arrive)',
    'led': 'LED state: looked at every step, published when it changes',
    'light': 'light sensors',
}
"""params.yaml's notes on some publish rates (by kind; the rates are ``PUBLISH_RATES``)."""

MOBILE_BASE_COVARIANCE = (0.001, 0.001, 0.001, 0.001, 0.001, 0.01)
"""Default diagonals of the odometry covariances (x y z roll pitch yaw): those of ros2_control's
diff_drive_controller, which an EKF (robot_localization) then weighs against the IMU. The noise
model's own pose variances (``odometry.noise.*``) are added to the pose diagonal."""

SCENE_CAMERA = {'width': 640, 'height': 480, 'fov_y': 45.0, 'near': 0.05, 'far': 50.0}
"""Defaults of ``scene_camera.*``: the image size and view of ``~/scene_camera``."""


def _mobile_base(name: str, default: Value, description: str, **yaml: Any) -> Option:
    """A mobile-base parameter: doubles take integers too."""
    return Option(name, default, description, declared_by='mobile_base',
                  dynamic_typing=isinstance(default, float),
                  params_yaml=InParamsYaml('mobile_bases', **yaml))


# --- the table ---------------------------------------------------------------------------------
# The command-line options come first, in the order of `run --help` and of the launch arguments;
# within a params.yaml section the options appear in the order of this table.

OPTIONS: tuple[Option, ...] = (
    Option('scene', '', 'scene file (.ros2/.rsi2/.ros3, .wbt, Simox/RaiSim .xml, .urdf); empty: '
                        'the bundled default scene',
           command_line=CommandLine(
               'scene', 'scene file (.ros2/.rsi2/.ros3, .wbt, Simox/RaiSim .xml, .urdf); empty for '
                        'the bundled default scene', '', None, sets='scene'),
           params_yaml=InParamsYaml('scene')),
    Option('namespace', '', declared_by=None,
           command_line=CommandLine(
               'namespace', 'ROS namespace for every topic and service of the simulation', '',
               'ROS namespace for every topic and service', run_flag={'default': ''},
               to_ros_arguments=_namespace_remap)),
    Option('use_sim_time', True, declared_by=None,  # rclpy declares it
           command_line=CommandLine(
               'use_sim_time', 'use /clock as time source', 'true',
               'set use_sim_time on the node (default: on)',
               run_flag={'action': argparse.BooleanOptionalAction, 'default': None},
               run_default=True, read_launch=_truthy, sets='use_sim_time')),
    Option('engine', ENGINES[0], "physics engine: 'pybullet' or 'mujoco' (read at start: a running "
                                 'node keeps it, load_world too)',
           command_line=CommandLine(
               'engine', 'physics engine: pybullet or mujoco (empty: the parameter engine, else '
                         'pybullet)', '',
               "physics engine: pybullet (the default) or mujoco (SimRobot Core3's engine; no "
               '--gui)',
               run_flag={'choices': ENGINES, 'default': None}, sets='engine',
               to_parameter=lambda engine: engine or None),
           params_yaml=InParamsYaml(
               'running', 'Physics engine: "pybullet" or "mujoco" (SimRobot Core3\'s engine; no '
                          'gui). Read at start: a running node keeps its engine, also through '
                          'load_world.')),
    Option('gui', False, 'open the PyBullet window',
           command_line=_switch('gui', 'open the PyBullet window', 'open the PyBullet window'),
           params_yaml=InParamsYaml('running', 'Open the PyBullet window.')),
    Option('renderer', '', "camera renderer: 'auto' (gl where an EGL context can be made, else "
                           "tiny), 'gl' or 'tiny'; empty: $SCENE_SIM_ROS_RENDERER or 'auto'",
           command_line=CommandLine(
               'renderer', 'camera renderer: auto, gl or tiny (empty: $SCENE_SIM_ROS_RENDERER or '
                           'auto)', '',
               'camera renderer: gl (OpenGL on headless EGL), tiny (PyBullet TinyRenderer) or auto '
               '(gl where EGL works; the default)',
               run_flag={'choices': ('auto', 'gl', 'tiny'), 'default': None}, sets='renderer',
               to_parameter=lambda renderer: renderer or None),
           params_yaml=InParamsYaml(
               'running', 'Camera renderer: "gl" (OpenGL on headless EGL, Mesa llvmpipe without a '
                          'GPU), "tiny" (PyBullet\'s TinyRenderer, slow on large scenes) or "auto" '
                          '(gl where an EGL context can be made, else tiny with one warning). '
                          'Empty: $SCENE_SIM_ROS_RENDERER, else auto.')),
    Option('real_time_factor', 1.0, 'target sim seconds per wall second: 1.0 paces with the wall '
                                    'clock, 0 runs as fast as possible (a number)',
           read_only=False, dynamic_typing=True,
           command_line=CommandLine(
               'real_time_factor', '1.0 paces with the wall clock, 0 runs as fast as possible',
               '1.0', '1.0 paces with the wall clock, 0 runs as fast as possible',
               run_flag={'type': float, 'default': None, 'metavar': 'X'}, read_launch=float,
               sets='real_time_factor'),
           params_yaml=InParamsYaml(
               'running', 'Sim seconds per wall second: 1.0 paces with the wall clock, 0 runs as '
                          'fast as possible. Can be changed while running (ros2 param set '
                          '/scene_sim real_time_factor 2.0).')),
    Option('params_file', '', declared_by=None,
           command_line=CommandLine(
               'params_file', 'a parameters YAML file (see config/params.yaml)', '',
               'a ROS parameters YAML file (see config/params.yaml)',
               run_flag={'type': Path, 'default': None},
               to_ros_arguments=_params_file_argument)),
    Option('paused', False, 'start (or, set later, switch to) paused', read_only=False,
           command_line=_switch('paused', 'start paused (step with the step_simulation service)',
                                'start paused'),
           params_yaml=InParamsYaml('running', 'Start paused (step with the step_simulation '
                                               'service); can be changed while running.')),
    Option('worlds.paths', (), 'folders of scene files offered as worlds (get_available_worlds, '
                              'load_world; searched recursively) beside the examples and the '
                              'default scene; a load_world uri must lie inside one of them',
           declared_by='worlds',
           command_line=CommandLine(
               'worlds', 'folders of scene files offered as worlds (load_world), separated by ":" '
                         '(parameter worlds.paths)', '',
               'a folder of scene files offered as worlds (get_available_worlds, load_world; '
               'parameter worlds.paths); repeat for more',
               run_flag={'action': 'append', 'default': None, 'metavar': 'DIR'},
               read_launch=_folders, sets='worlds.paths', to_parameter=_absolute_paths),
           params_yaml=InParamsYaml('worlds', commented_out=True, example=('/home/me/worlds',))),
    Option('rviz', False, declared_by=None,
           command_line=CommandLine(
               'rviz', 'start rviz2 with config/scene_sim_ros.rviz', 'false',
               'start rviz2 with the package configuration, where installed',
               run_flag={'action': 'store_true'}, read_launch=_truthy)),
    Option('robot_state_publisher', False, declared_by=None,
           command_line=CommandLine(
               'robot_state_publisher', 'start robot_state_publisher for every robot', 'false',
               'start robot_state_publisher for every robot (needs a ROS 2 distribution); the '
               'simulator then leaves link TF to them',
               run_flag={'action': 'store_true', 'default': None}, read_launch=_truthy,
               sets='publish_link_tf', to_parameter=lambda started: not started)),
    Option('isolate', False, 'keep /clock, /tf and /tf_static in the node namespace (clock, tf, '
                             'tf_static) and prefix every frame with the namespace, so that '
                             'several instances share one ROS domain',
           command_line=_switch(
               'isolate', 'keep /clock, /tf and /tf_static in the namespace and prefix every frame '
                          'with it (several simulations on one ROS domain)',
               'keep /clock, /tf, /tf_static in the namespace and prefix every frame with it, so '
               'that several simulations share one ROS domain'),
           params_yaml=InParamsYaml('instances', commented_out=True)),
    Option('record.path', '', 'rosbag2 MCAP file to record the published topics into (empty: no '
                              'recording)',
           declared_by='outputs',
           command_line=CommandLine(
               'record', 'record every published topic into this rosbag2 MCAP file (empty: no)',
               '', 'record every published topic into a rosbag2 MCAP file (parameters '
                   'record.topics, record.max_size_mb choose topics and size)',
               run_flag={'default': None, 'metavar': 'FILE.mcap'}, sets='record.path',
               to_parameter=_absolute_path),
           params_yaml=InParamsYaml('record', commented_out=True)),
    Option('foxglove.port', 0, 'serve every published topic over the Foxglove WebSocket protocol '
                               'on this port (0: off; scene-sim-ros run --foxglove uses 8765)',
           declared_by='outputs',
           command_line=CommandLine(
               'foxglove', 'serve every topic over the Foxglove WebSocket protocol on this port '
                           '(0: off; 8765 is the usual one)', '0',
               'serve every topic to Foxglove / Lichtblick over WebSocket on PORT (default 8765; '
               'parameter foxglove.address, default 127.0.0.1)',
               run_flag={'nargs': '?', 'type': int, 'const': 8765, 'default': None,
                         'metavar': 'PORT'},
               read_launch=_port, sets='foxglove.port'),
           params_yaml=InParamsYaml('foxglove', commented_out=True, example=8765)),
    Option('offline', False, declared_by=None,
           command_line=CommandLine(
               'offline', 'never download what a Webots world needs (remote PROTOs, meshes, '
                          'textures): only local files, WEBOTS_HOME and the cache', 'false', None,
               read_launch=_truthy, sets='scene_parameters',
               to_parameter=lambda offline: ['webots.download=false'] if offline else None)),

    # -- node parameters without a command-line option ------------------------------------------
    Option('scene_parameters', (), 'template parameters of the scene as NAME=VALUE (RaiSim @@NAME)',
           params_yaml=InParamsYaml('scene', commented_out=True, example=('box_count=5',))),
    Option('strict', False, 'unknown scene elements are errors', params_yaml=InParamsYaml('scene')),
    Option('seed', 0, 'seed of the sensor noise',
           params_yaml=InParamsYaml('running', 'Seed of the sensor noise (noise is off unless a '
                                               'sensor defines it).')),
    Option('max_steps_per_call', 1_000_000_000,
           'most steps one step_simulation call may request (longer runs: the simulate_steps '
           'action, with feedback and cancel); a running call ends when the simulation state is '
           'set',
           params_yaml=InParamsYaml(
               'running', 'Most steps one step_simulation call may request (longer runs: the '
                          'simulate_steps action, with feedback and cancel).',
               commented_out=True)),
    Option('tf_rate', 0.0, '/tf publish rate in Hz of sim time (0: every step) (a number)',
           dynamic_typing=True,
           params_yaml=InParamsYaml('rates', '/tf rate (Hz of sim time, 0: every step). '
                                             '/tf_static is published once (transient-local).')),
    Option('world_frame', 'world', 'the fixed frame of /tf', params_yaml=InParamsYaml('frames')),
    Option('perfect_localization', False,
           'publish map_frame -> world_frame (identity, /tf_static), so that map -> '
           '<entity>/odom is the ground truth (Nav2 without AMCL/SLAM)',
           params_yaml=InParamsYaml(
               'frames', 'Nav2 without AMCL/SLAM: publish map_frame -> world_frame (identity, '
                         '/tf_static), so that map -> <entity>/odom is the ground truth. (With '
                         'AMCL/SLAM leave it false: the node hands world -> <entity>/odom over as '
                         'soon as another node publishes a parent of the odom frame.)')),
    Option('map_frame', 'map', 'the map frame of perfect_localization',
           params_yaml=InParamsYaml('frames')),
    Option('frame_prefix_entities', True, 'prefix frames with the entity name (robot1/Head)',
           params_yaml=InParamsYaml('frames')),
    Option('publish_link_tf', True,
           'publish link frames on /tf; false leaves them to robot_state_publisher (the root and '
           'sensor frames are still published)',
           params_yaml=InParamsYaml(
               'frames', 'false: leave link frames to robot_state_publisher (fed with '
                         '<entity>/robot_description and <entity>/joint_states); world -> root and '
                         'the sensor frames are still published. scene-sim-ros run '
                         '--robot-state-publisher sets it.')),
    Option('robot_description_entity', '',
           'robot whose URDF and joint states are also published as robot_description and '
           'joint_states in the node namespace (empty: the only robot of the scene, none when '
           'there are several)',
           declared_by='robot_description',
           params_yaml=InParamsYaml(
               'frames', 'The robot whose URDF and joint states are also published as '
                         'robot_description and joint_states in the node namespace (MoveIt, '
                         'robot_state_publisher); empty: the only robot of the scene, none when '
                         'there are several.', commented_out=True, example='robot1')),
    Option('frame_prefix', '', 'prefix of every frame id (empty: the namespace when isolate is '
                               'set, else none)',
           params_yaml=InParamsYaml('instances', commented_out=True, example='sim_a/')),
    Option('forward_controllers', DEFAULT_FORWARD_CONTROLLERS,
           'forward-command controllers per robot: <entity>/<name>/commands '
           '(std_msgs/Float64MultiArray); the interface follows the name prefix '
           '(position/velocity/effort) unless set',
           params_yaml=InParamsYaml('controllers')),

    # -- mobile bases (ros/bridge/mobile_base.py) -------------------------------------------------
    _mobile_base('odometry.publish', True, 'odometry (<entity>/odom, TF world -> <entity>/odom -> '
                                           'root) for every free-moving robot'),
    _mobile_base('odometry.publish_tf', True,
                 'publish odom -> base on /tf (false: leave it to an EKF such as '
                 'robot_localization; world -> odom stays); mobile_bases.<entity>.publish_tf '
                 'overrides it per robot',
                 comment='false: odom -> base is left to an EKF (robot_localization); world -> '
                         'odom stays. mobile_bases.<entity>.publish_tf overrides it per robot.'),
    _mobile_base('odometry.rate', 50.0, 'Hz of sim time of <entity>/odom (0: every step); the odom '
                                        'TF follows tf_rate',
                 note='Hz of sim time of <entity>/odom (the TF follows tf_rate)'),
    _mobile_base('odometry.pose_covariance_diagonal', MOBILE_BASE_COVARIANCE,
                 "variances of x y z roll pitch yaw (m^2, rad^2) added to the noise model's in "
                 "<entity>/odom (diff_drive_controller's defaults)",
                 comment='Covariance diagonals of <entity>/odom (x y z roll pitch yaw; m^2, rad^2 '
                         "and (m/s)^2, (rad/s)^2), diff_drive_controller's defaults; the noise "
                         "model's variances are added to the pose's x, y and yaw."),
    _mobile_base('odometry.twist_covariance_diagonal', MOBILE_BASE_COVARIANCE,
                 'variances of vx vy vz wx wy wz ((m/s)^2, (rad/s)^2) in <entity>/odom'),
    _mobile_base('odometry.noise.linear', 0.0, 'random walk of the travelled distance, m per '
                                               'sqrt(m) (0: ground truth)',
                 note='random walk of the travelled distance, m per sqrt(m)'),
    _mobile_base('odometry.noise.angular', 0.0, 'random walk of the heading, rad per sqrt(m + rad) '
                                                'of motion',
                 note='random walk of the heading, rad per sqrt(m + rad) of motion'),
    _mobile_base('odometry.drift.linear', 0.0, 'scale error of the odometry distance (0.02: 2 % '
                                               'long)',
                 note='scale error of the distance (0.02: reads 2 % long)'),
    _mobile_base('odometry.drift.angular', 0.0, 'heading drift of the odometry, rad per metre '
                                                'travelled',
                 note='heading drift, rad per metre travelled'),
    _mobile_base('ground_truth.rate', 50.0, 'Hz of sim time of <entity>/ground_truth '
                                            '(nav_msgs/Odometry in the world frame, published while '
                                            'subscribed; 0: every step)',
                 comment="<entity>/ground_truth (nav_msgs/Odometry in the world frame, twist in the "
                         "base frame, as Gazebo's OdometryPublisher): Hz of sim time, published "
                         'while subscribed (0: every step).'),
    _mobile_base('cmd_vel_stamped', True, '<entity>/cmd_vel is geometry_msgs/TwistStamped (Kilted+ '
                                          'Nav2 default); false: geometry_msgs/Twist (Jazzy)',
                 comment='<entity>/cmd_vel for robots with a drive: geometry_msgs/TwistStamped (Nav2 '
                         'Kilted+ default) or, false, geometry_msgs/Twist (Nav2 Jazzy: '
                         'enable_stamped_cmd_vel false).'),
    _mobile_base('cmd_vel_timeout', 0.5, 'seconds of sim time after the last cmd_vel until the base '
                                         'stops (0: never); older stamps are rejected',
                 comment='Seconds of sim time after the last cmd_vel until the base brakes to a stop '
                         '(0: never); stamped commands older than this are rejected (a zero stamp '
                         'means "now"). NaN/Inf commands are rejected too; both are counted on '
                         '/scene_sim/rejected_commands.'),
    _mobile_base('mobile_base_limits.linear_velocity', 0.0, 'largest commanded speed, m/s (0: '
                                                            'unlimited; the wheel motors limit it '
                                                            'too)',
                 comment='Limits of the commanded twist (0: unlimited; the wheel motors limit the '
                         'speed anyway, wheel speeds are scaled down together so that the '
                         'curvature is kept).', note='m/s'),
    _mobile_base('mobile_base_limits.angular_velocity', 0.0, 'largest commanded turn rate, rad/s '
                                                             '(0: unlimited)', note='rad/s'),
    _mobile_base('mobile_base_limits.linear_acceleration', 0.0, 'm/s^2 (0: unlimited)',
                 note='m/s^2'),
    _mobile_base('mobile_base_limits.angular_acceleration', 0.0, 'rad/s^2 (0: unlimited)',
                 note='rad/s^2'),

    # -- the supervisor (ros/supervisor/) ----------------------------------------------------------
    Option('named_poses', '', "YAML file of named poses (get_named_poses) beside each entity's "
                              'start pose; format: docs/supervisor.md',
           declared_by='scene_services',
           params_yaml=InParamsYaml(
               'worlds', "Named poses (get_named_poses) beside each entity's start pose: a YAML "
                         'file (format: docs/supervisor.md), e.g.',
               commented_out=True, example='/home/me/poses.yaml')),
    Option('supervisor_topics', (), 'entities that get <entity>/center_of_mass and '
                                    '<entity>/contacts (default: none)',
           declared_by='supervisor_extras',
           params_yaml=InParamsYaml('supervisor', commented_out=True, example=('rover', 'ball'))),
    Option('supervisor_rate', 30.0, 'Hz of sim time of <entity>/center_of_mass and '
                                    '<entity>/contacts',
           declared_by='supervisor_extras',
           params_yaml=InParamsYaml('supervisor', commented_out=True,
                                    note='Hz of sim time of those two topics')),
    Option('wrench_duration', 0.0, 'seconds of sim time that ~/apply_wrench acts (0: one step)',
           declared_by='supervisor_extras', read_only=False,
           params_yaml=InParamsYaml('supervisor', 'Seconds of sim time that ~/apply_wrench acts (0: '
                                                  'one step); can be changed while running.',
                                    commented_out=True)),
    *(Option(f'scene_camera.{key}', value, f'~/scene_camera {key}',
             declared_by='supervisor_extras',
             params_yaml=InParamsYaml(
                 'supervisor', 'Image size (pixels), vertical field of view (degrees) and clipping '
                               'distances (m) of ~/scene_camera/image_raw.' if key == 'width' else '',
                 commented_out=True))
      for key, value in SCENE_CAMERA.items()),

    # -- recording and the Foxglove live view (ros/outputs/) --------------------------------------
    Option('record.topics', (), 'globs of the topics to record (e.g. /rover/*); empty: every '
                                'published topic',
           declared_by='outputs',
           params_yaml=InParamsYaml('record', commented_out=True,
                                    example=('/rover/*', '/tf', '/tf_static', '/clock'))),
    Option('record.max_size_mb', 0.0, 'end the recording once the file has this size in MiB (0: no '
                                      'limit)',
           declared_by='outputs', params_yaml=InParamsYaml('record', commented_out=True)),
    Option('foxglove.address', '127.0.0.1', 'address the Foxglove server listens on (0.0.0.0: every '
                                            'interface)',
           declared_by='outputs', params_yaml=InParamsYaml('foxglove', commented_out=True)),
)


def publish_rate_options(publish_rates: Mapping[str, float]) -> tuple[Option, ...]:
    """The ``publish_rates.<kind>`` options of ``PUBLISH_RATES`` (kind -> Hz of sim time)."""
    return tuple(
        Option(f'publish_rates.{kind}', rate,
               f'{kind} publish rate in Hz of sim time (0: every step) (a number)',
               dynamic_typing=True,
               params_yaml=InParamsYaml('rates', note=PUBLISH_RATE_NOTES.get(kind, '')))
        for kind, rate in publish_rates.items())


def node_options(publish_rates: Mapping[str, float]) -> tuple[Option, ...]:
    """Every option: :data:`OPTIONS` with the publish rates of ``publish_rates`` before
    ``tf_rate`` (their neighbour in params.yaml)."""
    at = next(i for i, entry in enumerate(OPTIONS) if entry.name == 'tf_rate')
    return (*OPTIONS[:at], *publish_rate_options(publish_rates), *OPTIONS[at:])


def option(name: str) -> Option:
    """The option called ``name`` (not a publish rate)."""
    for entry in OPTIONS:
        if entry.name == name:
            return entry
    raise KeyError(name)


def declared_by(declarer: str, options: Iterable[Option] = OPTIONS) -> list[Option]:
    """The options ``declarer`` declares (a key of :data:`DECLARERS`)."""
    if declarer not in DECLARERS:
        raise KeyError(f'{declarer!r} is none of {sorted(DECLARERS)}')
    return [entry for entry in options if entry.declared_by == declarer]


def _command_lines() -> list[CommandLine]:
    return [entry.command_line for entry in OPTIONS if entry.command_line is not None]


def _run_flags() -> list[CommandLine]:
    return [line for line in _command_lines() if line.run_help is not None]


def _set_parameter(parameters: dict[str, Any], line: CommandLine, value: Any) -> None:
    """The node parameter ``line`` sets, from ``value`` (None: not given; nothing to set)."""
    if value is None or line.sets is None:
        return
    converted = line.to_parameter(value)
    if converted is not None:
        parameters[line.sets] = converted


# --- scene-sim-ros run -------------------------------------------------------------------------

def add_run_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``scene-sim-ros run`` (its scene arguments are added by the CLI)."""
    for line in _run_flags():
        parser.add_argument(line.run_flag_name, help=line.run_help, **line.run_flag)


def run_values(args: argparse.Namespace) -> dict[str, Any]:
    """The values of the ``run`` flags that the table derives (None: not given)."""
    return {line.name: getattr(args, line.name) for line in _run_flags()}


def run_parameters(values: Mapping[str, Any], *, params_file: bool) -> dict[str, Any]:
    """The node parameters of ``run``'s flags: those given, and the defaults where no parameters
    file (``params_file``) could set them."""
    parameters: dict[str, Any] = {}
    for line in _run_flags():
        value = values.get(line.name)
        if value is None and not params_file:
            value = line.run_default
        _set_parameter(parameters, line, value)
    return parameters


def run_ros_arguments(values: Mapping[str, Any]) -> list[str]:
    """What ``run``'s flags put after ``--ros-args`` (the namespace, the parameters file)."""
    return [argument for line in _run_flags() if values.get(line.name) is not None
            for argument in line.to_ros_arguments(values[line.name])]


def run_flag_setting(parameter: str) -> CommandLine | None:
    """The ``run`` flag that sets node parameter ``parameter`` to its value as given (the answer
    to ROS's ``-p NAME:=VALUE`` on ``run``), if there is one."""
    for entry in OPTIONS:
        line = entry.command_line
        if line is not None and line.run_help is not None and line.sets == entry.name == parameter \
                and line.to_parameter is _as_is:
            return line
    return None


# --- sim.launch.py -----------------------------------------------------------------------------

def launch_arguments() -> list[tuple[str, str, str]]:
    """(name, default, description) of each launch argument of ``sim.launch.py``."""
    return [(line.name, line.launch_default, line.launch_help) for line in _command_lines()]


def launch_values(texts: Mapping[str, str]) -> dict[str, Any]:
    """The launch arguments' texts (every one, given or default) as values."""
    return {line.name: line.read_launch(texts[line.name]) for line in _command_lines()}


def launch_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The node parameters of the launch arguments' values (:func:`launch_values`)."""
    parameters: dict[str, Any] = {}
    for line in _command_lines():
        _set_parameter(parameters, line, values.get(line.name))
    return parameters
