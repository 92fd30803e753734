"""Entity wiring: an entity in the simulation gets its bridge (topics), its trajectory action,
and its frames on ``/tf`` (moving) and ``/tf_static`` (fixed), and loses them when removed.
Once the node runs, both happen on the physics thread (the spawn and delete services)."""

from __future__ import annotations

from collections.abc import Sequence

from ..scene import Entity
from .bridge import EntityBridge
from .host import NodeHost
from .step_loop import StepLoop
from .tf import EntityFrames, StaticTransforms, entity_frames, set_transform
from .trajectory_action import TrajectoryActions


class EntityWiring:
    def __init__(self, node: NodeHost, loop: StepLoop, static_tf: StaticTransforms, *,
                 link_tf: bool):
        self._node = node
        self._loop = loop
        self._static_tf = static_tf
        self._link_tf = link_tf
        self.bridges: dict[str, EntityBridge] = {}
        self.trajectory_actions = TrajectoryActions(node)

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
        """Take down the topics and frames of entity ``name``."""
        bridge = self.bridges.pop(name)
        self.trajectory_actions.detach(name)
        self._loop.set_bridges(self.bridges)
        self._loop.dynamic_tf.set_entities(self._moving_frames())
        self._static_tf.remove(bridge.static_frames)
        bridge.destroy()

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
            from ..sim.urdf import entity_to_urdf
        except ImportError as err:
            log.warning(f'no robot_description: {err}')
            return
        for bridge in robots:
            try:
                bridge.publish_description(entity_to_urdf(bridge.entity))
            except Exception as err:  # noqa: BLE001 - a URDF problem must not stop the node
                log.error(f'{bridge.name}: no robot_description: {err}')
