"""One entity's ROS face: joint states, robot_description, commands and sensor adapters.

All topics are relative and start with the entity name (``robot1/joint_states``), so the node's
namespace (``__ns``, a launch ``namespace``) moves them all. A bridge is created and destroyed
on the physics thread once the node runs (spawn/delete services use the same path); its
subscription callbacks run on the executor thread, check the message, and queue the command for
the next step boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters import ADAPTERS, OPTICAL_KINDS, AdapterSettings, SensorAdapter
from scene_sim_ros.ros.bridge.adapters.base import release_endpoints
from scene_sim_ros.ros.bridge.commands import (
    CommandRejected,
    JointCommand,
    Trajectory,
    forward_commands,
    joint_state_commands,
    trajectory,
)
from scene_sim_ros.ros.bridge.conversions import joint_state_message, stamp_seconds
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.mobile_base import MobileBase, is_mobile
from scene_sim_ros.ros.bridge.names import ros_name, sensor_groups
from scene_sim_ros.ros.bridge.tf import EntityFrames
from scene_sim_ros.ros.serialized import MessageTemplate
from scene_sim_ros.scene import Entity, command_interface


class EntityBridge:
    """Publishers, subscriptions and adapters of one entity (robots get all, objects none)."""

    def __init__(self, node: NodeHost, entity: Entity):
        self.node = node
        self.entity = entity
        self.name = entity.name
        self.topic = ros_name(entity.name)
        self.is_robot = entity.kind == 'robot'
        self.joint_names = [j.name for j in entity.movable_joints]
        self._known_joints = {name: None for name in self.joint_names}
        self._native_interfaces = {j.name: command_interface(j.motor)
                                   for j in entity.movable_joints}
        self.positions = np.zeros(len(self.joint_names))
        self._velocities = np.zeros(len(self.joint_names))
        self._efforts = np.zeros(len(self.joint_names))
        self._sample_step = -1
        self.publishers: list[Any] = []
        self.subscriptions: list[Any] = []
        self.adapters: list[SensorAdapter] = []
        self.trajectory: Trajectory | None = None
        self._frames: EntityFrames | None = None
        self.static_frames: list[str] = []  # child frames this entity put on /tf_static
        self.moves = True  # false: the root is on /tf_static, not /tf
        self.mobile_base: MobileBase | None = None  # odometry and cmd_vel of a free robot
        if self.is_robot:
            self._create_joint_interfaces()
            self._create_adapters()
            if is_mobile(entity):
                self.mobile_base = MobileBase(node, entity, self.topic)

    @property
    def frames(self) -> EntityFrames | None:
        """The entity's TF frames (set by the node); a mobile base with odometry re-parents
        its root under ``<entity>/odom`` when they are set."""
        return self._frames

    @frames.setter
    def frames(self, frames: EntityFrames | None) -> None:
        base = self.mobile_base
        if frames is not None and base is not None and base.publish_odometry:
            frames.use_odometry(base.odom_frame, base, base_tf=base.publish_tf)
        self._frames = frames

    # --- construction ------------------------------------------------------------------------

    def _create_joint_interfaces(self) -> None:
        node = self.node
        msg = joint_state_message(self.joint_names)
        zeros = [0.0] * len(self.joint_names)
        msg.position, msg.velocity, msg.effort = zeros, zeros, zeros
        # serialized once, the numbers patched per publication (see .serialized)
        self._joint_state = MessageTemplate(msg, ('position', 'velocity', 'effort'))
        self.joint_state_publisher = self._publisher(JointState, 'joint_states', qos.SENSOR)
        self._joint_state_rate = node.rate_limiter(node.publish_rate('joint_states'))
        self.description_publisher = self._publisher(String, 'robot_description', qos.LATCHED)
        if not self.joint_names:
            return
        self._subscribe(JointState, 'joint_commands', self._on_joint_state)
        self._subscribe(JointTrajectory, 'joint_trajectory', self._on_trajectory)
        for controller in node.forward_controllers:
            joints = node.controller_joints(self.entity, controller)
            interface = node.controller_interface(self.entity, controller)
            self._subscribe(Float64MultiArray, f'{ros_name(controller)}/commands',
                            self._forward_callback(controller, joints, interface))

    def _publisher(self, msg_type: Any, suffix: str, profile: Any) -> Any:
        publisher = self.node.create_publisher(msg_type, f'{self.topic}/{suffix}', profile)
        self.publishers.append(publisher)
        return publisher

    def _subscribe(self, msg_type: Any, suffix: str, callback: Any) -> None:
        self.subscriptions.append(self.node.create_subscription(
            msg_type, f'{self.topic}/{suffix}', callback, qos.COMMAND))

    def _create_adapters(self) -> None:
        for group in sensor_groups(self.entity):
            if group.first.kind not in ADAPTERS:
                self.node.get_logger().warning(
                    f'{self.name}/{group.first.name}: no ROS adapter for {group.first.kind} '
                    'sensors')
                continue
            sensor = group.sensors if len(group.sensors) > 1 else group.first
            self._add_adapter(sensor, group.first, group.topic)

    def _add_adapter(self, sensor: Any, first: Any, default_topic: str) -> None:
        node = self.node
        adapter = ADAPTERS[first.kind]()
        override = node.sensor_override(self.entity, first.name)
        topic = override.topic or f'{self.topic}/{default_topic}'
        sensor_frame = node.frames.sensor(self.entity, first.name)
        frame_id = (node.frames.optical(self.entity, first.name) if first.kind in OPTICAL_KINDS
                    else sensor_frame)
        rate = (override.rate if override.rate >= 0.0
                else adapter.scene_rate(first) or node.publish_rate(adapter.rate_key))
        adapter.init(node, self.entity, sensor,
                     AdapterSettings(topic=topic, rate=rate, frame_id=frame_id,
                                     sensor_frame=sensor_frame))
        self.adapters.append(adapter)

    def publish_description(self, urdf: str) -> None:
        if self.is_robot:
            self.node.publish(self.description_publisher, String(data=urdf))

    def describe_topics(self) -> list[str]:
        return [p.topic_name for p in self.publishers] + [
            p.topic_name for a in self.adapters for p in a.publishers]

    # --- physics thread ------------------------------------------------------------------------

    def sample_joints(self, step: int | None) -> None:
        """Read the joint states once per step (shared by joint_states and TF); ``None``: read
        them now (while paused, where a teleport changes them without a step)."""
        if not self.joint_names or step is not None and step == self._sample_step:
            return
        self._sample_step = -1 if step is None else step
        self.positions, self._velocities, self._efforts = self.node.sim.joint_state_arrays(
            self.name)

    def step(self, t: float, step: int) -> None:
        if not self.is_robot:
            return
        if self._joint_state_rate.due(t):
            self.publish_joint_states(t, step)
        for adapter in self.adapters:
            adapter.step(t)
        if self.mobile_base is not None:
            self.mobile_base.after_step(t)

    def publish_joint_states(self, t: float, step: int | None) -> None:
        if not self.is_robot:
            return
        self.sample_joints(step)
        # the arrays are new every step and never changed: the outbox thread may build from them
        self.node.publish_built(self.joint_state_publisher, self._joint_state_bytes, t,
                                self.positions, self._velocities, self._efforts)

    def _joint_state_bytes(self, t: float, positions: np.ndarray, velocities: np.ndarray,
                           efforts: np.ndarray) -> bytes:
        values = self._joint_state.values
        n = len(positions)
        values[:n] = positions
        values[n:2 * n] = velocities
        values[2 * n:] = efforts
        return self._joint_state.serialize(t)

    @property
    def wants_before_step(self) -> bool:
        """Whether :meth:`before_step` has something to do this step."""
        return self.trajectory is not None or (
            self.mobile_base is not None and self.mobile_base.has_drive)

    def before_step(self, t: float) -> None:
        """The mobile base's drive, then a running trajectory (commanded where it should be at
        the end of this step)."""
        if self.mobile_base is not None:
            self.mobile_base.before_step(t)
        plan = self.trajectory
        if plan is None:
            return
        sim = self.node.sim
        if not plan.started:
            if plan.start is not None and t + sim.step_length < plan.start:
                return  # stamped for later
            states = sim.joint_states(self.name)
            plan.begin(t, [states[j][0] for j in plan.joints])
        positions, _ = plan.sample(t + sim.step_length)
        self._apply([(joint, {'position': p}) for joint, p in zip(plan.joints, positions)],
                    'joint_trajectory')
        if plan.finished(t + sim.step_length):
            self.trajectory = None

    def _apply(self, commands: Sequence[JointCommand], source: str) -> None:
        sim = self.node.sim
        for joint, values in commands:
            try:
                sim.command(self.name, joint, **values)
            except Exception as err:  # noqa: BLE001 - CommandError, or a sim that was reset
                self.node.reject(f'{self.topic}/{source}', str(err))

    def destroy(self) -> None:
        if self.mobile_base is not None:
            self.mobile_base.destroy()
        for adapter in self.adapters:
            adapter.destroy()
        self.adapters.clear()
        release_endpoints(self.node, self.publishers, self.subscriptions)

    # --- executor thread: check, then queue ------------------------------------------------------

    def _queue(self, commands: list[JointCommand], source: str) -> None:
        def apply() -> None:
            self.trajectory = None  # a direct command ends a running trajectory
            self._apply(commands, source)
        self.node.stepper.submit(apply, want_result=False)

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            commands = joint_state_commands(
                msg.name, {'position': msg.position, 'velocity': msg.velocity,
                           'effort': msg.effort}, self._known_joints,
                self._native_interfaces)
        except CommandRejected as err:
            self.node.reject(f'{self.topic}/joint_commands', str(err))
            return
        self._queue(commands, 'joint_commands')

    def _forward_callback(self, controller: str, joints: Sequence[str], interface: str
                          ) -> Callable[[Float64MultiArray], None]:
        source = f'{ros_name(controller)}/commands'

        def callback(msg: Float64MultiArray) -> None:
            try:
                commands = forward_commands(joints, interface, msg.data)
            except CommandRejected as err:
                self.node.reject(f'{self.topic}/{source}', str(err))
                return
            self._queue(commands, source)
        return callback

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        start = stamp_seconds(msg.header.stamp)
        try:
            plan = trajectory(
                msg.joint_names,
                [(stamp_seconds(p.time_from_start), p.positions, p.velocities)
                 for p in msg.points],
                start if start > 0.0 else None, self._known_joints)
        except CommandRejected as err:
            self.node.reject(f'{self.topic}/joint_trajectory', str(err))
            return

        def begin() -> None:
            self.trajectory = plan
        self.node.stepper.submit(begin, want_result=False)


__all__ = ['EntityBridge', 'ros_name']
