"""Webots-Supervisor extras the standard lacks, on existing message types (topics under the
node's private namespace, ``~/``; docs/supervisor.md documents each):

==============================  ==============================  ===============================
topic                           type                            effect
==============================  ==============================  ===============================
``~/apply_wrench``              geometry_msgs/WrenchStamped     force/torque on ``frame_id`` =
                                                                ``entity`` or ``entity/link``,
                                                                in that frame, at its centre of
                                                                mass, for ``wrench_duration`` s
``~/reset_entity``              std_msgs/String                 one entity back to its initial
                                                                pose, velocity, joints, motors
``~/set_joint_positions``       sensor_msgs/JointState          teleport joints of entity
                                                                ``header.frame_id`` (at rest)
``~/scene_camera/viewpoint``    geometry_msgs/PoseStamped       render the scene from this pose
                                                                (world frame, x forward) ...
``~/scene_camera/image_raw``    sensor_msgs/Image (out)         ... and publish it here (rgb8)
``<entity>/center_of_mass``     geometry_msgs/PointStamped      centre of mass (world frame)
``<entity>/contacts``           sensor_msgs/PointCloud2         contact points (world frame):
                                                                x y z normal_x normal_y
                                                                normal_z force distance
==============================  ==============================  ===============================

The two per-entity topics exist only for the entities listed in the ``supervisor_topics``
parameter (default none: ``ros2 topic list`` shows what a user needs, not a centre of mass per
wall); they are published at ``supervisor_rate`` Hz of sim time, and only while someone
subscribes.

Requests run on the physics thread at the next step boundary (also while paused); bad ones are
rejected with a throttled warning and counted in ``~/rejected_commands``, like bad commands.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from geometry_msgs.msg import PointStamped, PoseStamped, WrenchStamped
from sensor_msgs.msg import Image, JointState, PointCloud2, PointField
from std_msgs.msg import String

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.conversions import set_stamp
from scene_sim_ros.ros.option_parameters import declare_options
from scene_sim_ros.ros.supervisor.logic import checked_pose, checked_vector
from scene_sim_ros.scene.transforms import matrix_from_quat
from scene_sim_ros.sim.sensors.rendering import View, render_cache

if TYPE_CHECKING:
    from scene_sim_ros.ros.supervisor.services import Supervisor

CONTACT_FIELDS = ('x', 'y', 'z', 'normal_x', 'normal_y', 'normal_z', 'force', 'distance')


class Extras:
    def __init__(self, supervisor: Supervisor):
        self.supervisor = supervisor
        node = self.node = supervisor.node
        declare_options(node, 'supervisor_extras')  # wrench_duration, scene_camera.*, ...
        self.topic_entities = set(node.get_parameter('supervisor_topics').value or [])
        self.image_publisher = node.create_publisher(Image, '~/scene_camera/image_raw',
                                                     qos.IMAGE)
        self.entity_publishers: dict[str, tuple[Any, Any]] = {}
        self._rate = node.rate_limiter(float(node.get_parameter('supervisor_rate').value))
        for name in list(node.bridges):
            self.add_entity(name)
        node.stepper.add_before_step(self.before_step)
        self.subscriptions = [
            node.create_subscription(WrenchStamped, '~/apply_wrench', self.on_wrench,
                                     qos.COMMAND),
            node.create_subscription(String, '~/reset_entity', self.on_reset_entity,
                                     qos.COMMAND),
            node.create_subscription(JointState, '~/set_joint_positions',
                                     self.on_joint_positions, qos.COMMAND),
            node.create_subscription(PoseStamped, '~/scene_camera/viewpoint',
                                     self.on_viewpoint, qos.COMMAND),
        ]

    def _run(self, source: str, task: Any) -> None:
        """Queue ``task`` for the physics thread; its exceptions become rejections."""
        def guarded() -> None:
            try:
                task()
            except Exception as err:  # noqa: BLE001 - SimulationError, unknown names
                self.node.reject(source, str(err))
        self.node.stepper.submit(guarded, want_result=False)

    # --- callbacks (executor thread) ----------------------------------------------------------

    def on_wrench(self, msg: WrenchStamped) -> None:
        source = '~/apply_wrench'
        try:
            force = checked_vector((msg.wrench.force.x, msg.wrench.force.y,
                                    msg.wrench.force.z), 'force')
            torque = checked_vector((msg.wrench.torque.x, msg.wrench.torque.y,
                                     msg.wrench.torque.z), 'torque')
        except ValueError as err:
            self.node.reject(source, str(err))
            return
        duration = float(self.node.get_parameter('wrench_duration').value)
        target = msg.header.frame_id
        sim = self.node.sim

        def push() -> None:
            entity, _, link = target.partition('/')
            self.supervisor.entity(entity)
            _, orientation = sim.get_pose(target)
            rotation = np.array(matrix_from_quat(orientation))
            sim.apply_force(entity, link or None, (rotation @ force).tolist(),
                            (rotation @ torque).tolist(), duration)
        self._run(source, push)

    def on_reset_entity(self, msg: String) -> None:
        def reset() -> None:
            self.supervisor.entity(msg.data)
            self.node.sim.reset_entity(msg.data)
            bridge = self.node.bridges[msg.data]
            bridge.trajectory = None
            if bridge.mobile_base is not None:
                bridge.mobile_base.reset()
            self.supervisor.refresh_tf()
        self._run('~/reset_entity', reset)

    def on_joint_positions(self, msg: JointState) -> None:
        source = '~/set_joint_positions'
        names, positions = list(msg.name), [float(p) for p in msg.position]
        if len(names) != len(positions) or not names:
            self.node.reject(source, f'{len(names)} names and {len(positions)} positions')
            return
        if not all(math.isfinite(p) for p in positions):
            self.node.reject(source, 'positions must be finite')
            return
        entity = msg.header.frame_id

        def teleport() -> None:
            self.supervisor.entity(entity)
            for joint, position in zip(names, positions):
                self.node.sim.set_joint_position(entity, joint, position)
            bridge = self.node.bridges[entity]
            bridge.trajectory = None
            self.supervisor.refresh_tf()
        self._run(source, teleport)

    def on_viewpoint(self, msg: PoseStamped) -> None:
        source = '~/scene_camera/viewpoint'
        p, q = msg.pose.position, msg.pose.orientation
        try:
            pose = checked_pose((p.x, p.y, p.z), (q.x, q.y, q.z, q.w))
        except ValueError as err:
            self.node.reject(source, str(err))
            return
        self._run(source, lambda: self.render(pose))

    # --- physics thread -----------------------------------------------------------------------

    def add_entity(self, name: str) -> None:
        if name not in self.topic_entities:
            return
        topic = self.node.bridges[name].topic
        self.entity_publishers[name] = (
            self.node.create_publisher(PointStamped, f'{topic}/center_of_mass', qos.SENSOR),
            self.node.create_publisher(PointCloud2, f'{topic}/contacts', qos.SENSOR))

    def remove_entity(self, name: str) -> None:
        """(physics thread) The executor's thread destroys the publishers: their QoS event
        handlers may be in its wait set."""
        self.node.retire([functools.partial(self.node.destroy_publisher, publisher)
                          for publisher in self.entity_publishers.pop(name, ())])

    def before_step(self, t: float) -> None:
        """Publish what was asked for about the state the last step left (stamp ``t``)."""
        if not self.entity_publishers or not self._rate.due(t):
            return
        sim = self.node.sim
        for name, (com_publisher, contact_publisher) in self.entity_publishers.items():
            if com_publisher.get_subscription_count() > 0:
                msg = PointStamped()
                msg.header.frame_id = self.node.frames.world
                set_stamp(msg.header.stamp, t)
                msg.point.x, msg.point.y, msg.point.z = (float(v)
                                                         for v in sim.center_of_mass(name))
                self.node.publish(com_publisher, msg)
            if contact_publisher.get_subscription_count() > 0:
                self.node.publish(contact_publisher, self.contact_cloud(name, t))

    def contact_cloud(self, name: str, t: float) -> PointCloud2:
        points = self.node.sim.contacts(name)
        values = np.array([(*c.position, *c.normal, c.normal_force, c.distance) for c in points],
                          dtype=np.float32).reshape(len(points), len(CONTACT_FIELDS))
        cloud = PointCloud2(height=1, width=len(points), is_dense=True, is_bigendian=False,
                            point_step=4 * len(CONTACT_FIELDS))
        cloud.row_step = cloud.point_step * len(points)
        cloud.fields = [PointField(name=field, offset=4 * k, datatype=PointField.FLOAT32, count=1)
                        for k, field in enumerate(CONTACT_FIELDS)]
        cloud.header.frame_id = self.node.frames.world
        set_stamp(cloud.header.stamp, t)
        cloud.data = values.tobytes()
        return cloud

    def render(self, pose: Any) -> None:
        """Render the whole scene from ``pose`` (camera looking along its +x, z up)."""
        get = self.node.get_parameter
        width, height = int(get('scene_camera.width').value), int(get('scene_camera.height').value)
        near, far = float(get('scene_camera.near').value), float(get('scene_camera.far').value)
        fov_y = math.radians(float(get('scene_camera.fov_y').value))
        fov_x = 2.0 * math.atan(math.tan(fov_y / 2.0) * width / height)
        # the simulation's renderer (gl where EGL works), as for the scene's own cameras
        view = View.of(pose, width, height, fov_x, fov_y)
        rgb = render_cache(self.node.sim).frame(view, near, far, need_depth=False).rgb
        image = Image(height=height, width=width, encoding='rgb8', step=3 * width)
        image.header.frame_id = self.node.frames.world
        set_stamp(image.header.stamp, self.node.stepper.time)
        image.data = np.ascontiguousarray(rgb).tobytes()
        self.node.publish(self.image_publisher, image)

    def destroy(self) -> None:
        for name in list(self.entity_publishers):
            self.remove_entity(name)
        for subscription in self.subscriptions:
            self.node.destroy_subscription(subscription)
        self.node.destroy_publisher(self.image_publisher)
        self.subscriptions.clear()
