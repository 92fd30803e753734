"""Names and types of what the supervisor serves (pure Python: ``scene-sim-ros topics`` lists
them without importing rclpy; :mod:`.services` and :mod:`.actions` create them from here)."""

from __future__ import annotations

# (service name relative to the node's namespace, simulation_interfaces service type)
CORE_SERVICES: tuple[tuple[str, str], ...] = (
    ('get_simulator_features', 'GetSimulatorFeatures'),
    ('get_simulation_state', 'GetSimulationState'),
    ('set_simulation_state', 'SetSimulationState'),
    ('step_simulation', 'StepSimulation'),
    ('reset_simulation', 'ResetSimulation'),
    ('get_entities', 'GetEntities'),
    ('get_entity_info', 'GetEntityInfo'),
    ('get_entity_state', 'GetEntityState'),
    ('get_entities_states', 'GetEntitiesStates'),
    ('set_entity_state', 'SetEntityState'),
    ('spawn_entity', 'SpawnEntity'),
    ('delete_entity', 'DeleteEntity'),
)

WORLD_SERVICES: tuple[tuple[str, str], ...] = (
    ('get_available_worlds', 'GetAvailableWorlds'),
    ('get_current_world', 'GetCurrentWorld'),
    ('load_world', 'LoadWorld'),
    ('unload_world', 'UnloadWorld'),
)

SCENE_SERVICES: tuple[tuple[str, str], ...] = (
    ('get_spawnables', 'GetSpawnables'),
    ('spawn_entities', 'SpawnEntities'),
    ('get_entity_bounds', 'GetEntityBounds'),
    ('get_named_poses', 'GetNamedPoses'),
    ('get_named_pose_bounds', 'GetNamedPoseBounds'),
    ('set_entity_info', 'SetEntityInfo'),
)

STANDARD_SERVICES = CORE_SERVICES + WORLD_SERVICES + SCENE_SERVICES
"""All 22 services of the standard (names as O3DE and Isaac Sim serve them)."""

ACTIONS: tuple[tuple[str, str], ...] = (('simulate_steps', 'SimulateSteps'),)

# Webots-Supervisor extras under the node's private namespace: (direction, name, type)
EXTRA_TOPICS: tuple[tuple[str, str, str], ...] = (
    ('sub', 'apply_wrench', 'geometry_msgs/msg/WrenchStamped'),
    ('sub', 'reset_entity', 'std_msgs/msg/String'),
    ('sub', 'set_joint_positions', 'sensor_msgs/msg/JointState'),
    ('sub', 'scene_camera/viewpoint', 'geometry_msgs/msg/PoseStamped'),
    ('pub', 'scene_camera/image_raw', 'sensor_msgs/msg/Image'),
)

# Per-entity extras, only for the entities in the supervisor_topics parameter: (suffix, type)
ENTITY_EXTRA_TOPICS: tuple[tuple[str, str], ...] = (
    ('center_of_mass', 'geometry_msgs/msg/PointStamped'),
    ('contacts', 'sensor_msgs/msg/PointCloud2'),
)
