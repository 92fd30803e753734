"""The node as the robot description and the supervisor use it (a Protocol, see :mod:`.host`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from scene_sim_ros.ros.bridge.entity_bridge import EntityBridge
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.tf import StaticTransforms
from scene_sim_ros.scene import Entity, Scene


class BridgedNode(NodeHost, Protocol):
    """The node as the robot description and the supervisor use it: the scene's entities and
    their bridges, adding and removing them, TF."""

    scene: Scene
    scene_path: Path
    static_tf: StaticTransforms
    robot_description_publishers: tuple[Any, Any]

    @property
    def bridges(self) -> dict[str, EntityBridge]: ...

    def add_entity(self, entity: Entity) -> EntityBridge: ...
    def remove_entity(self, name: str) -> None: ...
    def retire(self, destroyers: Iterable[Callable[[], None]]) -> None: ...
    def publish_tf(self, t: float, step: int | None) -> None: ...
    def declare_string_array(self, name: str, default: list[str], described: Any) -> None: ...
    def world_changed(self) -> None: ...
    def republish_robot_description(self) -> None: ...

    # rclpy's Node
    def set_parameters(self, *args: Any, **kwargs: Any) -> Any: ...
    def create_service(self, *args: Any, **kwargs: Any) -> Any: ...
    def destroy_service(self, *args: Any, **kwargs: Any) -> Any: ...
