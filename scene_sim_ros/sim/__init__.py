"""PyBullet backend: world building, stepping, motor models, sensor readout, supervisor operations.

:class:`scene_sim_ros.sim.simulation.Simulation` is the entry point (also importable as
``scene_sim_ros.Simulation``). Modules: ``builder`` (scene model -> multibodies), ``shapes``
(shared collision/visual shapes), ``materials`` (friction fit), ``motors`` (SimRobot motor
models), ``urdf`` (URDF export), ``sensors`` (sensor readers). No rclpy below this package.
"""
