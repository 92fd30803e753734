"""What ``get_simulator_features`` advertises: exactly what the supervisor implements (each
code here has a handler and a test in test/ros/test_supervisor*.py)."""

from __future__ import annotations

from simulation_interfaces.msg import SimulatorFeatures

from scene_sim_ros.formats import FORMATS

F = SimulatorFeatures

SUPPORTED = (
    F.SPAWNING, F.DELETING, F.SPAWNING_RESOURCE_STRING,
    F.ENTITY_TAGS, F.ENTITY_CATEGORIES,
    F.ENTITY_STATE_GETTING, F.ENTITY_STATE_SETTING, F.ENTITY_INFO_GETTING,
    F.SIMULATION_RESET, F.SIMULATION_RESET_STATE, F.SIMULATION_RESET_SPAWNED,
    F.SIMULATION_STATE_GETTING, F.SIMULATION_STATE_SETTING, F.SIMULATION_STATE_PAUSE,
    F.STEP_SIMULATION_SINGLE, F.STEP_SIMULATION_MULTIPLE, F.STEP_SIMULATION_ACTION,
    F.NAMED_POSES, F.POSE_BOUNDS, F.ENTITY_BOUNDS, F.ENTITY_BOUNDS_BOX, F.ENTITY_BOUNDS_CONVEX,
    F.ENTITY_INFO_SETTING,
    F.SPAWNABLES, F.SPAWNING_ENTITIES,
    F.WORLD_LOADING, F.WORLD_RESOURCE_STRING, F.WORLD_TAGS, F.WORLD_UNLOADING,
    F.WORLD_INFO_GETTING, F.AVAILABLE_WORLDS,
)
"""Not offered: SCOPE_TIME resets (sim time never goes back)."""

SPAWN_FORMATS = tuple(FORMATS)
"""SimRobot fragments inline; an entity of a scene file of any of these formats by uri#entity."""

CUSTOM_INFO = (
    'scene_sim_ros (PyBullet). spawn: a SimRobot <Body>/<Compound> fragment inline or in a '
    'file, or "file#entity" for one entity of any scene file the node loads (.ros2/.rsi2/.ros3, '
    '.wbt, Simox/RaiSim .xml, .urdf). Reference frames: "" or "world", an entity name, '
    '"entity/link". Resets keep /clock increasing. Extras: see docs/supervisor.md.')


def simulator_features() -> SimulatorFeatures:
    """The same features with either release of the definitions (see :mod:`.compat`);
    ``custom_info`` says which one the node serves and how set_entity_state reads it."""
    from scene_sim_ros.ros.supervisor.compat import GENERATION, STATE_FLAGS
    how = ('set_entity_state: set_pose/set_twist flags' if STATE_FLAGS
           else 'set_entity_state sets pose and twist')
    return SimulatorFeatures(features=list(SUPPORTED), spawn_formats=list(SPAWN_FORMATS),
                             custom_info=f'{CUSTOM_INFO} simulation_interfaces {GENERATION} '
                                         f'({how}).')
