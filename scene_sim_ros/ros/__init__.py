"""The ROS 2 layer: the simulation node, its message adapters, TF, commands and the supervisor.

The only part of the package that imports rclpy; everything below it (``formats``, ``scene``,
``sim``) runs without ROS.
"""
