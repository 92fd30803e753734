"""The node's side of every physics step (physics thread): the bridges' ``before_step``, then
after the step ``/clock``, every bridge's ``step`` (joint states, sensors, odometry) and ``/tf``
at ``tf_rate``, all stamped with the sim time of the step; while paused ``/clock`` again and,
every :data:`PAUSED_STATE_PERIOD`, TF and joint states."""

from __future__ import annotations

import time

import numpy as np
from rclpy.node import Node
from rosgraph_msgs.msg import Clock

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import SensorAdapter
from scene_sim_ros.ros.bridge.conversions import set_stamp
from scene_sim_ros.ros.bridge.entity_bridge import EntityBridge
from scene_sim_ros.ros.bridge.names import shared_topic
from scene_sim_ros.ros.bridge.tf import DynamicTransforms
from scene_sim_ros.ros.rate import RateLimiter
from scene_sim_ros.ros.runtime.publishing import Publishing
from scene_sim_ros.ros.serialized import MessageTemplate
from scene_sim_ros.sim.sensors.cameras import render_together
from scene_sim_ros.sim.simulator import Simulator

PAUSED_STATE_PERIOD = 1.0
"""Wall seconds between two publications of TF and joint states while paused (visualisers then
show the frozen world; /clock is repeated more often, see stepper.PAUSED_PERIOD)."""


class StepLoop:
    """``before_step``, ``after_step`` and ``while_paused`` of the :class:`~.stepper.Stepper`.
    ``bridges`` is the list of entity bridges, replaced (never changed) when entities come and
    go."""

    def __init__(self, node: Node, sim: Simulator, publishing: Publishing, *, isolated: bool,
                 tf_rate: float):
        self._node = node
        self._sim = sim
        self._publishing = publishing
        self.bridges: list[EntityBridge] = []
        self._rendered: list[SensorAdapter] = []  # adapters whose frames the budget admits
        self._by_name: dict[str, EntityBridge] = {}
        self._steps = 0  # never repeats, also across a supervisor reset
        self._last_paused_state = -1e9
        self.clock_publisher = node.create_publisher(
            Clock, shared_topic('/clock', isolated), qos.CLOCK)
        self._clock_msg = Clock()  # for this node's own time source
        self._clock_bytes = MessageTemplate(Clock(), (), stamp='clock')
        self.dynamic_tf = DynamicTransforms(node, shared_topic('/tf', isolated))
        self._tf_rate_hz = tf_rate
        self._tf_rate = RateLimiter(tf_rate, sim.step_length)

    def step_length_changed(self, step_length: float) -> None:
        self._tf_rate = RateLimiter(self._tf_rate_hz, step_length)

    def set_bridges(self, bridges: dict[str, EntityBridge]) -> None:
        self.bridges = list(bridges.values())
        self._by_name = dict(bridges)
        self._rendered = [adapter for bridge in self.bridges for adapter in bridge.adapters
                          if adapter.frame_slot is not None]

    def before_step(self, t: float) -> None:
        for bridge in self.bridges:
            if bridge.wants_before_step:
                bridge.before_step(t)

    def after_step(self, t: float) -> None:
        """Publish what step ``t`` produced. Where PyBullet steps without the GIL, the messages
        go out on the outbox thread while the next step runs (see :mod:`.publishing`)."""
        overlap = self._sim.release_gil
        if overlap:
            self._publishing.hold()
        try:
            self._publish_clock(t)
            self._steps += 1
            step = self._steps
            if self._rendered:
                self._render_frames(t)
            for bridge in self.bridges:
                bridge.step(t, step)
            if self._tf_rate.due(t):
                self.publish_tf(t, step)
        finally:
            if overlap:
                self._publishing.send()

    def _render_frames(self, t: float) -> None:
        """Decide which camera frames step ``t`` publishes (:meth:`SensorAdapter.claim_frame`,
        the frame budget admitting) and render the colour ones in one pass
        (:func:`~scene_sim_ros.sim.sensors.cameras.render_together`); each adapter then reads
        its image from the render cache, charged with its share of the pass."""
        claimed = [adapter for adapter in self._rendered if adapter.claim_frame(t)]
        readers = [(adapter, reader) for adapter in claimed
                   if (reader := adapter.frame_reader()) is not None]
        if len(readers) < 2:
            return  # nothing to batch: the one frame renders when read
        started = time.perf_counter()
        render_together(reader for _, reader in readers)
        share = (time.perf_counter() - started) / len(readers)
        for adapter, _ in readers:
            adapter.charge_render(share)

    def while_paused(self, t: float) -> None:
        """Paused: repeat /clock, and now and then TF and joint states, so that RViz and other
        late joiners see the frozen world."""
        self._publish_clock(t)
        now = time.monotonic()
        if now - self._last_paused_state < PAUSED_STATE_PERIOD:
            return
        self._last_paused_state = now
        for bridge in self.bridges:
            bridge.publish_joint_states(t, None)
        self.publish_tf(t, None)

    def _publish_clock(self, t: float) -> None:
        self._publishing.publish(self.clock_publisher, self._clock_bytes.serialize(t))
        source = self._node._time_source  # noqa: SLF001 - the node is its own clock source
        if source.ros_time_is_active:
            set_stamp(self._clock_msg.clock, t)
            source.clock_callback(self._clock_msg)  # this node's own ROS time

    def publish_tf(self, t: float, step: int | None) -> None:
        """``step``: the step whose joint samples can be reused; None reads the joints now."""
        frames = self.dynamic_tf.frames
        if not frames:
            return
        sim = self._sim
        poses = []
        positions = []
        for f in frames:
            # the root's pose as an IMU on it already read it this step (a cached query)
            pose = sim.link_world_state(f.entity.name, f.entity.root.name)[0]
            poses.append((pose.position, pose.orientation))
            if f.moving_joints:
                bridge = self._by_name[f.entity.name]
                bridge.sample_joints(step)
                positions.append(bridge.positions)
        joint_positions = np.concatenate(positions) if positions else np.zeros(0)
        self.dynamic_tf.publish(t, poses, joint_positions, self._publishing.publish_built)
