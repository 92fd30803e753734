"""robot_state_publisher for every robot of a scene: what each one needs, for
``scene-sim-ros run --robot-state-publisher`` (``ros2 run`` processes) and for ``sim.launch.py
robot_state_publisher:=true`` (launch_ros Node actions) alike.

Each robot's publisher runs in ``<namespace>/<entity>`` (where the node publishes the entity's
``joint_states``), with the entity's URDF, its frames prefixed as the node prefixes them, and,
for an isolated instance, the remappings that put it on the instance's ``/tf`` and ``/clock``.
Loading the scene and writing the URDF are pure Python: no simulation is started.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scene_sim_ros.ros.bridge.names import instance_frame_prefix, isolation_remappings


@dataclass(frozen=True)
class RobotStatePublisher:
    entity: str
    urdf: str
    namespace: str
    """Relative (``sim/rover``): a launch file included under a namespace pushes it further."""
    remappings: tuple[tuple[str, str], ...]
    frame_prefix: str
    use_sim_time: bool

    def parameters(self) -> dict[str, str | bool]:
        return {'robot_description': self.urdf, 'frame_prefix': self.frame_prefix,
                'use_sim_time': self.use_sim_time}

    def ros_arguments(self) -> list[str]:
        """After ``--ros-args`` of ``ros2 run robot_state_publisher robot_state_publisher URDF``
        (the URDF file is its argument)."""
        remaps = [argument for old, new in self.remappings for argument in ('-r', f'{old}:={new}')]
        return ['-r', f'__ns:=/{self.namespace}', *remaps,
                '-p', f'frame_prefix:={self.frame_prefix}',
                '-p', f'use_sim_time:={str(self.use_sim_time).lower()}']


def robot_state_publishers(scene: str | None, *, namespace: str, isolate: bool,
                           use_sim_time: bool, scene_parameters: Mapping[str, str] | None = None
                           ) -> list[RobotStatePublisher]:
    """One per robot of ``scene`` (a file; None or empty: the bundled default scene) as the node
    runs it in ``namespace`` (``isolate``: an isolated instance)."""
    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.resources import default_scene_path
    from scene_sim_ros.sim.urdf import entity_to_urdf

    loaded = load_scene(scene or default_scene_path(),
                        parameters=None if scene_parameters is None else dict(scene_parameters))
    namespace = namespace.strip('/')
    prefix = instance_frame_prefix(namespace, isolate)
    remappings = tuple(isolation_remappings(namespace, isolate))
    return [RobotStatePublisher(entity.name, entity_to_urdf(entity),
                                '/'.join(part for part in (namespace, entity.name) if part),
                                remappings, f'{prefix}{entity.name}/', use_sim_time)
            for entity in loaded.entities if entity.kind == 'robot']
