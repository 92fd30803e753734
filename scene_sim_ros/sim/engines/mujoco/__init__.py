"""The MuJoCo engine: SimRobot Core3's own physics, built as Core3 builds it (MjSpec from the
scene model, Euler, Newton with 50 iterations, one collision group per robot) and stepped with
Core3's explicit servo law vectorised over the world (:mod:`scene_sim_ros.sim.explicit_servos`).
Select it with ``create_simulator(scene, 'mujoco')`` (``--engine mujoco``)."""
