"""ROS 2 client commands of ``scene-sim-ros`` for machines without ros2cli.

Each module serves one concern and is imported only when its command runs (rclpy loads lazily,
so ``scene-sim-ros inspect`` stays fast):

- :mod:`.values`      parse command-line values (YAML-ish scalars, arrays, joint values, poses);
                      pure Python
- :mod:`.session`     a short-lived client node: discovery waits, service calls, QoS matching,
                      :class:`UserError` (one line on stderr, exit 2)
- :mod:`.messages`    any message to plain data / YAML, generically (rosidl introspection)
- :mod:`.topic_tools` ``echo``, ``hz``
- :mod:`.supervisor_tools` ``pause``, ``play``, ``step``, ``reset``, ``state``, ``entities``,
                      ``spawn``, ``delete``, ``set-pose`` (simulation_interfaces services)
- :mod:`.param_tools` ``param get|set|list`` (rcl_interfaces services)
- :mod:`.send`        ``send``: checked joint commands, acceptance read back from the node
"""
