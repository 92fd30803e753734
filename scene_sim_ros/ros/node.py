"""The simulation node: loads a scene, runs it on a physics thread, bridges it to ROS 2.

    scene-sim-ros run Game.ros2                       # the CLI calls run()
    ros2 run scene_sim_ros sim_node --ros-args -p scene:=Game.ros2

Threads: the executor spins on the main thread (subscriptions, parameter and supervisor
services); the :class:`~.stepper.Stepper` owns the simulation on its own thread, applies queued
commands at step boundaries, steps, and publishes (``/clock``, joint states, sensors, ``/tf``)
with the sim time of the step that produced the data. DDS errors in ``publish()`` are caught and
counted (``~/publish_errors``); rejected commands are counted too (``~/rejected_commands``), both
``std_msgs/UInt64``, transient-local.

Parameters (defaults and comments in ``config/params.yaml``): ``scene``, ``scene_parameters``,
``strict``, ``real_time_factor``, ``paused``, ``gui``, ``seed``, ``renderer``,
``publish_rates.<type>``,
``tf_rate``, ``world_frame``, ``frame_prefix_entities``, ``publish_link_tf``,
``forward_controllers``, ``controllers.<entity>.<controller>.joints`` / ``.interface``,
``sensors.<entity>.<sensor>.rate`` / ``.topic``. ``real_time_factor`` and ``paused`` can be
changed while running.

Extensions (the supervisor services) hook in through :data:`EXTENSIONS`: modules with
``init(node)`` (and optionally ``shutdown(node)``), loaded when present. They use
``node.stepper`` (``submit``, ``pause``, ``play``, ``request_steps``), ``node.add_entity`` /
``node.remove_entity`` (on the physics thread) and ``node.sim``.
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import rclpy
from rcl_interfaces.msg import ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock
from std_msgs.msg import UInt64

from ..errors import SceneLoadError, SceneSimError
from ..scene import Entity, Scene
from . import qos, trajectory_action
from .bridge import EntityBridge, check_controller_joints, ros_name
from .commands import INTERFACES, default_interface
from .conversions import set_stamp
from .mobile_base import declare_parameters as declare_mobile_base_parameters
from .names import DEFAULT_FORWARD_CONTROLLERS, instance_frame_prefix, shared_topic
from .robot_description import publish_robot_description
from .stepper import Stepper
from .tf import DynamicTransforms, EntityFrames, FrameNames, StaticTransforms, entity_frames, set_transform

NODE_NAME = 'scene_sim'

EXTENSIONS = ('scene_sim_ros.ros.supervisor', 'scene_sim_ros.ros.outputs')
"""Modules loaded when importable; each gets ``init(node)`` after the node is built."""

PUBLISH_RATES = {  # Hz in sim time, 0 = after every step (config/params.yaml documents them)
    'camera': 30.0,
    'depth': 30.0,
    'segmentation': 10.0,
    'imu': 0.0,
    'range': 0.0,
    'joint_states': 0.0,
    'collision': 0.0,
    'user_input': 10.0,
    'gps': 0.0,
}

PAUSED_STATE_PERIOD = 1.0
"""Wall seconds between two publications of TF and joint states while paused (visualisers then
show the frozen world; /clock is repeated more often, see stepper.PAUSED_PERIOD)."""

NUMBER_TYPES = (int, float)
"""Numeric parameters take integers too (``real_time_factor:=0`` on a command line is one)."""

NEIGHBOUR_CHECK_DELAY = 2.0
"""Wall seconds between two looks for another simulation on the domain (discovery takes longer
on a loaded machine, so it looks :data:`NEIGHBOUR_CHECKS` times)."""

NEIGHBOUR_CHECKS = 5

REJECTION_LOG_PERIOD = 2.0
"""Wall seconds between two warnings about rejected commands from one topic."""


@dataclass(frozen=True)
class SensorOverride:
    rate: float = -1.0  # < 0: the sensor type's rate
    topic: str = ''  # '': <entity>/<sensor>


class RateLimiter:
    """``due(t)`` is true at most ``rate`` times per sim second (every call when rate is 0)."""

    def __init__(self, rate: float, step_length: float):
        self.period = 1.0 / rate if rate > 0.0 else 0.0
        self._tolerance = 0.5 * step_length
        self._next = 0.0

    def due(self, t: float) -> bool:
        if self.period == 0.0:
            return True
        if t + self._tolerance < self._next:
            return False
        self._next += self.period
        if self._next <= t:
            self._next = t + self.period
        return True


def _descriptor(text: str, kind: int | None = None, *, read_only: bool = False
                ) -> ParameterDescriptor:
    descriptor = ParameterDescriptor(description=text, read_only=read_only)
    if kind is not None:
        descriptor.type = kind
    return descriptor


def _number_descriptor(text: str, *, read_only: bool = False) -> ParameterDescriptor:
    """A double parameter that also takes integers (checked by :func:`number_error`)."""
    return ParameterDescriptor(description=text + ' (a number)', read_only=read_only,
                               dynamic_typing=True)


def number_error(name: str, value: Any) -> str | None:
    """Why ``value`` is no value for the numeric parameter ``name`` (None: it is one)."""
    if isinstance(value, NUMBER_TYPES) and not isinstance(value, bool):
        return None
    kind = Parameter.Type.from_parameter_value(value).name.lower()
    return f'parameter {name!r} expects a number (double or integer), got {kind} {value!r}'


class SimNode(Node):
    """The node. Build it, call :meth:`start`, spin an executor; :meth:`stop` when done."""

    # set by the hook modules once they have something to keep (absent before)
    robot_description_publishers: tuple[Any, Any]  # by robot_description
    _trajectory_action_servers: dict[str, trajectory_action.FollowJointTrajectoryServer]
    _trajectory_action_warned: bool

    def __init__(self, scene: str | Path | None = None, *,
                 parameter_overrides: Sequence[Parameter] = (), **node_kwargs: Any):
        super().__init__(NODE_NAME, parameter_overrides=list(parameter_overrides), **node_kwargs)
        self._own_clock_source()
        self._declare_parameters()
        self.scene_path = self._scene_path(scene)
        self.scene: Scene = self._load_scene()
        self._declare_entity_parameters(self.scene.entities)
        declare_mobile_base_parameters(self, self.scene.entities)
        self._check_numbers()
        self.isolated = bool(self._param('isolate'))
        prefix = instance_frame_prefix(self.get_namespace(), self.isolated,
                                       self._param('frame_prefix'))
        self.frames = FrameNames(prefix + self._param('world_frame'),
                                 self._param('frame_prefix_entities'), prefix)
        self.publish_link_tf = bool(self._param('publish_link_tf'))
        self.forward_controllers = [c for c in self._param('forward_controllers') or [] if c]
        self.rejected_commands = 0
        self.publish_errors = 0
        self._count_lock = threading.Lock()
        self._last_warning: dict[str, float] = {}
        self._rejected_publisher = self.create_publisher(UInt64, '~/rejected_commands',
                                                         qos.LATCHED)
        self._errors_publisher = self.create_publisher(UInt64, '~/publish_errors', qos.LATCHED)
        self._publish_counter(self._rejected_publisher, 0)
        self._publish_counter(self._errors_publisher, 0)

        from ..sim.simulation import Simulation
        self.get_logger().info('building the PyBullet world ...')
        started = time.perf_counter()
        self.sim = Simulation(self.scene, gui=bool(self._param('gui')),
                              seed=int(self._param('seed')),
                              renderer=str(self._param('renderer')) or None)
        self.get_logger().info(f'world built in {time.perf_counter() - started:.1f} s')
        for warning in self.sim.warnings:
            self.get_logger().warning(warning)
        self.stepper = Stepper(self.sim, self._after_step,
                               real_time_factor=float(self._param('real_time_factor')),
                               paused=bool(self._param('paused')), on_error=self._physics_error,
                               while_paused=self._while_paused)
        self.stepper.add_before_step(self._before_step)
        self._last_paused_state = -1e9
        self._clock_publisher = self.create_publisher(
            Clock, shared_topic('/clock', self.isolated), qos.CLOCK)
        self._clock_msg = Clock()  # (Node._clock is rclpy's own)
        self.dynamic_tf = DynamicTransforms(self, shared_topic('/tf', self.isolated))
        self.static_tf = StaticTransforms(self, shared_topic('/tf_static', self.isolated))
        self._tf_rate = RateLimiter(float(self._param('tf_rate')), self.sim.step_length)
        self.bridges: dict[str, EntityBridge] = {}
        self._bridge_list: list[EntityBridge] = []
        for entity in self.scene.entities:
            self.add_entity(entity)
        self._publish_descriptions(self._bridge_list)
        publish_robot_description(self)  # robot_description, joint_states in the namespace
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.extensions = self._load_extensions()
        self.get_logger().info(
            f'{self.scene_path.name}: {len(self.scene.entities)} entities, step '
            f'{self.sim.step_length * 1000:g} ms, real-time factor '
            f'{self.stepper.real_time_factor:g}{", paused" if self.stepper.paused else ""}')
        self._log_summary()

    def _log_summary(self) -> None:
        """One screen: what is simulated and where it appears on ROS."""
        from ..scene.summary import entity_lines
        from .interface_list import interface_rows, supervisor_rows
        namespace = self.get_namespace()
        rows = interface_rows(self.scene, namespace)
        robots = [e.name for e in self.scene.entities if e.kind == 'robot']
        lines = entity_lines(self.scene)  # the loader's warnings were logged one by one
        lines.append(f'  topics: {sum(1 for r in rows if r[0] == "pub")} published, '
                     f'{sum(1 for r in rows if r[0] == "sub")} subscribed, under '
                     + ', '.join(f'{namespace.rstrip("/")}/{name}/' for name in robots[:6])
                     + (' ...' if len(robots) > 6 else ''))
        services = [name for kind, name, _ in supervisor_rows(namespace) if kind == 'srv']
        for entity in self.scene.entities:
            if entity.kind == 'robot' and entity.movable_joints:
                for controller in self.forward_controllers:
                    joints = ', '.join(self.controller_joints(entity, controller))
                    lines.append(f'  {ros_name(entity.name)}/{controller}/commands: '
                                 f'data = [{joints}]')
        lines.append(f'  services: {", ".join(n.rsplit("/", 1)[-1] for n in services)}')
        lines.append(f'  full list: scene-sim-ros topics {self.scene_path}'
                     + (f' --namespace {namespace}' if namespace != '/' else ''))
        self.get_logger().info('\n'.join(lines))

    def _own_clock_source(self) -> None:
        """With ``use_sim_time`` rclpy would subscribe this node to its own ``/clock``: every step
        would wake the executor thread, whose Python work then fights the physics thread for
        the GIL (measured on Game.ros2: RTF 0.69 -> 0.26). The node knows the sim time first
        hand, so its time source gets it from the physics thread instead (:meth:`_after_step`)."""
        source = self._time_source
        # rclpy has no option for this: replace the method on this one instance
        source._subscribe_to_clock_topic = lambda: None  # type: ignore[method-assign]  # noqa: SLF001
        if source._clock_sub is not None:  # noqa: SLF001
            self.destroy_subscription(source._clock_sub)  # noqa: SLF001
            source._clock_sub = None  # noqa: SLF001

    # --- parameters -------------------------------------------------------------------------

    def _declare_parameters(self) -> None:
        p = ParameterType
        declare = self.declare_parameter
        declare('scene', '', _descriptor(
            'scene file (.ros2/.rsi2/.ros3, .wbt, Simox/RaiSim .xml, .urdf); empty: the '
            'bundled default scene', read_only=True))
        self.declare_string_array('scene_parameters', [], _descriptor(
            'template parameters of the scene as NAME=VALUE (RaiSim @@NAME)', read_only=True))
        declare('strict', False, _descriptor('unknown scene elements are errors',
                                             read_only=True))
        declare('real_time_factor', 1.0, _number_descriptor(
            'target sim seconds per wall second: 1.0 paces with the wall clock, 0 runs as fast '
            'as possible'))
        declare('paused', False, _descriptor('start (or, set later, switch to) paused'))
        declare('gui', False, _descriptor('open the PyBullet window', read_only=True))
        declare('seed', 0, _descriptor('seed of the sensor noise', read_only=True))
        declare('renderer', '', _descriptor(
            "camera renderer: 'auto' (gl where an EGL context can be made, else tiny), 'gl' "
            "or 'tiny'; empty: $SCENE_SIM_ROS_RENDERER or 'auto'", read_only=True))
        for kind, rate in PUBLISH_RATES.items():
            declare(f'publish_rates.{kind}', rate, _number_descriptor(
                f'{kind} publish rate in Hz of sim time (0: every step)', read_only=True))
        declare('tf_rate', 0.0, _number_descriptor(
            '/tf publish rate in Hz of sim time (0: every step)', read_only=True))
        declare('world_frame', 'world', _descriptor('the fixed frame of /tf', read_only=True))
        declare('max_steps_per_call', 1_000_000_000, _descriptor(
            'most steps one step_simulation call may request (longer runs: the simulate_steps '
            'action, with feedback and cancel); a running call ends when the simulation state '
            'is set', read_only=True))
        declare('isolate', False, _descriptor(
            'keep /clock, /tf and /tf_static in the node namespace (clock, tf, tf_static) and '
            'prefix every frame with the namespace, so that several instances share one ROS '
            'domain', read_only=True))
        declare('frame_prefix', '', _descriptor(
            'prefix of every frame id (empty: the namespace when isolate is set, else none)',
            read_only=True))
        declare('frame_prefix_entities', True, _descriptor(
            'prefix frames with the entity name (robot1/Head)', read_only=True))
        declare('publish_link_tf', True, _descriptor(
            'publish link frames on /tf; false leaves them to robot_state_publisher (the root '
            'and sensor frames are still published)', read_only=True))
        declare('forward_controllers', list(DEFAULT_FORWARD_CONTROLLERS),
                _descriptor('forward-command controllers per robot: <entity>/<name>/commands '
                            '(std_msgs/Float64MultiArray); the interface follows the name '
                            'prefix (position/velocity/effort) unless set', p.PARAMETER_STRING_ARRAY,
                            read_only=True))

    def _declare_entity_parameters(self, entities: Sequence[Entity]) -> None:
        for entity in entities:
            if entity.kind != 'robot':
                continue
            e = ros_name(entity.name)
            for sensor in entity.sensors:
                s = f'sensors.{e}.{ros_name(sensor.name)}'
                self._declare_once(f'{s}.rate', -1.0, _number_descriptor(
                    f'publish rate of {entity.name}/{sensor.name} in Hz (<0: the type rate)',
                    read_only=True))
                self._declare_once(f'{s}.topic', '', _descriptor(
                    f'topic base of {entity.name}/{sensor.name} (empty: {e}/{ros_name(sensor.name)})',
                    read_only=True))
            if not entity.movable_joints:
                continue
            for controller in self._param('forward_controllers') or []:
                c = f'controllers.{e}.{ros_name(controller)}'
                if not self.has_parameter(f'{c}.joints'):
                    self.declare_string_array(
                        f'{c}.joints', [j.name for j in entity.movable_joints], _descriptor(
                            f'ordered joints of {controller} (default: all movable joints in '
                            'scene order)', read_only=True))
                self._declare_once(f'{c}.interface', default_interface(controller), _descriptor(
                    'position, velocity or effort', read_only=True))

    def declare_string_array(self, name: str, default: list[str],
                              descriptor: ParameterDescriptor) -> None:
        """A string-array parameter that always has a value, also an empty one. rclpy infers
        a byte array from ``[]``, so the default is given typed after declaring; without a value
        bulk GetParameters answers nothing (and ``ros2 param dump`` prints ``{}``)."""
        self.declare_parameter(name, Parameter.Type.STRING_ARRAY, descriptor)
        if self._param(name) is None:
            self._parameters[name] = Parameter(name, Parameter.Type.STRING_ARRAY, default)

    def _check_numbers(self) -> None:
        for name, parameter in self._parameters.items():
            if self.describe_parameter(name).dynamic_typing:
                error = number_error(name, parameter.value)
                if error:
                    raise SceneSimError(error)

    def _declare_once(self, name: str, value: Any, descriptor: ParameterDescriptor) -> None:
        if not self.has_parameter(name):
            self.declare_parameter(name, value, descriptor)

    def _param(self, name: str) -> Any:
        try:
            return self.get_parameter(name).value
        except ParameterUninitializedException:  # a typed parameter without a value
            return None

    def publish_rate(self, key: str) -> float:
        return float(self._param(f'publish_rates.{key}'))

    def sensor_override(self, entity: Entity, sensor: str) -> SensorOverride:
        s = f'sensors.{ros_name(entity.name)}.{ros_name(sensor)}'
        if not self.has_parameter(f'{s}.rate'):
            return SensorOverride()
        return SensorOverride(float(self._param(f'{s}.rate')), str(self._param(f'{s}.topic')))

    def controller_joints(self, entity: Entity, controller: str) -> list[str]:
        name = f'controllers.{ros_name(entity.name)}.{ros_name(controller)}.joints'
        joints = self._param(name) if self.has_parameter(name) else None
        if not joints:
            return [j.name for j in entity.movable_joints]
        return check_controller_joints(entity, controller, joints)

    def controller_interface(self, entity: Entity, controller: str) -> str:
        name = f'controllers.{ros_name(entity.name)}.{ros_name(controller)}.interface'
        interface = self._param(name) if self.has_parameter(name) else None
        interface = interface or default_interface(controller)
        if interface not in INTERFACES:
            raise ValueError(f'{name}: {interface!r} is none of {INTERFACES}')
        return interface

    def rate_limiter(self, rate: float) -> RateLimiter:
        return RateLimiter(rate, self.sim.step_length)

    def _on_set_parameters(self, parameters: list[Parameter]) -> SetParametersResult:
        for parameter in parameters:
            if self.has_parameter(parameter.name) and \
                    self.describe_parameter(parameter.name).dynamic_typing:
                error = number_error(parameter.name, parameter.value)
                if error:
                    return SetParametersResult(successful=False, reason=error)
        for parameter in parameters:
            if parameter.name == 'real_time_factor':
                value = float(parameter.value)
                if not value >= 0.0:
                    return SetParametersResult(successful=False,
                                               reason='real_time_factor must be >= 0')
                self.stepper.real_time_factor = value
            elif parameter.name == 'paused':
                if parameter.value:
                    self.stepper.pause()
                else:
                    self.stepper.play()
        return SetParametersResult(successful=True)

    # --- scene ----------------------------------------------------------------------------

    def _scene_path(self, scene: str | Path | None) -> Path:
        chosen = scene or self._param('scene')
        if chosen:
            return Path(chosen).expanduser()
        try:
            from ..resources import default_scene_path
        except ImportError:
            raise SceneSimError('no scene given (parameter "scene")') from None
        return default_scene_path()

    def _load_scene(self) -> Scene:
        from ..formats import load_scene
        self.get_logger().info(f'loading {self.scene_path} ...')
        started = time.perf_counter()
        template: dict[str, str] = {}
        for item in self._param('scene_parameters') or []:
            name, _, value = item.partition('=')
            template[name] = value
        scene = load_scene(self.scene_path, parameters=template or None,
                           strict=bool(self._param('strict')))
        for warning in scene.warnings:
            self.get_logger().warning(warning)
        self.get_logger().info(f'loaded {scene.format} scene {scene.name!r} in '
                               f'{time.perf_counter() - started:.1f} s')
        return scene

    # --- entities (physics thread once running) ------------------------------------------------

    def add_entity(self, entity: Entity) -> EntityBridge:
        """Bridge an entity that is in the simulation (topics, TF). The caller adds it to the
        simulation first; once the node runs, call this on the physics thread."""
        bridge = EntityBridge(self, entity)
        self.bridges[entity.name] = bridge
        trajectory_action.attach(self, bridge)  # <entity>/joint_trajectory_controller/...
        self._bridge_list = list(self.bridges.values())
        frames = entity_frames(entity, self.frames, links=self.publish_link_tf)
        bridge.frames = frames
        static = list(frames.static)
        # a static compound (or a fixed-base body without joints) never moves: /tf_static
        bridge.moves = not (entity.kind == 'static'
                            or entity.fixed_base and not entity.movable_joints)
        if not bridge.moves:
            position, orientation = self.sim.get_pose(entity.name)
            set_transform(frames.root, position, orientation)
            static.insert(0, frames.root)
        bridge.static_frames = [t.child_frame_id for t in static]
        if static:
            self.static_tf.set(static, self.stepper.time)
        self.dynamic_tf.set_entities(self._moving_frames())
        return bridge

    def _moving_frames(self) -> list[EntityFrames]:
        """The frames of the entities on /tf (a bridge has its frames once added)."""
        return [b.frames for b in self._bridge_list if b.moves and b.frames is not None]

    def remove_entity(self, name: str) -> None:
        """Take down the topics and frames of entity ``name`` (physics thread once running)."""
        bridge = self.bridges.pop(name)
        trajectory_action.detach(self, name)
        self._bridge_list = list(self.bridges.values())
        self.dynamic_tf.set_entities(self._moving_frames())
        self.static_tf.remove(bridge.static_frames)
        bridge.destroy()

    def _publish_descriptions(self, bridges: Sequence[EntityBridge]) -> None:
        robots = [b for b in bridges if b.is_robot]
        if not robots:
            return
        try:
            from ..sim.urdf import entity_to_urdf
        except ImportError as err:
            self.get_logger().warning(f'no robot_description: {err}')
            return
        for bridge in robots:
            try:
                bridge.publish_description(entity_to_urdf(bridge.entity))
            except Exception as err:  # noqa: BLE001 - a URDF problem must not stop the node
                self.get_logger().error(f'{bridge.name}: no robot_description: {err}')

    def sim_reader(self, entity: str, sensor: str) -> Any:
        """The simulation's reader object of a sensor (``angle_min``, ``set()``, ...)."""
        reader = getattr(self.sim, 'reader', None)
        if reader is not None:
            return reader(entity, sensor)
        readers = self.sim._readers  # noqa: SLF001 - until the Simulation exposes reader()
        if (entity, sensor) not in readers:
            self.sim.read(entity, sensor)
        return readers[(entity, sensor)]

    # --- physics thread ----------------------------------------------------------------------

    def _before_step(self, t: float) -> None:
        for bridge in self._bridge_list:
            if bridge.wants_before_step:
                bridge.before_step(t)

    def _publish_clock(self, t: float) -> None:
        set_stamp(self._clock_msg.clock, t)
        self.publish(self._clock_publisher, self._clock_msg)
        if self._time_source.ros_time_is_active:
            self._time_source.clock_callback(self._clock_msg)  # this node's own ROS time

    def _while_paused(self, t: float) -> None:
        """Paused: repeat /clock, and now and then TF and joint states, so that RViz and other
        late joiners see the frozen world."""
        self._publish_clock(t)
        now = time.monotonic()
        if now - self._last_paused_state < PAUSED_STATE_PERIOD:
            return
        self._last_paused_state = now
        for bridge in self._bridge_list:
            bridge.publish_joint_states(t, None)
        self._publish_tf(t, None)

    def _after_step(self, t: float) -> None:
        self._publish_clock(t)
        step = self.stepper.steps  # never repeats, also across a supervisor reset
        bridges = self._bridge_list
        for bridge in bridges:
            bridge.step(t, step)
        if self._tf_rate.due(t):
            self._publish_tf(t, step)

    def _publish_tf(self, t: float, step: int | None) -> None:
        """``step``: the step whose joint samples can be reused; None reads the joints now."""
        frames = self.dynamic_tf.frames
        if not frames:
            return
        sim = self.sim
        poses = []
        positions = []
        for f in frames:
            poses.append(sim.get_pose(f.entity.name))
            if f.moving_joints:
                bridge = self.bridges[f.entity.name]
                bridge.sample_joints(step)
                positions.append(bridge.positions)
        joint_positions = np.concatenate(positions) if positions else np.zeros(0)
        try:
            self.dynamic_tf.publish(t, poses, joint_positions)
        except Exception as err:  # noqa: BLE001 - RCLError, or the context shutting down
            if self.context.ok():
                self._count_publish_error('/tf', err)

    def _physics_error(self, where: str, err: BaseException) -> None:
        if not self.context.ok():
            return  # shutting down: publishers are gone
        self._warn_throttled(where, f'{where}: {type(err).__name__}: {err}')

    # --- publishing and counting ---------------------------------------------------------------

    def publish(self, publisher: Any, msg: Any) -> None:
        """Publish, never raise: DDS errors are counted (``~/publish_errors``); errors while
        the context shuts down are not errors."""
        try:
            publisher.publish(msg)
        except Exception as err:  # noqa: BLE001 - RCLError, InvalidHandle during shutdown
            if self.context.ok():
                self._count_publish_error(getattr(publisher, 'topic_name', '?'), err)

    def _count_publish_error(self, topic: str, err: BaseException) -> None:
        with self._count_lock:
            self.publish_errors += 1
            count = self.publish_errors
        self._warn_throttled(f'publish {topic}',
                             f'publishing on {topic} failed ({count} so far): {err}')
        self._publish_counter(self._errors_publisher, count)

    def reject(self, source: str, reason: str) -> None:
        """Count a rejected command and warn (throttled per source)."""
        with self._count_lock:
            self.rejected_commands += 1
            count = self.rejected_commands
        self._warn_throttled(source, f'rejected a command on {source}: {reason} '
                                     f'({count} rejected so far)')
        self._publish_counter(self._rejected_publisher, count)

    def _warn_throttled(self, key: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last_warning.get(key, -1e9) >= REJECTION_LOG_PERIOD:
            self._last_warning[key] = now
            self.get_logger().warning(text)

    def _publish_counter(self, publisher: Any, count: int) -> None:
        try:
            publisher.publish(UInt64(data=count))
        except Exception:  # noqa: BLE001 - a counter must never take the node down
            pass

    # --- lifecycle ----------------------------------------------------------------------------

    def _load_extensions(self) -> list[Any]:
        loaded = []
        for name in EXTENSIONS:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as err:
                if err.name == name:
                    continue
                raise
            init = getattr(module, 'init', None)
            if init is None:  # a package without the hook (e.g. still being written)
                self.get_logger().debug(f'extension {name} has no init(node); skipped')
                continue
            try:
                init(self)
            except Exception:  # noqa: BLE001 - the bridge still works without the extension
                self.get_logger().error(f'extension {name} failed to start:\n'
                                        + traceback.format_exc())
                continue
            loaded.append(module)
        return loaded

    def start(self) -> None:
        self.context.on_shutdown(self.stepper.request_stop)
        self.stepper.start()
        self._neighbour_checks_left = NEIGHBOUR_CHECKS
        self._neighbour_check = self.create_timer(  # wall time: sim time may stand still
            NEIGHBOUR_CHECK_DELAY, self._warn_about_other_simulations,
            clock=rclpy.clock.Clock(clock_type=rclpy.clock.ClockType.STEADY_TIME))

    def _warn_about_other_simulations(self) -> None:
        """A few times after start, until found: another simulation whose /clock (or node name)
        collides with ours mixes clocks and TF for every listener; say once which one and how
        to separate them."""
        self._neighbour_checks_left -= 1
        if self._neighbour_checks_left <= 0:
            self.destroy_timer(self._neighbour_check)
        topic = self._clock_publisher.topic_name
        others = [f'{info.node_namespace.rstrip("/")}/{info.node_name}'
                  for info in self.get_publishers_info_by_topic(topic)
                  if (info.node_name, info.node_namespace) != (self.get_name(),
                                                               self.get_namespace())]
        same_name = [n for n, ns in self.get_node_names_and_namespaces()
                     if (n, ns) == (self.get_name(), self.get_namespace())]
        if not others and len(same_name) < 2:
            return
        self._neighbour_checks_left = 0
        self.destroy_timer(self._neighbour_check)
        who = ', '.join(sorted(set(others))) or self.get_fully_qualified_name()
        domain = self.context.get_domain_id()
        self.get_logger().warning(
            f'another simulation is running on ROS_DOMAIN_ID={domain} ({who} publishes '
            f'{topic}): clocks and TF of both get mixed. Give each its own ROS_DOMAIN_ID, or '
            'run each with --namespace NAME --isolate (launch: namespace:=NAME isolate:=true)')

    def stop(self) -> None:
        """Stop the physics thread and the extensions, release the simulation."""
        self.stepper.stop()
        for module in self.extensions:
            shutdown = getattr(module, 'shutdown', None)
            if shutdown is not None:
                shutdown(self)
        self.sim.close()


# --- entry points ------------------------------------------------------------------------------

def _overrides(parameters: dict[str, object] | None) -> list[Parameter]:
    return [Parameter(name, value=value) for name, value in (parameters or {}).items()]


def run(scene: str | None, *, parameters: dict[str, object] | None = None,
        ros_args: list[str] | None = None) -> int:
    """Run the node until shutdown (Ctrl-C, SIGTERM); returns the exit status.

    ``parameters`` override the defaults and the parameter files of ``ros_args`` (a list
    starting with ``--ros-args``, or just the arguments that follow it).
    """
    args = list(ros_args or [])
    if args and args[0] != '--ros-args':
        args = ['--ros-args', *args]
    rclpy.init(args=[sys.argv[0] if sys.argv else 'sim_node', *args])
    try:
        try:
            node = SimNode(scene, parameter_overrides=_overrides(parameters))
        except SceneLoadError as err:
            print(str(err), file=sys.stderr)
            return 2
        except SceneSimError as err:
            print(f'error: {err}', file=sys.stderr)
            return 1
        return _spin(node)
    finally:
        rclpy.try_shutdown()


def _spin(node: SimNode) -> int:
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    node.start()
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # Ctrl-C in a terminal (or launch) can signal the whole process group twice; a second
        # SIGINT must not interrupt the orderly stop of the physics thread
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        node.stop()
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``ros2 run scene_sim_ros sim_node [SCENE] [--ros-args ...]``."""
    argv = list(sys.argv if argv is None else argv)
    non_ros = rclpy.utilities.remove_ros_args(argv)[1:]
    ros_args = argv[argv.index('--ros-args'):] if '--ros-args' in argv else []
    scene = non_ros[0] if non_ros else None
    return run(scene, ros_args=ros_args)


if __name__ == '__main__':
    sys.exit(main())
