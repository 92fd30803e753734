"""The simulation node: loads a scene, runs it on a physics thread, bridges it to ROS 2.

    scene-sim-ros run Game.ros2                       # the CLI calls run()
    ros2 run scene_sim_ros sim_node --ros-args -p scene:=Game.ros2

Threads: the executor spins on the main thread (subscriptions, parameter and supervisor
services); the :class:`~.stepper.Stepper` owns the simulation on its own thread, applies queued
commands at step boundaries, steps, and publishes (``/clock``, joint states, sensors, ``/tf``;
:mod:`.step_loop`) with the sim time of the step that produced the data. DDS errors in
``publish()`` are caught and counted (``~/publish_errors``); rejected commands are counted too
(``~/rejected_commands``), both ``std_msgs/UInt64``, transient-local (:mod:`.publishing`).

Parameters (rows of the option table, :mod:`scene_sim_ros.ros.options`, declared by
:mod:`.parameters` and the parts that use them; defaults and comments in
``config/params.yaml``): ``scene``, ``scene_parameters``, ``strict``, ``real_time_factor``,
``paused``, ``engine``, ``gui``, ``seed``, ``publish_rates.<type>``, ``tf_rate``, ``world_frame``,
``frame_prefix_entities``, ``publish_link_tf``, ``forward_controllers``,
``controllers.<entity>.<controller>.joints`` / ``.interface``,
``sensors.<entity>.<sensor>.rate`` / ``.topic``. ``real_time_factor`` and ``paused`` can be
changed while running.

The parts: :mod:`.startup` (scene, summary, extensions, neighbours), :mod:`.entities` (an
entity's bridge, trajectory action and frames), :mod:`.step_loop` (the physics thread's
publishing). They and the extensions see the node through the Protocols of
:mod:`scene_sim_ros.ros.bridge.host` and :mod:`scene_sim_ros.ros.bridge.bridged_node`.

Extensions (the supervisor services, recording and the live view) hook in through
:data:`EXTENSIONS`: ``init(node)`` after the node is built, ``shutdown(node)`` when it stops. They use
``node.stepper`` (``submit``, ``pause``, ``play``, ``request_steps``), ``node.add_entity`` /
``node.remove_entity`` (on the physics thread) and ``node.sim``.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import rclpy
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter

from scene_sim_ros.errors import SceneLoadError, SceneSimError
from scene_sim_ros.ros import supervisor
from scene_sim_ros.ros.bridge.entity_bridge import EntityBridge
from scene_sim_ros.ros.bridge.localization import OdomParentWatch, publish_perfect_localization
from scene_sim_ros.ros.bridge.mobile_base import declare_parameters as declare_mobile_base_parameters
from scene_sim_ros.ros.bridge.names import instance_frame_prefix, shared_topic
from scene_sim_ros.ros.bridge.robot_description import publish_robot_description
from scene_sim_ros.ros.bridge.tf import FrameNames, StaticTransforms
from scene_sim_ros.ros.outputs import extension as outputs
from scene_sim_ros.ros.rate import RateLimiter
from scene_sim_ros.ros.runtime import parameters, startup
from scene_sim_ros.ros.runtime.entities import EntityWiring
from scene_sim_ros.ros.runtime.frame_budget import FrameBudget
from scene_sim_ros.ros.runtime.parameters import PUBLISH_RATES, SensorOverride, number_error
from scene_sim_ros.ros.runtime.publishing import Publishing
from scene_sim_ros.ros.runtime.startup import NEIGHBOUR_CHECK_DELAY, NEIGHBOUR_CHECKS
from scene_sim_ros.ros.runtime.step_loop import StepLoop
from scene_sim_ros.ros.runtime.stepper import Stepper
from scene_sim_ros.ros.supervisor import spawn_loader
from scene_sim_ros.scene import Entity, Scene
from scene_sim_ros.sim.engines import create_simulator
from scene_sim_ros.sim.simulator import Simulator

NODE_NAME = 'scene_sim'

ENGINE_TITLES = {'pybullet': 'PyBullet', 'mujoco': 'MuJoCo'}
"""The engines' names in the node's log (the keys are ``sim.engines.ENGINES``)."""

EXTENSIONS = (
    startup.Extension('supervisor', supervisor.init, supervisor.shutdown),
    startup.Extension('outputs', outputs.init, outputs.shutdown),
)
"""Started after the node is built (``init(node)``), stopped with it."""

__all__ = ['EXTENSIONS', 'NEIGHBOUR_CHECKS', 'NEIGHBOUR_CHECK_DELAY', 'NODE_NAME', 'PUBLISH_RATES',
           'RateLimiter', 'SensorOverride', 'SimNode', 'main', 'number_error', 'run']


class SimNode(Node):
    """The node. Build it, call :meth:`start`, spin an executor; :meth:`stop` when done."""

    robot_description_publishers: tuple[Any, Any]  # set by robot_description (absent before)

    def __init__(self, scene: str | Path | None = None, *,
                 parameter_overrides: Sequence[Parameter[Any]] = (), **node_kwargs: Any):
        super().__init__(NODE_NAME, parameter_overrides=list(parameter_overrides), **node_kwargs)
        startup.own_clock_source(self)
        parameters.declare_node_parameters(self)
        start_error = parameters.start_error(self)
        if start_error:
            raise SceneSimError(start_error)
        self.engine = str(self._param('engine'))
        self.scene_path = startup.scene_path(self, scene)
        self.scene: Scene = startup.load_scene(self, self.scene_path)
        parameters.declare_entity_parameters(self, self.scene.entities)
        declare_mobile_base_parameters(self, self.scene.entities)
        error = parameters.check_numbers(self)
        if error:
            raise SceneSimError(error)
        self.isolated = bool(self._param('isolate'))
        prefix = instance_frame_prefix(self.get_namespace(), self.isolated,
                                       self._param('frame_prefix'))
        self.frames = FrameNames(prefix + self._param('world_frame'),
                                 self._param('frame_prefix_entities'), prefix)
        self.publish_link_tf = bool(self._param('publish_link_tf'))
        self.forward_controllers = [c for c in self._param('forward_controllers') or [] if c]
        self.publishing = Publishing(self)
        self.sim = self._build_simulation()
        self.loop = StepLoop(self, self.sim, self.publishing, isolated=self.isolated,
                             tf_rate=float(self._param('tf_rate')))
        self.stepper = Stepper(self.sim, self.loop.after_step,
                               real_time_factor=float(self._param('real_time_factor')),
                               paused=bool(self._param('paused')), on_error=self._physics_error,
                               while_paused=self.loop.while_paused,
                               settle=self.publishing.settle, finish=self.publishing.finish)
        # which due camera frames are rendered, paced by the stepper (the adapters join it)
        self.frame_budget = FrameBudget(self.get_logger().warning)
        self.frame_budget.pacing = self.stepper
        # the outbox publishes while PyBullet steps without the GIL (see .publishing)
        self.sim.on_gil_release = self.publishing.open_window
        self.stepper.add_before_step(self.loop.before_step)
        self.dynamic_tf = self.loop.dynamic_tf
        self.static_tf = StaticTransforms(self, shared_topic('/tf_static', self.isolated))
        self.entities = EntityWiring(self, self.loop, self.static_tf,
                                     link_tf=self.publish_link_tf)
        for entity in self.scene.entities:
            self.add_entity(entity)
        self.odom_parent_watch = OdomParentWatch(
            self, self.dynamic_tf, self.frames.world, shared_topic('/tf', self.isolated),
            shared_topic('/tf_static', self.isolated))
        if self._param('perfect_localization'):
            publish_perfect_localization(self.static_tf, prefix + self._param('map_frame'),
                                         self.frames.world)
        self.entities.publish_descriptions(list(self.bridges.values()))
        publish_robot_description(self)  # robot_description, joint_states in the namespace
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.extensions = startup.load_extensions(self, EXTENSIONS)
        self.get_logger().info(
            f'{self.scene_path.name}: {len(self.scene.entities)} entities, step '
            f'{self.sim.step_length * 1000:g} ms, {ENGINE_TITLES[self.engine]}, real-time factor '
            f'{self.stepper.real_time_factor:g}{", paused" if self.stepper.paused else ""}')
        self.get_logger().info(startup.summary(self, self.scene_path))

    def create_publisher(self, *args: Any, **kwargs: Any) -> Any:
        """rclpy's, without its default QoS-event handlers (the "incompatible QoS" and
        "matched" callbacks that log). rclpy adds one waitable per handler to the executor's
        wait set, rebuilt in Python on every wake-up; Game.ros2's ~400 topics made each wake-up
        (one a step: the node's own /clock) cost ~6 ms holding the GIL, which the physics thread
        then waited for after every GIL-free step (2 ms a step): the node ran at RTF 1.7, without
        them 3.4-4.1 (``bench/publishing_trace.py``, 2026-11-29). A subscriber with incompatible
        QoS is no longer logged by this node (``ros2 topic info -v`` shows both sides' QoS)."""
        kwargs.setdefault('event_callbacks', PublisherEventCallbacks(use_default_callbacks=False))
        return super().create_publisher(*args, **kwargs)

    def create_subscription(self, *args: Any, **kwargs: Any) -> Any:
        """rclpy's, without its default QoS-event handlers (see :meth:`create_publisher`)."""
        kwargs.setdefault('event_callbacks',
                          SubscriptionEventCallbacks(use_default_callbacks=False))
        return super().create_subscription(*args, **kwargs)

    def _build_simulation(self) -> Simulator:
        """The simulation of the scene in the engine of parameter ``engine``, read once: the
        node keeps it while it runs (load_world replaces the scene, not the simulation)."""
        title = ENGINE_TITLES[self.engine]
        self.get_logger().info(f'building the {title} world ...')
        started = time.perf_counter()
        # release_gil: the physics thread owns the simulation (see .stepper), and publishing
        # overlaps the next step (see .publishing)
        sim = create_simulator(self.scene, self.engine, gui=bool(self._param('gui')),
                               seed=int(self._param('seed')),
                               renderer=str(self._param('renderer')) or None, release_gil=True)
        self.get_logger().info(f'world built in {time.perf_counter() - started:.1f} s')
        if not sim.release_gil and not self._param('gui'):  # a GUI steps with the GIL anyway
            why = ' (sim/engines/pybullet/native_step.py)' if self.engine == 'pybullet' else ''
            self.get_logger().info(f'{title} here cannot step without the GIL{why}: publishing '
                                   'waits for the physics')
        for warning in sim.warnings:
            self.get_logger().warning(warning)
        return sim

    @property
    def ros_node(self) -> Node:
        return self

    # --- parameters (see .parameters) -----------------------------------------------------------

    def _param(self, name: str) -> Any:
        return parameters.value(self, name)

    def declare_string_array(self, name: str, default: list[str],
                             described: ParameterDescriptor) -> None:
        parameters.declare_string_array(self, name, default, described)

    def publish_rate(self, key: str) -> float:
        return float(self._param(f'publish_rates.{key}'))

    def sensor_override(self, entity: Entity, sensor: str) -> SensorOverride:
        return parameters.sensor_override(self, entity, sensor)

    def controller_joints(self, entity: Entity, controller: str) -> list[str]:
        return parameters.controller_joints(self, entity, controller)

    def controller_interface(self, entity: Entity, controller: str) -> str:
        return parameters.controller_interface(self, entity, controller)

    def rate_limiter(self, rate: float) -> RateLimiter:
        return RateLimiter(rate, self.sim.step_length)

    def _on_set_parameters(self, changed: list[Parameter[Any]]) -> SetParametersResult:
        refusal = parameters.check_update(self, changed)
        if refusal is not None:
            return refusal
        for parameter in changed:
            if parameter.name == 'real_time_factor':
                value = float(parameter.value)
                if not value >= 0.0:
                    return SetParametersResult(successful=False,
                                               reason='real_time_factor must be >= 0')
                self.stepper.real_time_factor = value
                self.get_logger().info(f'real-time factor {self.stepper.real_time_factor:g}')
            elif parameter.name == 'paused':
                if parameter.value:
                    self.stepper.pause()
                else:
                    self.stepper.play()
        return SetParametersResult(successful=True)

    # --- entities (physics thread once running; see .entities) ----------------------------------

    @property
    def bridges(self) -> dict[str, EntityBridge]:
        return self.entities.bridges

    def add_entity(self, entity: Entity) -> EntityBridge:
        """Bridge an entity that is in the simulation (topics, TF). The caller adds it to the
        simulation first; once the node runs, call this on the physics thread."""
        return self.entities.add(entity)

    def remove_entity(self, name: str) -> None:
        """Take down the topics and frames of entity ``name`` (physics thread once running)."""
        self.entities.remove(name)

    def world_changed(self) -> None:
        """The simulation was rebuilt from another scene (LoadWorld, physics thread): rates
        follow its step length."""
        self.loop.step_length_changed(self.sim.step_length)

    def republish_robot_description(self) -> None:
        """``robot_description`` in the namespace for the robot of the world now loaded."""
        publish_robot_description(self)

    def retire(self, destroyers: Iterable[Callable[[], None]]) -> None:
        """Destroy endpoints on the executor's thread (see :mod:`.entities`)."""
        self.entities.retire(destroyers)

    def publish_tf(self, t: float, step: int | None) -> None:
        """Publish /tf now (physics thread); ``step`` None re-reads the joints."""
        self.loop.publish_tf(t, step)

    def sim_reader(self, entity: str, sensor: str) -> Any:
        """The simulation's reader object of a sensor (``angle_min``, ``set()``, ...)."""
        return self.sim.reader(entity, sensor)

    # --- publishing and counting (see .publishing) ----------------------------------------------

    def publish(self, publisher: Any, msg: Any) -> None:
        """Publish, never raise: DDS errors are counted (``~/publish_errors``)."""
        self.publishing.publish(publisher, msg)

    def publish_built(self, publisher: Any, build: Callable[..., Any], *args: Any) -> None:
        """Publish ``build(*args)``, built off the physics thread where it can be (see
        :meth:`.publishing.Publishing.publish_built`)."""
        self.publishing.publish_built(publisher, build, *args)

    def publish_frame(self, publisher: Any, build: Callable[..., Any], *args: Any) -> None:
        """Publish a camera frame built by ``build(*args)`` on the frame lane (see
        :meth:`.publishing.Publishing.publish_frame`)."""
        self.publishing.publish_frame(publisher, build, *args)

    def drain_frames(self) -> None:
        """Wait until every camera frame posted so far is published."""
        self.publishing.drain_frames()

    def reject(self, source: str, reason: str) -> None:
        """Count a rejected command and warn (throttled per source)."""
        self.publishing.reject(source, reason)

    @property
    def rejected_commands(self) -> int:
        return self.publishing.rejected_commands

    @property
    def publish_errors(self) -> int:
        return self.publishing.publish_errors

    def _physics_error(self, where: str, err: BaseException) -> None:
        if not self.context.ok():
            return  # shutting down: publishers are gone
        self.publishing.warn_throttled(where, f'{where}: {type(err).__name__}: {err}')

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self.context.on_shutdown(self.stepper.request_stop)
        self.stepper.start()
        self._neighbours = startup.NeighbourCheck(self, self.loop.clock_publisher.topic_name)

    def stop(self) -> None:
        """Stop the physics thread and the extensions, release the simulation."""
        self.stepper.stop()
        self.frame_budget.report_totals()
        self.publishing.close()
        for extension in self.extensions:
            extension.shutdown(self)
        self.sim.close()


# --- entry points ------------------------------------------------------------------------------

def _overrides(parameters: dict[str, object] | None) -> list[Parameter[Any]]:
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
    spawn_loader.prestart()   # before rclpy installs its signal handlers (see there)
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
        except KeyboardInterrupt:  # Ctrl-C while starting: nothing runs yet, nothing to stop
            _ignore_further_interrupts()
            return 0
        except Exception as err:  # noqa: BLE001 - Ctrl-C shut the context down under the build
            if rclpy.ok() and not interrupted_native_call(err):
                raise
            _ignore_further_interrupts()
            return 0
        return _spin(node)
    finally:
        spawn_loader.discard_prestarted()
        rclpy.try_shutdown()


PYBIND_PENDING_ERROR = 'Unable to convert function return value to a Python type'
"""pybind11's TypeError for a native call (rclpy's deserialize in a callback) during which a
Python exception became pending: Ctrl-C's KeyboardInterrupt arriving inside it (seen on Jazzy,
once in some hundred interrupted starts)."""


def interrupted_native_call(err: BaseException) -> bool:
    """Whether ``err`` is a Ctrl-C that arrived inside an rclpy native call."""
    return isinstance(err, TypeError) and str(err).startswith(PYBIND_PENDING_ERROR)


def _ignore_further_interrupts() -> None:
    """Ctrl-C in a terminal under ``ros2 launch`` signals the node twice (the process group, then
    launch itself): the second SIGINT must interrupt neither the orderly stop of the physics
    thread nor the interpreter's exit (which joins the spawn loader's process pool)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _spin(node: SimNode) -> int:
    executor: SingleThreadedExecutor | None = None
    try:
        # Ctrl-C before the spin: rclpy's handler has shut the context down already
        if node.context.ok():
            executor = SingleThreadedExecutor(context=node.context)
            executor.add_node(node)
            node.start()
            executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception as err:  # noqa: BLE001 - rclpy's RCLError: the context went away meanwhile
        if node.context.ok() and not interrupted_native_call(err):
            raise
    finally:
        _ignore_further_interrupts()
        node.stop()
        if executor is not None:
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
