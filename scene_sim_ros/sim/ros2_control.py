"""The ``<ros2_control>`` tag of an entity's URDF for PickNik's ``topic_based_ros2_control``
(``TopicBasedSystem``, the hardware interface Isaac Sim and Genesis users drive simulations
with): ``controller_manager`` then runs on a ROS distribution and talks to the node through two
topics.

The contract, read from the plugin's source (src/topic_based_system.cpp, 0.3.0): every
``write()`` publishes one sensor_msgs/JointState on ``joint_commands_topic`` (reliable, depth 1)
naming every joint of the tag in tag order, with ``position``/``velocity``/``effort`` holding
one value for each joint that has that command interface, in the same order (an array is
shorter than ``name`` when the joints' interfaces differ); ``read()`` takes the newest message
on ``joint_states_topic`` (SensorDataQoS: best effort) and copies position, velocity and effort
of the joints it names, ignoring unknown ones. Each joint gets exactly one command interface,
the one its motor takes natively (:func:`~..scene.motors.command_interface`), so that a value
is never sent for an interface no controller claimed; the initial position is the
``initial_value`` of the position state (the plugin sends it until a controller commands)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from scene_sim_ros.scene import Entity, command_interface

PLUGIN = 'topic_based_ros2_control/TopicBasedSystem'


def ros2_control_tag(entity: Entity, commands_topic: str, states_topic: str) -> list[str]:
    """The tag's lines (indented for a ``<robot>``), one ``<joint>`` per movable joint."""
    lines = [f'  <ros2_control name={quoteattr(entity.name)} type="system">',
             '    <hardware>',
             f'      <plugin>{PLUGIN}</plugin>',
             f'      <param name="joint_commands_topic">{escape(commands_topic)}</param>',
             f'      <param name="joint_states_topic">{escape(states_topic)}</param>',
             '    </hardware>']
    for joint in entity.movable_joints:
        lines += [f'    <joint name={quoteattr(joint.name)}>',
                  f'      <command_interface name="{command_interface(joint.motor)}"/>',
                  '      <state_interface name="position">',
                  f'        <param name="initial_value">{joint.initial_position!r}</param>',
                  '      </state_interface>',
                  '      <state_interface name="velocity"/>',
                  '      <state_interface name="effort"/>',
                  '    </joint>']
    lines.append('  </ros2_control>')
    return lines
