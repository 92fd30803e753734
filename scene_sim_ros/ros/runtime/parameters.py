"""The node's parameters: declaration (global, per sensor, per controller), number checks, reads.

The global ones are rows of the option table (:mod:`scene_sim_ros.ros.options`, from which
``config/params.yaml`` is written); the publish rates' defaults are :data:`PUBLISH_RATES`.
Scene-dependent parameters (``sensors.<entity>.<sensor>.*``,
``controllers.<entity>.<controller>.*``) are declared here once the scene is loaded. Numeric
parameters are dynamically typed so that ``real_time_factor:=0`` (an integer on a command line)
works; :func:`number_error` keeps them numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter

from scene_sim_ros.ros.bridge.adapters import PUBLISH_RATES
from scene_sim_ros.ros.bridge.commands import INTERFACES, default_interface
from scene_sim_ros.ros.bridge.host import SensorOverride
from scene_sim_ros.ros.bridge.names import ros_name
from scene_sim_ros.ros.option_parameters import DeclaringNode, declare_options
from scene_sim_ros.ros.options import node_options
from scene_sim_ros.scene import Entity
from scene_sim_ros.sim.engines import ENGINES
from scene_sim_ros.sim.sensors.rendering import renderer_policy

NUMBER_TYPES = (int, float)
"""Numeric parameters take integers too (``real_time_factor:=0`` on a command line is one)."""


def descriptor(text: str, kind: int | None = None, *, read_only: bool = False
               ) -> ParameterDescriptor:
    described = ParameterDescriptor(description=text, read_only=read_only)
    if kind is not None:
        described.type = kind
    return described


def number_descriptor(text: str, *, read_only: bool = False) -> ParameterDescriptor:
    """A double parameter that also takes integers (checked by :func:`number_error`)."""
    return ParameterDescriptor(description=text + ' (a number)', read_only=read_only,
                               dynamic_typing=True)


def number_error(name: str, value: Any) -> str | None:
    """Why ``value`` is no value for the numeric parameter ``name`` (None: it is one)."""
    if isinstance(value, NUMBER_TYPES) and not isinstance(value, bool):
        return None
    kind = Parameter.Type.from_parameter_value(value).name.lower()
    return f'parameter {name!r} expects a number (double or integer), got {kind} {value!r}'


def value(node: Node, name: str) -> Any:
    """The value of a declared parameter (None: a typed parameter without a value)."""
    try:
        return node.get_parameter(name).value
    except ParameterUninitializedException:
        return None


def declare_once(node: Node, name: str, default: Any, described: ParameterDescriptor) -> None:
    if not node.has_parameter(name):
        node.declare_parameter(name, default, described)


def declare_string_array(node: Node, name: str, default: list[str],
                         described: ParameterDescriptor) -> None:
    """A string-array parameter that always has a value, also an empty one. rclpy infers
    a byte array from ``[]``, so the default is given typed after declaring; without a value
    bulk GetParameters answers nothing (and ``ros2 param dump`` prints ``{}``)."""
    node.declare_parameter(name, Parameter.Type.STRING_ARRAY, described)
    if value(node, name) is None:
        node._parameters[name] = Parameter(name, Parameter.Type.STRING_ARRAY, default)  # noqa: SLF001


def declare_node_parameters(node: DeclaringNode) -> None:
    """The parameters every scene has (before the scene is loaded: ``scene`` names it); the
    option table (:mod:`scene_sim_ros.ros.options`) describes them."""
    declare_options(node, 'node', node_options(PUBLISH_RATES))


def declare_entity_parameters(node: Node, entities: Sequence[Entity]) -> None:
    """Per robot: each sensor's rate and topic, each forward controller's joints and interface."""
    for entity in entities:
        if entity.kind != 'robot':
            continue
        e = ros_name(entity.name)
        for sensor in entity.sensors:
            s = f'sensors.{e}.{ros_name(sensor.name)}'
            declare_once(node, f'{s}.rate', -1.0, number_descriptor(
                f'publish rate of {entity.name}/{sensor.name} in Hz (<0: the type rate)',
                read_only=True))
            declare_once(node, f'{s}.topic', '', descriptor(
                f'topic base of {entity.name}/{sensor.name} (empty: {e}/{ros_name(sensor.name)})',
                read_only=True))
        if not entity.movable_joints:
            continue
        for controller in value(node, 'forward_controllers') or []:
            c = f'controllers.{e}.{ros_name(controller)}'
            if not node.has_parameter(f'{c}.joints'):
                declare_string_array(
                    node, f'{c}.joints', [j.name for j in entity.movable_joints], descriptor(
                        f'ordered joints of {controller} (default: all movable joints in '
                        'scene order)', read_only=True))
            declare_once(node, f'{c}.interface', default_interface(controller), descriptor(
                'position, velocity or effort', read_only=True))


def check_numbers(node: Node) -> str | None:
    """The first numeric parameter whose value is no number, as an error (None: all are)."""
    for name, parameter in node._parameters.items():  # noqa: SLF001 - every declared one
        if node.describe_parameter(name).dynamic_typing:
            error = number_error(name, parameter.value)
            if error:
                return error
    return None


def start_error(node: Node) -> str | None:
    """Why the ``engine`` parameter (with ``gui``) or the ``renderer`` names nothing the node
    can build (None: they do); checked before the scene is loaded, so that a typo costs no
    loading time."""
    engine = value(node, 'engine')
    if engine not in ENGINES:
        return f'engine {engine!r} is not known; engines: {", ".join(ENGINES)}'
    if engine != 'pybullet' and value(node, 'gui'):
        return (f"engine {engine!r} has no window of its own (gui is PyBullet's); watch it "
                'in rviz2 or Foxglove')
    try:
        renderer_policy(str(value(node, 'renderer')) or None)
    except ValueError as error:
        return str(error)
    return None


def check_update(node: Node, parameters: Sequence[Parameter[Any]]) -> SetParametersResult | None:
    """A refusal of a parameter update that would make a number no number (None: fine)."""
    for parameter in parameters:
        if node.has_parameter(parameter.name) and \
                node.describe_parameter(parameter.name).dynamic_typing:
            error = number_error(parameter.name, parameter.value)
            if error:
                return SetParametersResult(successful=False, reason=error)
    return None


def sensor_override(node: Node, entity: Entity, sensor: str) -> SensorOverride:
    s = f'sensors.{ros_name(entity.name)}.{ros_name(sensor)}'
    if not node.has_parameter(f'{s}.rate'):
        return SensorOverride()
    return SensorOverride(float(value(node, f'{s}.rate')), str(value(node, f'{s}.topic')))


def controller_joints(node: Node, entity: Entity, controller: str) -> list[str]:
    """The joints of a forward controller (parameter, default: every movable joint)."""
    name = f'controllers.{ros_name(entity.name)}.{ros_name(controller)}.joints'
    joints = value(node, name) if node.has_parameter(name) else None
    if not joints:
        return [j.name for j in entity.movable_joints]
    return check_controller_joints(entity, controller, joints)


def check_controller_joints(entity: Entity, controller: str, joints: Iterable[str]) -> list[str]:
    """The joints of a forward controller, checked against the entity's movable joints."""
    movable = {j.name for j in entity.movable_joints}
    chosen = list(joints)
    unknown = [j for j in chosen if j not in movable]
    if unknown:
        raise ValueError(f'controller {controller!r} of {entity.name!r}: unknown joints {unknown}')
    return chosen


def controller_interface(node: Node, entity: Entity, controller: str) -> str:
    name = f'controllers.{ros_name(entity.name)}.{ros_name(controller)}.interface'
    interface = value(node, name) if node.has_parameter(name) else None
    interface = interface or default_interface(controller)
    if interface not in INTERFACES:
        raise ValueError(f'{name}: {interface!r} is none of {INTERFACES}')
    return interface
