"""``scene-sim-ros send``: one joint command, checked before and confirmed after.

Before: every value must be a finite number; the entity must be a live robot (one with a
``<entity>/joint_commands`` subscription; if it runs under another namespace the error says
which ``--namespace`` to use); every joint must be a movable joint of it (from its latched
``robot_description``, else one ``joint_states`` message). After: the node counts the commands
it rejects on ``<namespace>/scene_sim/rejected_commands`` (std_msgs/UInt64, latched); a count
that grows within ``CONFIRM_WAIT`` seconds of sending means the command was rejected (exit 1).
"""

from __future__ import annotations

import sys
import time
import xml.etree.ElementTree as ET
from typing import Any

from scene_sim_ros.cli.client.session import Unreachable, UserError, client_node, resolve, spin_until
from scene_sim_ros.cli.client.values import BadValue, parse_assignments

COMMAND_TOPIC = 'joint_commands'
CONFIRM_WAIT = 0.75
"""Seconds to watch the rejection counter after sending (the node checks on receipt)."""


def live_command_topics(node: Any) -> list[str]:
    """Every ``.../joint_commands`` topic that the simulation subscribes to."""
    return sorted(name for name, _ in node.get_topic_names_and_types()
                  if name.endswith('/' + COMMAND_TOPIC) and node.count_subscribers(name))


def find_entity(node: Any, entity: str, namespace: str, timeout: float) -> str:
    """The command topic of ``entity`` under ``namespace``; :class:`UserError` naming the live
    robots (or the namespace it runs under) when there is none."""
    topic = resolve(namespace, entity, COMMAND_TOPIC)
    if not spin_until(node, lambda: bool(live_command_topics(node)), timeout):
        raise Unreachable(f'no simulation found: nothing subscribes to any */{COMMAND_TOPIC} '
                          f'after {timeout:g} s (is `scene-sim-ros run` going, on this '
                          'ROS_DOMAIN_ID?)')
    spin_until(node, lambda: topic in live_command_topics(node), 1.0)  # late discoveries
    topics = live_command_topics(node)
    if topic in topics:
        return topic
    robots = [t[:-len('/' + COMMAND_TOPIC)] for t in topics]
    elsewhere = [r for r in robots if r.rsplit('/', 1)[-1] == entity]
    if elsewhere:
        namespaces = [r[:-len(entity) - 1] or '/' for r in elsewhere]
        raise UserError(f'no entity {entity!r} under namespace {resolve(namespace)}; it runs '
                        f'under {" and ".join(namespaces)}: use --namespace {namespaces[0]}')
    here = [r[len(resolve(namespace)):].strip('/') for r in robots
            if resolve(namespace) == '/' or r.startswith(resolve(namespace) + '/')]
    listing = ', '.join(here) if here else 'none under this namespace (' + ', '.join(robots) + ')'
    raise UserError(f'no robot {entity!r} takes joint commands; live robots: {listing}')


def movable_joints(node: Any, namespace: str, entity: str, timeout: float = 3.0) -> list[str] | None:
    """The movable joints of ``entity``: from its URDF, else its joint states; None if neither
    arrives within ``timeout`` seconds."""
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from std_msgs.msg import String

    from scene_sim_ros.cli.client.session import matching_qos
    received: list[Any] = []
    description = resolve(namespace, entity, 'robot_description')
    sub = node.create_subscription(String, description, received.append,
                                   QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    spin_until(node, lambda: bool(received), timeout)
    node.destroy_subscription(sub)
    if received:
        try:
            root = ET.fromstring(received[0].data)
            return [name for j in root.iter('joint')
                    if (name := j.get('name')) is not None
                    and j.get('type') not in ('fixed', 'floating', 'planar')]
        except ET.ParseError:
            pass
    from sensor_msgs.msg import JointState
    states = resolve(namespace, entity, 'joint_states')
    sub = node.create_subscription(JointState, states, received.append,
                                   matching_qos(node, states))
    received.clear()
    spin_until(node, lambda: bool(received), timeout)
    node.destroy_subscription(sub)
    return list(received[0].name) if received else None


class RejectionCounter:
    """The node's latched count of rejected commands."""

    def __init__(self, node: Any, namespace: str) -> None:
        from rclpy.qos import DurabilityPolicy, QoSProfile
        from std_msgs.msg import UInt64
        self.node = node
        self.topic = resolve(namespace, 'scene_sim', 'rejected_commands')
        self.value: int | None = None
        node.create_subscription(UInt64, self.topic, self._on_count,
                                 QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))

    def _on_count(self, msg: Any) -> None:
        self.value = int(msg.data)

    def read(self, timeout: float) -> int | None:
        spin_until(self.node, lambda: self.value is not None, timeout)
        return self.value


def send(entity: str, assignments: list[str], kind: str = 'position', namespace: str = '/',
         timeout: float = 10.0, check: bool = True) -> int:
    """Publish one ``sensor_msgs/JointState`` on ``<namespace>/<entity>/joint_commands``."""
    from rclpy.qos import qos_profile_system_default
    from sensor_msgs.msg import JointState
    try:
        pairs = parse_assignments(assignments)
    except BadValue as err:
        raise UserError(str(err)) from None
    with client_node('scene_sim_ros_send') as node:
        topic = find_entity(node, entity, namespace, timeout)
        if check:
            joints = movable_joints(node, namespace, entity)
            if joints is None:
                print(f'warning: could not read the joints of {entity}; sending unchecked',
                      file=sys.stderr)
            else:
                unknown = [name for name, _ in pairs if name not in joints]
                if unknown:
                    raise UserError(f'{entity} has no movable joint {", ".join(unknown)}; its '
                                    f'movable joints: {", ".join(joints) or "none"}')
        counter = RejectionCounter(node, namespace)
        before = counter.read(2.0)
        publisher = node.create_publisher(JointState, topic, qos_profile_system_default)
        if not spin_until(node, lambda: publisher.get_subscription_count() > 0, timeout):
            raise Unreachable(f'nobody subscribes to {topic} any more')
        msg = JointState(name=[name for name, _ in pairs])
        setattr(msg, kind, [value for _, value in pairs])
        publisher.publish(msg)
        sent = ' '.join(f'{name}={value:g}' for name, value in pairs)
        if before is None:
            time.sleep(0.3)  # let the message leave before the node goes away
            print(f'sent {kind} {sent} to {topic} (acceptance unknown: nothing on '
                  f'{counter.topic})')
            return 0
        spin_until(node, lambda: (counter.value or 0) > before, CONFIRM_WAIT)
        if (counter.value or 0) > before:
            print(f'rejected: the simulation refused {kind} {sent} on {topic} (its log says '
                  f'why; {counter.value} rejected so far)', file=sys.stderr)
            return 1
    print(f'sent {kind} {sent} to {topic}: accepted')
    return 0
