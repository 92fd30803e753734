"""Mobile bases on ROS: ``<entity>/odom`` (nav_msgs/Odometry), the ``odom`` TF frame and
``<entity>/cmd_vel`` (geometry_msgs/TwistStamped, or Twist with ``cmd_vel_stamped`` false).

A thin adapter: geometry, controllers and odometry maths live in :mod:`..sim.mobile_base`.
Every free-moving robot (not fixed to the world) gets odometry: TF ``world -> <entity>/odom ->
<entity>/<root link>`` (REP-105, one parent per frame) and the Odometry message (pose in
``<entity>/odom``, twist in the base frame, covariances filled) from ground truth, or with the
noise/drift of the ``odometry.noise.*`` / ``odometry.drift.*`` parameters (seeded by ``seed``).
A robot gets ``cmd_vel`` when it has a drive: a differential drive found in the scene (two
coaxial velocity-driven wheels) or named by ``mobile_bases.<entity>.*`` parameters, or
``drive: holonomic`` (the root body is driven by the planar twist directly). Commands are checked
on the executor thread (NaN/Inf and stale stamps are rejected and counted like every bad
command) and applied at step boundaries; ``cmd_vel_timeout`` s of sim time after the last one
the base brakes to a stop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from geometry_msgs.msg import Twist, TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.bridge.adapters.base import release_endpoints
from scene_sim_ros.ros.bridge.conversions import stamp_seconds
from scene_sim_ros.ros.bridge.ground_truth import GroundTruth, rotate_into
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.names import ros_name
from scene_sim_ros.ros.option_parameters import declare_options
from scene_sim_ros.ros.options import declared_by
from scene_sim_ros.ros.serialized import MessageTemplate
from scene_sim_ros.scene import Entity, Pose
from scene_sim_ros.scene.transforms import quat, vec3
from scene_sim_ros.sim.mobile_base import (
    DiffDriveGeometry,
    OdometryEstimator,
    OdometryNoise,
    TwistController,
    TwistLimits,
    base_link_name,
    find_diff_drive,
    wheel_geometry,
)

DRIVES = ('auto', 'diff_drive', 'holonomic', 'none')

COVARIANCE_FLOOR = 1e-6
"""Variance reported for exact (ground-truth) quantities: 0 means "unknown" to many consumers."""

GLOBAL_PARAMETERS: dict[str, tuple[Any, str]] = {
    option.name: (option.parameter_default, option.description)
    for option in declared_by('mobile_base')}
"""name -> (default, description) of the mobile-base options of the option table (doubles take
integers too); the per-robot ones follow."""

ENTITY_PARAMETERS: dict[str, tuple[Any, str]] = {
    'base_frame': ('', 'link odometry reports (empty: base_footprint if there is one, else the '
                       'root link)'),
    'drive': ('auto', 'auto (a differential drive when the scene has two coaxial velocity-driven '
                      'wheels), diff_drive, holonomic or none'),
    'left_wheel_joint': ('', 'diff drive: left wheel joint (empty: from the scene)'),
    'right_wheel_joint': ('', 'diff drive: right wheel joint (empty: from the scene)'),
    'wheel_separation': (0.0, 'diff drive: m between the wheels (0: from the scene)'),
    'wheel_radius': (0.0, 'diff drive: wheel radius in m (0: from the scene)'),
    'publish_tf': (True, 'publish odom -> base on /tf (default: odometry.publish_tf)'),
}


def _descriptor(text: str, value: Any) -> ParameterDescriptor:
    descriptor = ParameterDescriptor(description=text, read_only=True)
    if isinstance(value, float):
        descriptor.dynamic_typing = True  # 0.5 or 1 both work
    return descriptor


def _declare(node: Any, name: str, value: Any, text: str) -> None:
    if not node.has_parameter(name):
        node.declare_parameter(name, value, _descriptor(text, value))


def declare_parameters(node: Any, entities: Sequence[Entity]) -> None:
    """Declare the mobile-base parameters (call before the bridges are built)."""
    declare_options(node, 'mobile_base')
    for entity in entities:
        if not is_mobile(entity):
            continue
        for key, (value, text) in ENTITY_PARAMETERS.items():
            if key == 'publish_tf':
                value = bool(parameter(node, 'odometry.publish_tf'))
            _declare(node, f'mobile_bases.{ros_name(entity.name)}.{key}', value,
                     f'{entity.name}: {text}')


def is_mobile(entity: Entity) -> bool:
    """A robot whose root is free (odometry makes sense)."""
    return entity.kind == 'robot' and not entity.fixed_base


def _value(node: Any, name: str, default: Any) -> Any:
    if not node.has_parameter(name):
        return default
    value = node.get_parameter(name).value
    if isinstance(default, list):
        return covariance_diagonal(name, value)
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f'parameter {name!r} expects a number, got {value!r}')
        return float(value)
    return value


def parameter(node: Any, name: str) -> Any:
    return _value(node, name, GLOBAL_PARAMETERS[name][0])


ODOMETRY_FIELDS = ('pose.pose.position', 'pose.pose.orientation', 'twist.twist.linear',
                   'twist.twist.angular', 'pose.covariance')
"""The numbers of the Odometry message that change, in this order (values[0:3], [3:7], ...)."""


def covariance_diagonal(name: str, value: Any) -> tuple[float, ...]:
    """Six finite, non-negative variances, or a ValueError naming the parameter."""
    try:
        values = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f'parameter {name!r} expects 6 numbers, got {value!r}') from None
    if len(values) != 6 or not all(math.isfinite(v) and v >= 0.0 for v in values):
        raise ValueError(f'parameter {name!r} expects 6 finite variances >= 0 (x y z roll '
                         f'pitch yaw), got {list(values)}')
    return values


def _covariance(diagonal: Sequence[float], position: float = 0.0,
                heading: float = 0.0) -> np.ndarray:
    """6x6 diagonal (x y z roll pitch yaw) as ROS wants it: 36 row-major values; ``position``
    and ``heading`` (the noise model's variances) are added to x, y and yaw."""
    values = np.maximum(np.array(diagonal, dtype=float), COVARIANCE_FLOOR)
    values[0:2] += position
    values[5] += heading
    return np.diag(values).reshape(36)


class MobileBase:
    """Odometry and (when it has a drive) cmd_vel of one free-moving robot."""

    def __init__(self, node: NodeHost, entity: Entity, topic: str):
        """``topic``: the entity's topic base (``robot1``); odom and cmd_vel go under it."""
        self.node = node
        self.entity = entity
        self.name = entity.name
        self.topic = topic
        prefix = f'mobile_bases.{ros_name(entity.name)}'

        def entity_value(key: str) -> Any:
            return _value(node, f'{prefix}.{key}', ENTITY_PARAMETERS[key][0])
        self.base_link = base_link_name(entity, entity_value('base_frame'))
        self.base_is_root = self.base_link == entity.root.name
        frames = node.frames
        self.odom_frame = frames.odom(entity.name)
        self.base_frame = frames.link(entity.name, self.base_link)
        self.publish_odometry = bool(parameter(node, 'odometry.publish'))
        self.publish_tf = bool(entity_value('publish_tf'))
        self._pose_covariance = parameter(node, 'odometry.pose_covariance_diagonal')
        noise = OdometryNoise(parameter(node, 'odometry.noise.linear'),
                              parameter(node, 'odometry.noise.angular'),
                              parameter(node, 'odometry.drift.linear'),
                              parameter(node, 'odometry.drift.angular'))
        seed = int(node.get_parameter('seed').value) if node.has_parameter('seed') else 0
        # one stream per entity, independent of the sensors' (seed, entity name)
        rng = np.random.default_rng([seed, *entity.name.encode()])
        self.estimator = OdometryEstimator(noise, rng)
        self.publishers: list[Any] = []
        self.subscriptions: list[Any] = []
        if self.publish_odometry:
            self.odom_publisher = node.create_publisher(Odometry, f'{self.topic}/odom', qos.SENSOR)
            self.publishers.append(self.odom_publisher)
            msg = Odometry()
            msg.header.frame_id = self.odom_frame
            msg.child_frame_id = self.base_frame
            msg.twist.covariance = _covariance(parameter(node, 'odometry.twist_covariance_diagonal'))
            # serialized once, the numbers patched per publication (see .serialized)
            self._odom = MessageTemplate(msg, ODOMETRY_FIELDS)
            self._pose_variances: tuple[float, float] | None = None
            self._odom_rate = node.rate_limiter(parameter(node, 'odometry.rate'))
        self.ground_truth = GroundTruth(node, entity.name, self.base_link, topic, frames.world,
                                        self.base_frame, parameter(node, 'ground_truth.rate'))
        self.publishers.append(self.ground_truth.publisher)
        self._time_offset = node.stepper.time_offset  # changes when the supervisor resets
        self.geometry: DiffDriveGeometry | None = None
        self.holonomic = False
        self.controller: TwistController | None = None
        self._setup_drive(entity_value)

    # --- drive ---------------------------------------------------------------------------------

    def _setup_drive(self, entity_value: Any) -> None:
        node, entity = self.node, self.entity
        drive = entity_value('drive') or 'auto'
        if drive not in DRIVES:
            raise ValueError(f'mobile_bases.{ros_name(entity.name)}.drive: {drive!r} is none of '
                             f'{DRIVES}')
        left, right = entity_value('left_wheel_joint'), entity_value('right_wheel_joint')
        separation, radius = entity_value('wheel_separation'), entity_value('wheel_radius')
        if drive == 'holonomic':
            self.holonomic = True
        elif drive == 'diff_drive' or (drive == 'auto' and (left or right)):
            found = find_diff_drive(entity)
            left = left or (found.left_joint if found else '')
            right = right or (found.right_joint if found else '')
            if not left or not right:
                raise ValueError(f'{entity.name}: no two coaxial velocity-driven wheels found; '
                                 f'set mobile_bases.{ros_name(entity.name)}.left_wheel_joint / '
                                 'right_wheel_joint')
            self.geometry = wheel_geometry(entity, left, right, separation, radius)
        elif drive == 'auto':
            found = find_diff_drive(entity)
            if found is not None:
                self.geometry = wheel_geometry(entity, found.left_joint, found.right_joint,
                                               separation, radius)
        if self.geometry is None and not self.holonomic:
            return
        limits = TwistLimits(parameter(node, 'mobile_base_limits.linear_velocity'),
                             parameter(node, 'mobile_base_limits.angular_velocity'),
                             parameter(node, 'mobile_base_limits.linear_acceleration'),
                             parameter(node, 'mobile_base_limits.angular_acceleration'))
        self.timeout = parameter(node, 'cmd_vel_timeout')
        self.controller = TwistController(limits, self.timeout)
        self.stamped = bool(parameter(node, 'cmd_vel_stamped'))
        self.cmd_vel_topic = f'{self.topic}/cmd_vel'
        self.subscriptions.append(node.create_subscription(
            TwistStamped if self.stamped else Twist, self.cmd_vel_topic, self._on_cmd_vel,
            qos.COMMAND))
        if self.geometry is not None:
            g = self.geometry
            node.get_logger().info(
                f'{entity.name}: differential drive on {g.left_joint}/{g.right_joint}, '
                f'separation {g.separation:g} m, wheel radius {g.radius:g} m; '
                f'{self.cmd_vel_topic} ({"TwistStamped" if self.stamped else "Twist"})')

    @property
    def has_drive(self) -> bool:
        return self.controller is not None

    def _on_cmd_vel(self, msg: Any) -> None:
        """Executor thread: check, then queue for the next step boundary."""
        source = f'{self.topic}/cmd_vel'
        twist = msg.twist if self.stamped else msg
        values = (twist.linear.x, twist.linear.y, twist.linear.z,
                  twist.angular.x, twist.angular.y, twist.angular.z)
        if not all(math.isfinite(v) for v in values):
            self.node.reject(source, f'twist {values} is not finite')
            return
        now = self.node.stepper.time
        if self.stamped:
            stamp = stamp_seconds(msg.header.stamp)
            if stamp > 0.0 and self.timeout > 0.0 and now - stamp > self.timeout:
                self.node.reject(source, f'stale: stamped {stamp:.3f} s, sim time is '
                                         f'{now:.3f} s (cmd_vel_timeout {self.timeout:g} s)')
                return
        vy = twist.linear.y if self.holonomic else 0.0
        controller = self.controller
        assert controller is not None  # cmd_vel is subscribed to only with a controller

        def apply() -> None:
            controller.command(twist.linear.x, vy, twist.angular.z, self.node.stepper.time)
        self.node.stepper.submit(apply, want_result=False)

    def before_step(self, t: float) -> None:
        """Physics thread: the controller's twist for this step, to the wheels or the body."""
        controller = self.controller
        if controller is None or not controller.active:
            return
        twist = controller.update(t, self.node.sim.step_length)
        if twist is None:
            return
        sim = self.node.sim
        vx, vy, wz = twist
        if self.geometry is not None:
            left, right = self.geometry.joint_velocities(vx, wz)
            try:
                sim.command(self.name, self.geometry.left_joint, velocity=left)
                sim.command(self.name, self.geometry.right_joint, velocity=right)
            except Exception as err:  # noqa: BLE001 - CommandError
                controller.stop()
                self.node.reject(self.cmd_vel_topic, str(err))
            return
        # holonomic: the planar twist in the base frame, keeping vertical motion and tilt rates
        _, orientation = sim.get_pose(self.name)
        linear, angular = sim.get_velocity(self.name)
        pose = Pose((0.0, 0.0, 0.0), quat(orientation))
        world = pose.rotate((vx, vy, 0.0))
        sim.set_velocity(self.name, (world[0], world[1], linear[2]),
                         (angular[0], angular[1], wz))

    def reset(self) -> None:
        """After a supervisor reset: no running command, odometry starts over."""
        if self.controller is not None:
            self.controller.stop()
        self.estimator.reset()

    # --- odometry --------------------------------------------------------------------------------

    def _true_base_pose(self) -> Pose:
        return self.node.sim.link_world_state(self.name, self.base_link)[0]

    def after_step(self, t: float) -> None:
        """Physics thread, after every step: integrate (when noisy) and publish when due."""
        offset = self.node.stepper.time_offset
        if offset != self._time_offset:  # a supervisor reset rebuilt the world
            self._time_offset = offset
            self.reset()
        if self.estimator.noise.noisy:
            self.estimator.update(self._true_base_pose())
        if self.publish_odometry and self._odom_rate.due(t):
            self.publish(t)
        self.ground_truth.after_step(t)

    def estimate(self) -> tuple[Pose, Pose]:
        """(true base pose, odometry base pose) now."""
        truth = self._true_base_pose()
        if not self.estimator.noise.noisy or self.estimator.estimate is None:
            return truth, self.estimator.update(truth)
        return truth, self.estimator.estimate

    def publish(self, t: float) -> None:
        """Read here (physics thread); :meth:`_message` builds the message, on the outbox
        thread where the node has one."""
        truth, estimate = self.estimate()
        _, linear, angular = self.node.sim.link_world_state(self.name, self.base_link)
        scale = 1.0 + self.estimator.noise.drift_linear
        variances = self.estimator.variances(0.0)
        changed = variances != self._pose_variances
        self._pose_variances = variances
        self.node.publish_built(self.odom_publisher, self._message, t, truth, estimate, linear,
                                angular, scale, variances if changed else None)

    def _message(self, t: float, truth: Pose, estimate: Pose, linear: Sequence[float],
                 angular: Sequence[float], scale: float,
                 variances: tuple[float, float] | None) -> bytes:
        values = self._odom.values
        values[0:3] = estimate.position
        values[3:7] = estimate.orientation
        values[7:10] = rotate_into(truth.orientation, linear)
        values[7:10] *= scale
        values[10:13] = rotate_into(truth.orientation, angular)
        if variances is not None:
            values[13:49] = _covariance(self._pose_covariance, *variances)
        return self._odom.serialize(t)

    def tf_poses(self, root_pose: tuple[Sequence[float], Sequence[float]]
                 ) -> tuple[tuple[Sequence[float], Sequence[float]],
                            tuple[Sequence[float], Sequence[float]]]:
        """For /tf (physics thread): (odom -> root link, world -> odom) given the root's true
        world pose."""
        if not self.estimator.noise.noisy:
            return root_pose, ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
        root = Pose(vec3(root_pose[0]), quat(root_pose[1]))
        truth, estimate = self.estimate()
        # odom -> root = estimate(base) * (base -> root); world -> odom = truth * estimate^-1
        odom_root = estimate * (truth.inverse() * root)
        world_odom = truth * estimate.inverse()
        return ((odom_root.position, odom_root.orientation),
                (world_odom.position, world_odom.orientation))

    def destroy(self) -> None:
        release_endpoints(self.node, self.publishers, self.subscriptions)

