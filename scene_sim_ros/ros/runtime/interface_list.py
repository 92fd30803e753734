"""What ``scene-sim-ros run`` publishes and subscribes for a scene, as text (``scene-sim-ros
topics``). No node needed: from the same naming rules the node uses (:mod:`scene_sim_ros.ros.bridge.names`,
the sensors' topics as their adapters declare them)."""

from __future__ import annotations

from collections.abc import Sequence

from scene_sim_ros.ros.bridge.names import (
    SUBSCRIBED_SUFFIXES,
    TRAJECTORY_CONTROLLER,
    ros_name,
    sensor_groups,
)
from scene_sim_ros.ros.options import DEFAULT_FORWARD_CONTROLLERS
from scene_sim_ros.ros.supervisor.catalog import ACTIONS, ENTITY_EXTRA_TOPICS, EXTRA_TOPICS, STANDARD_SERVICES
from scene_sim_ros.scene import Entity, Scene
from scene_sim_ros.sim.mobile_base import find_diff_drive

NODE = '/scene_sim'


def interface_rows(scene: Scene, namespace: str = '', *, cmd_vel_stamped: bool = True,
                   supervisor_topics: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """(direction 'pub'/'sub', topic, message type) rows of the topics; the keywords are the
    node parameters of the same names."""
    ns = '/' + namespace.strip('/') if namespace.strip('/') else ''
    rows = [('pub', '/clock', 'rosgraph_msgs/msg/Clock'),
            ('pub', '/tf', 'tf2_msgs/msg/TFMessage'),
            ('pub', '/tf_static', 'tf2_msgs/msg/TFMessage'),
            ('pub', f'{ns}{NODE}/rejected_commands', 'std_msgs/msg/UInt64'),
            ('pub', f'{ns}{NODE}/publish_errors', 'std_msgs/msg/UInt64')]
    for entity in scene.entities:
        if entity.kind != 'robot':
            continue
        base = f'{ns}/{ros_name(entity.name)}'
        rows.append(('pub', f'{base}/joint_states', 'sensor_msgs/msg/JointState'))
        rows.append(('pub', f'{base}/robot_description', 'std_msgs/msg/String'))
        if entity.movable_joints:
            rows.append(('sub', f'{base}/joint_commands', 'sensor_msgs/msg/JointState'))
            rows.append(('sub', f'{base}/joint_trajectory',
                         'trajectory_msgs/msg/JointTrajectory'))
            rows += [('sub', f'{base}/{c}/commands', 'std_msgs/msg/Float64MultiArray')
                     for c in DEFAULT_FORWARD_CONTROLLERS]
            rows += [('action', f'{base}/{TRAJECTORY_CONTROLLER}/follow_joint_trajectory',
                      'control_msgs/action/FollowJointTrajectory'),
                     ('pub', f'{base}/{TRAJECTORY_CONTROLLER}/controller_state',
                      'control_msgs/msg/JointTrajectoryControllerState')]
        for group in sensor_groups(entity):
            for suffix, msg_type in group.suffixes:
                direction = 'sub' if suffix in SUBSCRIBED_SUFFIXES else 'pub'
                rows.append((direction, f'{base}/{group.topic}/{suffix}', msg_type))
        rows += mobile_base_rows(entity, base, cmd_vel_stamped)
    robots = [e for e in scene.entities if e.kind == 'robot']
    if len(robots) == 1:  # the default of robot_description_entity: the only robot
        rows += [('pub', f'{ns}/robot_description', 'std_msgs/msg/String'),
                 ('pub', f'{ns}/joint_states', 'sensor_msgs/msg/JointState')]
    for entity in scene.entities:
        if entity.name in supervisor_topics:
            base = f'{ns}/{ros_name(entity.name)}'
            rows += [('pub', f'{base}/{suffix}', msg_type)
                     for suffix, msg_type in ENTITY_EXTRA_TOPICS]
    return rows


def mobile_base_rows(entity: Entity, base: str, stamped: bool = True
                     ) -> list[tuple[str, str, str]]:
    """Odometry of a free robot, cmd_vel of one with a differential drive in the scene (what
    the node serves with the default ``mobile_bases.*`` parameters)."""
    if entity.kind != 'robot' or entity.fixed_base:
        return []
    rows = [('pub', f'{base}/odom', 'nav_msgs/msg/Odometry'),
            ('pub', f'{base}/ground_truth', 'nav_msgs/msg/Odometry')]
    if find_diff_drive(entity) is not None:
        rows.append(('sub', f'{base}/cmd_vel', 'geometry_msgs/msg/TwistStamped' if stamped
                     else 'geometry_msgs/msg/Twist'))
    return rows


def supervisor_rows(namespace: str = '') -> list[tuple[str, str, str]]:
    """('srv'/'action'/'pub'/'sub', name, type) rows of the supervisor's services, action and
    extra topics (the same for every scene)."""
    ns = '/' + namespace.strip('/') if namespace.strip('/') else ''
    rows = [('srv', f'{ns}/{name}', f'simulation_interfaces/srv/{kind}')
            for name, kind in STANDARD_SERVICES]
    rows += [('action', f'{ns}/{name}', f'simulation_interfaces/action/{kind}')
             for name, kind in ACTIONS]
    rows += [(direction, f'{ns}{NODE}/{name}', kind) for direction, name, kind in EXTRA_TOPICS]
    return rows


def controller_layouts(scene: Scene, namespace: str = '') -> dict[str, list[str]]:
    """Topic of each forward controller -> the joints its ``data`` array commands, in order
    (the default of ``controllers.<entity>.<controller>.joints``: the movable joints in scene
    order)."""
    ns = '/' + namespace.strip('/') if namespace.strip('/') else ''
    return {f'{ns}/{ros_name(e.name)}/{c}/commands': [j.name for j in e.movable_joints]
            for e in scene.entities if e.kind == 'robot' and e.movable_joints
            for c in DEFAULT_FORWARD_CONTROLLERS}


def interface_listing(scene: Scene, namespace: str = '') -> str:
    """One line per interface: ``pub|sub|srv|action  /name  package/kind/Type``; forward
    controller topics also name their joint order."""
    rows = interface_rows(scene, namespace) + supervisor_rows(namespace)
    layouts = controller_layouts(scene, namespace)
    width = max(len(topic) for _, topic, _ in rows)
    return '\n'.join(
        f'{direction:<6}  {topic:<{width}}  {msg_type}'
        + (f'  data = [{", ".join(layouts[topic])}]' if topic in layouts else '')
        for direction, topic, msg_type in rows)
