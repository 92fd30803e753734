"""The simulator: the engine-neutral core and the engines behind it.

:class:`.simulator.Simulator` is what a simulator offers (the ROS layer, sensors, batch and the
supervisor use nothing else); :mod:`.engines.pybullet` implements it with PyBullet
(``scene_sim_ros.Simulation``). Engine-neutral modules: ``link_layout`` (link order and parts of
an entity), ``materials`` (friction fit), ``motors`` (SimRobot motor models), ``mobile_base``,
``urdf`` (URDF export), ``ros2_control``, ``sensors`` (sensor readers), ``render`` (the GL
renderer, which only takes poses). No rclpy below this package; nothing outside
``sim/engines/<engine>/`` imports the engine.
"""
