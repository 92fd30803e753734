"""Start-up of the node: which scene and loading it, the clock source, the extensions, the
summary on one screen, and the look for another simulation on the same ROS domain."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rclpy
from rclpy.node import Node

from scene_sim_ros.errors import SceneSimError
from scene_sim_ros.ros.bridge.names import ros_name
from scene_sim_ros.ros.runtime import parameters
from scene_sim_ros.scene import Scene

NEIGHBOUR_CHECK_DELAY = 2.0
"""Wall seconds between two looks for another simulation on the domain (discovery takes longer
on a loaded machine, so it looks :data:`NEIGHBOUR_CHECKS` times)."""

NEIGHBOUR_CHECKS = 5


def scene_path(node: Node, scene: str | Path | None) -> Path:
    """The scene given, else the ``scene`` parameter (a file or an example's name, as ``run``
    takes it), else the bundled default scene."""
    chosen = scene or parameters.value(node, 'scene')
    if chosen:
        from scene_sim_ros.resources import resolve_scene
        return Path(resolve_scene(str(Path(chosen).expanduser())))
    try:
        from scene_sim_ros.resources import default_scene_path
    except ImportError:
        raise SceneSimError('no scene given (parameter "scene")') from None
    return default_scene_path()


def load_scene(node: Node, path: Path) -> Scene:
    """Load ``path`` with the ``scene_parameters`` and ``strict`` parameters, logging how."""
    from scene_sim_ros.formats import load_scene as load
    log = node.get_logger()
    log.info(f'loading {path} ...')
    started = time.perf_counter()
    template: dict[str, str] = {}
    for item in parameters.value(node, 'scene_parameters') or []:
        name, _, value = item.partition('=')
        template[name] = value
    scene = load(path, parameters=template or None,
                 strict=bool(parameters.value(node, 'strict')))
    for warning in scene.warnings:
        log.warning(warning)
    log.info(f'loaded {scene.format} scene {scene.name!r} in '
             f'{time.perf_counter() - started:.1f} s')
    return scene


def own_clock_source(node: Node) -> None:
    """With ``use_sim_time`` rclpy would subscribe this node to its own ``/clock``: every step
    would wake the executor thread, whose Python work then fights the physics thread for
    the GIL (measured on Game.ros2: RTF 0.69 -> 0.26). The node knows the sim time first
    hand, so its time source gets it from the physics thread instead (the step loop)."""
    source = node._time_source  # noqa: SLF001
    # rclpy has no option for this: replace the method on this one instance
    source._subscribe_to_clock_topic = lambda: None  # type: ignore[method-assign]  # noqa: SLF001
    if source._clock_sub is not None:  # noqa: SLF001
        node.destroy_subscription(source._clock_sub)  # noqa: SLF001
        source._clock_sub = None  # noqa: SLF001


@dataclass(frozen=True)
class Extension:
    """A part started after the node is built (``init(node)``) and stopped with it."""

    name: str
    init: Callable[[Any], None]
    shutdown: Callable[[Any], None]


def load_extensions(node: Node, extensions: tuple[Extension, ...]) -> list[Extension]:
    """Call each extension's ``init(node)``; a failing one is logged and left out (the bridge
    still works without it)."""
    loaded = []
    for extension in extensions:
        try:
            extension.init(node)
        except Exception:  # noqa: BLE001 - the bridge still works without the extension
            node.get_logger().error(f'extension {extension.name} failed to start:\n'
                                    + traceback.format_exc())
            continue
        loaded.append(extension)
    return loaded


def summary(node: Any, path: Path) -> str:
    """One screen: what is simulated and where it appears on ROS (``node``: the SimNode)."""
    from scene_sim_ros.ros.runtime.interface_list import interface_rows, supervisor_rows
    from scene_sim_ros.scene.summary import entity_lines
    scene: Scene = node.scene
    namespace = node.get_namespace()
    rows = interface_rows(scene, namespace)
    robots = [e.name for e in scene.entities if e.kind == 'robot']
    lines = entity_lines(scene)  # the loader's warnings were logged one by one
    lines.append(f'  topics: {sum(1 for r in rows if r[0] == "pub")} published, '
                 f'{sum(1 for r in rows if r[0] == "sub")} subscribed, under '
                 + ', '.join(f'{namespace.rstrip("/")}/{name}/' for name in robots[:6])
                 + (' ...' if len(robots) > 6 else ''))
    services = [name for kind, name, _ in supervisor_rows(namespace) if kind == 'srv']
    for entity in scene.entities:
        if entity.kind == 'robot' and entity.movable_joints:
            for controller in node.forward_controllers:
                joints = ', '.join(node.controller_joints(entity, controller))
                lines.append(f'  {ros_name(entity.name)}/{controller}/commands: '
                             f'data = [{joints}]')
    lines.append(f'  services: {", ".join(n.rsplit("/", 1)[-1] for n in services)}')
    lines.append(f'  full list: scene-sim-ros topics {path}'
                 + (f' --namespace {namespace}' if namespace != '/' else ''))
    return '\n'.join(lines)


class NeighbourCheck:
    """A few looks after start, until found: another simulation whose /clock (or node name)
    collides with ours mixes clocks and TF for every listener; say once which one and how to
    separate them."""

    def __init__(self, node: Node, clock_topic: str):
        self._node = node
        self._topic = clock_topic
        self._left = NEIGHBOUR_CHECKS
        self._timer = node.create_timer(  # wall time: sim time may stand still
            NEIGHBOUR_CHECK_DELAY, self._look,
            clock=rclpy.clock.Clock(clock_type=rclpy.clock.ClockType.STEADY_TIME))

    def _look(self) -> None:
        node = self._node
        self._left -= 1
        if self._left <= 0:
            node.destroy_timer(self._timer)
        me = (node.get_name(), node.get_namespace())
        others = [f'{info.node_namespace.rstrip("/")}/{info.node_name}'
                  for info in node.get_publishers_info_by_topic(self._topic)
                  if (info.node_name, info.node_namespace) != me]
        same_name = [n for n, ns in node.get_node_names_and_namespaces() if (n, ns) == me]
        if not others and len(same_name) < 2:
            return
        self._left = 0
        node.destroy_timer(self._timer)
        who = ', '.join(sorted(set(others))) or node.get_fully_qualified_name()
        domain = node.context.get_domain_id()
        node.get_logger().warning(
            f'another simulation is running on ROS_DOMAIN_ID={domain} ({who} publishes '
            f'{self._topic}): clocks and TF of both get mixed. Give each its own ROS_DOMAIN_ID, '
            'or run each with --namespace NAME --isolate (launch: namespace:=NAME isolate:=true)')
