"""Entity wiring: an entity in the simulation gets its bridge (topics), its trajectory action,
and its frames on ``/tf`` (moving) and ``/tf_static`` (fixed), and loses them when removed.
Once the node runs, both happen on the physics thread (the spawn and delete services), except
destroying a removed entity's subscriptions, publishers and action server: that waits for the
executor's thread, which may be using them in its wait set (destroying them under it raised
InvalidHandle and ended the node after a few hundred spawn/delete cycles; ros2/rclpy#1206).
Then the node's default callback group forgets them: rclpy keeps a weak reference to every
endpoint and QoS event handler in its group and never drops the dead ones (ros2/rclpy#1356),
about 38 per spawned car, 3 KB per spawn/delete cycle without end. (The executor holds the
endpoints of its last wait a little longer: those go at the next delete.)"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scene_sim_ros.ros.bridge.described_files import DescribedFiles
from scene_sim_ros.ros.bridge.entity_bridge import EntityBridge
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.tf import EntityFrames, StaticTransforms, entity_frames, set_transform
from scene_sim_ros.ros.bridge.trajectory_action import TrajectoryActions
from scene_sim_ros.ros.runtime.step_loop import StepLoop
from scene_sim_ros.scene import Entity


class EntityWiring:
    def __init__(self, node: NodeHost, loop: StepLoop, static_tf: StaticTransforms, *,
                 link_tf: bool):
        self._node = node
        self._loop = loop
        self._static_tf = static_tf
        self._link_tf = link_tf
        self.bridges: dict[str, EntityBridge] = {}
        self.trajectory_actions = TrajectoryActions(node)
        self.described_files = DescribedFiles()   # what the live view may serve (fetchAsset)
        self._retired: list[Callable[[], None]] = []  # destroy() of what removed entities had
        self._retired_lock = threading.Lock()
        self._reaper = node.create_guard_condition(self._destroy_retired)

    def add(self, entity: Entity) -> EntityBridge:
        """Bridge an entity that is in the simulation (topics, TF)."""
        node = self._node
        bridge = EntityBridge(node, entity)
        self.bridges[entity.name] = bridge
        self.trajectory_actions.attach(bridge)  # <entity>/joint_trajectory_controller/...
        self._loop.set_bridges(self.bridges)
        frames = entity_frames(entity, node.frames, links=self._link_tf)
        bridge.frames = frames
        static = list(frames.static)
        # a static compound (or a fixed-base body without joints) never moves: /tf_static
        bridge.moves = not (entity.kind == 'static'
                            or entity.fixed_base and not entity.movable_joints)
        if not bridge.moves:
            position, orientation = node.sim.get_pose(entity.name)
            set_transform(frames.root, position, orientation)
            static.insert(0, frames.root)
        bridge.static_frames = [t.child_frame_id for t in static]
        if static:
            self._static_tf.set(static, node.stepper.time)
        self._loop.dynamic_tf.set_entities(self._moving_frames())
        return bridge

    def remove(self, name: str) -> None:
        """Take down the topics and frames of entity ``name`` (after its last camera frames are
        out: their publishers are about to go)."""
        self._node.drain_frames()
        bridge = self.bridges.pop(name)
        server = self.trajectory_actions.servers.pop(name, None)
        self._loop.set_bridges(self.bridges)
        self._loop.dynamic_tf.set_entities(self._moving_frames())
        self._static_tf.remove(bridge.static_frames)
        self.retire([bridge.destroy] if server is None else [server.destroy, bridge.destroy])

    def retire(self, destroyers: Iterable[Callable[[], None]]) -> None:
        """Have the executor's thread call ``destroyers`` (each takes endpoints down) soon."""
        with self._retired_lock:
            self._retired += destroyers
        self._reaper.trigger()

    def _destroy_retired(self) -> None:
        """The executor's thread: no wait set holds the retired endpoints now."""
        with self._retired_lock:
            retired, self._retired = self._retired, []
        for destroy in retired:
            try:
                destroy()
            except Exception as err:  # noqa: BLE001 - one failure must not end the node
                self._node.get_logger().error(f'destroying an endpoint of a removed entity: {err}')
        retired.clear()  # no reference to a destroyed endpoint left here
        forget_destroyed(self._node.ros_node.default_callback_group)

    def _moving_frames(self) -> list[EntityFrames]:
        """The frames of the entities on /tf (a bridge has its frames once added)."""
        return [b.frames for b in self.bridges.values() if b.moves and b.frames is not None]

    def publish_descriptions(self, bridges: Sequence[EntityBridge]) -> None:
        """``<entity>/robot_description`` (the URDF) of every robot among ``bridges``."""
        robots = [b for b in bridges if b.is_robot]
        if not robots:
            return
        log = self._node.get_logger()
        try:
            from scene_sim_ros.sim.urdf import entity_to_urdf
        except ImportError as err:
            log.warning(f'no robot_description: {err}')
            return
        for bridge in robots:
            try:
                urdf = entity_to_urdf(bridge.entity)
                self.described_files.add_urdf(urdf)
                bridge.publish_description(urdf)
            except Exception as err:  # noqa: BLE001 - a URDF problem must not stop the node
                log.error(f'{bridge.name}: no robot_description: {err}')


def forget_destroyed(group: Any) -> None:
    """Drop the references to destroyed endpoints that rclpy's callback ``group`` keeps
    (ros2/rclpy#1356). Safe beside a thread adding endpoints to it: both are single set
    operations under the GIL (a dead weak reference keeps its hash)."""
    group.entities.difference_update([ref for ref in list(group.entities) if ref() is None])
