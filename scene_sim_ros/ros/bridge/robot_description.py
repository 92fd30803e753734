"""``robot_description`` and ``joint_states`` in the node's namespace for one robot, the names
robot_state_publisher, RViz, ros2_control's controller_manager and MoveIt use by default.

Parameter ``robot_description_entity``: the robot they describe; empty (the default) picks the
only robot of the scene and none when there are several. ``robot_description`` is the URDF
(std_msgs/String, transient-local, like robot_state_publisher's), ``joint_states`` the same
messages as ``<entity>/joint_states``. The per-entity topics stay as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sensor_msgs.msg import JointState
from std_msgs.msg import String

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.bridged_node import BridgedNode
from scene_sim_ros.ros.option_parameters import declare_options

PARAMETER = 'robot_description_entity'


def choose_robot(robots: Sequence[str], requested: str) -> tuple[str | None, str]:
    """(the robot to describe or None, why) from the scene's robots and the parameter."""
    if requested:
        if requested in robots:
            return requested, f'parameter {PARAMETER}'
        return None, f'{PARAMETER} {requested!r} is no robot of the scene; robots: {list(robots)}'
    if len(robots) == 1:
        return robots[0], 'the only robot of the scene'
    if not robots:
        return None, 'the scene has no robot'
    return None, f'{len(robots)} robots and no {PARAMETER} parameter naming one'


class _Tee:
    """A publisher that publishes on two topics (the entity's and the node's joint_states)."""

    def __init__(self, first: Any, second: Any):
        self.first, self.second = first, second
        self.topic_name = first.topic_name

    def publish(self, msg: Any) -> None:
        try:
            self.first.publish(msg)
        finally:
            self.second.publish(msg)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.first, name)


def publish_robot_description(node: BridgedNode) -> str | None:
    """Declare the parameter, publish ``robot_description`` and tee ``joint_states`` of the
    chosen robot; returns its name (None: none chosen, logged)."""
    declare_options(node, 'robot_description')  # PARAMETER, once
    requested = str(node.get_parameter(PARAMETER).value or '')
    robots = [b.name for b in node.bridges.values() if b.is_robot]
    chosen, why = choose_robot(robots, requested)
    log = node.get_logger()
    if chosen is None:
        (log.warning if requested else log.info)(f'no robot_description in the node namespace: '
                                                 f'{why}')
        return None
    bridge = node.bridges[chosen]
    try:
        from scene_sim_ros.sim.urdf import entity_to_urdf
        urdf = entity_to_urdf(bridge.entity)
    except Exception as err:  # noqa: BLE001 - a URDF problem must not stop the node
        log.error(f'no robot_description for {chosen}: {err}')
        return None
    # a world loaded later (LoadWorld) publishes its robot on the same topics
    publisher, joint_states = getattr(node, 'robot_description_publishers', (None, None))
    if publisher is None:
        publisher = node.create_publisher(String, 'robot_description', qos.LATCHED)
        joint_states = node.create_publisher(JointState, 'joint_states', qos.SENSOR)
        node.robot_description_publishers = (publisher, joint_states)
    node.publish(publisher, String(data=urdf))
    bridge.joint_state_publisher = _Tee(bridge.joint_state_publisher, joint_states)
    log.info(f'robot_description and joint_states: {chosen} ({why})')
    return chosen
