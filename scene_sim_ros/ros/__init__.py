"""The ROS 2 layer, by concern: :mod:`.runtime` (the node, its physics thread, parameters and
start-up), :mod:`.bridge` (each entity's topics, TF, commands and trajectory action),
:mod:`.supervisor` (the ``simulation_interfaces`` services) and :mod:`.outputs` (the tap, MCAP
recording and the Foxglove live view).

The only part of the package that imports rclpy, with the CLI on top of it; everything below
(``formats``, ``scene``, ``sim``) runs without ROS.
"""
