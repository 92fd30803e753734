"""``<entity>/joint_trajectory_controller/follow_joint_trajectory`` (control_msgs/action/
FollowJointTrajectory) and ``<entity>/joint_trajectory_controller/controller_state``
(control_msgs/msg/JointTrajectoryControllerState) per robot with movable joints, named like
ros2_control's joint_trajectory_controller so that MoveIt's moveit_simple_controller_manager
talks to the simulation as to a real robot.

Judging goals (checks, tolerances, outcome) is :mod:`.trajectory_goal`'s; this module is the ROS
side. Threads: the execute callback is a coroutine that checks the goal, hands it to the physics
thread (``stepper.submit``) and awaits its outcome, so the executor never blocks (single- or
multi-threaded). The physics thread runs the trajectory through the bridge (the same
interpolation as ``<entity>/joint_trajectory``), judges it before every step, publishes feedback
(20 Hz sim time) and completes the outcome; the coroutine then sets the goal's state
(succeed / abort / canceled, which MoveIt reads) and returns the result.

- a new goal preempts the running one: that one is aborted with ``INVALID_GOAL`` and JTC's
  message "Current goal cancelled due to new incoming action.";
- cancel: the arm holds the positions it has when the cancel reaches the physics thread, the
  goal ends CANCELED;
- a command on ``joint_commands``, a forward controller or ``joint_trajectory`` that replaces the
  goal's trajectory aborts it (``INVALID_GOAL``);
- deleting the entity aborts its goal.
"""

from __future__ import annotations

from concurrent.futures import Future as ConcurrentFuture
from typing import TYPE_CHECKING, Any

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.task import Future

from scene_sim_ros.ros import qos
from scene_sim_ros.ros.action_clock import action_node
from scene_sim_ros.ros.bridge.conversions import set_stamp, stamp_seconds
from scene_sim_ros.ros.bridge.host import NodeHost
from scene_sim_ros.ros.bridge.names import TRAJECTORY_CONTROLLER
from scene_sim_ros.ros.bridge.trajectory_goal import (
    INVALID_GOAL,
    PREEMPTED_MESSAGE,
    Goal,
    GoalError,
    GoalMonitor,
    Outcome,
    Sample,
    check_goal,
)

try:
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointTrajectoryControllerState
    FEEDBACK_HAS_INDEX = 'index' in FollowJointTrajectory.Feedback.get_fields_and_field_types()
except ImportError as err:  # not installed: no action servers (attach() says so once)
    FollowJointTrajectory = JointTrajectoryControllerState = None
    FEEDBACK_HAS_INDEX = False
    _MISSING = str(err)

if TYPE_CHECKING:
    from scene_sim_ros.ros.bridge.entity_bridge import EntityBridge

CONTROLLER = TRAJECTORY_CONTROLLER
ACTION = 'follow_joint_trajectory'
FEEDBACK_RATE = 20.0  # Hz of sim time (JTC's action_monitor_rate)
STATE_RATE = 50.0  # Hz of sim time, while someone subscribes to controller_state
CANCELED = 'canceled'


class _Running:
    """A goal on the physics thread."""

    def __init__(self, handle: Any, goal: Goal):
        self.handle = handle
        self.goal = goal
        self.monitor = GoalMonitor(goal)
        self.done: ConcurrentFuture[Outcome | str] = ConcurrentFuture()  # Outcome, or CANCELED
        self.next_feedback = 0.0

    def finish(self, outcome: Outcome | str) -> None:
        if not self.done.done():
            self.done.set_result(outcome)


class FollowJointTrajectoryServer:
    """The action server and state topic of one robot."""

    def __init__(self, node: NodeHost, bridge: EntityBridge):
        self.node = node
        self.bridge = bridge
        self.joints = list(bridge.joint_names)
        self._known = {name: None for name in self.joints}
        self.prefix = f'{bridge.topic}/{CONTROLLER}'
        self._running: _Running | None = None  # physics thread only
        self._reference: dict[str, float] = {}  # last set-points (physics thread)
        self._state_rate = node.rate_limiter(STATE_RATE)
        self._state_msg = JointTrajectoryControllerState()
        self._state_msg.joint_names = list(self.joints)
        self._state_msg.speed_scaling_factor = 1.0
        self.destroyed = False
        self.state_publisher = node.create_publisher(
            JointTrajectoryControllerState, f'{self.prefix}/controller_state', qos.COMMAND)
        self.server = ActionServer(
            action_node(node.ros_node), FollowJointTrajectory, f'{self.prefix}/{ACTION}',
            execute_callback=self._execute,
            goal_callback=lambda request: GoalResponse.ACCEPT,
            cancel_callback=self._on_cancel)

    @property
    def action_name(self) -> str:
        return f'{self.prefix}/{ACTION}'

    # --- executor thread -------------------------------------------------------------------

    def _on_cancel(self, handle: Any) -> CancelResponse:
        self.node.stepper.submit(lambda: self._cancel(handle), want_result=False)
        return CancelResponse.ACCEPT

    def _awaitable(self, done: ConcurrentFuture[Any]) -> Future[Any]:
        """An rclpy Future mirroring ``done``; completing it wakes the executor."""
        mirror: Future[Any] = Future(executor=self.node.executor)
        mirror.add_done_callback(lambda _: None)  # its scheduling wakes the waiting coroutine

        def copy(source: ConcurrentFuture[Any]) -> None:
            if source.cancelled():
                mirror.set_exception(RuntimeError('the simulation is shutting down'))
            elif (error := source.exception()) is not None:
                # rclpy annotates Exception, but stores and re-raises any BaseException
                mirror.set_exception(error)  # type: ignore[arg-type]
            else:
                mirror.set_result(source.result())
        done.add_done_callback(copy)
        return mirror

    async def _execute(self, handle: Any) -> Any:
        result = FollowJointTrajectory.Result()
        request = handle.request
        try:
            goal = self._check(request)
        except GoalError as err:
            result.error_code, result.error_string = err.code, str(err)
            self.node.get_logger().warning(f'{self.action_name}: goal refused: {err}')
            _end(handle.abort)
            return result
        running = _Running(handle, goal)
        try:
            self.node.stepper.submit(lambda: self._start(running), want_result=False)
            outcome = await self._awaitable(running.done)
            if outcome == CANCELED:
                for _ in range(100):  # with a multi-threaded executor the cancel callback
                    if handle.is_cancel_requested:  # may not have set CANCELING yet
                        break
                    await self._awaitable(self.node.stepper.submit(lambda: None))
        except Exception as err:  # noqa: BLE001 - shutting down, or the physics failed
            result.error_code, result.error_string = INVALID_GOAL, f'aborted: {err}'
            _end(handle.abort)
            return result
        if outcome == CANCELED:
            result.error_code, result.error_string = 0, 'Goal canceled'
            _end(handle.canceled if handle.is_cancel_requested else handle.abort)
            return result
        assert outcome is not None  # running.done completes with an Outcome or CANCELED
        result.error_code, result.error_string = outcome.code, outcome.message
        _end(handle.succeed if outcome.succeeded else handle.abort)
        return result

    def _check(self, request: Any) -> Goal:
        traj = request.trajectory
        return check_goal(
            list(traj.joint_names),
            [(stamp_seconds(p.time_from_start), p.positions, p.velocities, p.accelerations,
              p.effort) for p in traj.points],
            known=self._known, stamp=stamp_seconds(traj.header.stamp),
            now=self.node.stepper.time,
            multi_dof=bool(request.multi_dof_trajectory.joint_names
                           or request.multi_dof_trajectory.points),
            path_tolerance=[_tolerance(t) for t in request.path_tolerance],
            goal_tolerance=[_tolerance(t) for t in request.goal_tolerance],
            goal_time_tolerance=stamp_seconds(request.goal_time_tolerance),
            component_tolerances=bool(request.component_path_tolerance
                                      or request.component_goal_tolerance))

    # --- physics thread ----------------------------------------------------------------------

    def _start(self, running: _Running) -> None:
        if self.destroyed:
            running.finish(Outcome(INVALID_GOAL, 'the entity was deleted'))
            return
        if running.handle.is_cancel_requested:
            running.finish(CANCELED)
            return
        previous = self._running
        if previous is not None:
            previous.finish(Outcome(INVALID_GOAL, PREEMPTED_MESSAGE))
        self._running = running
        self.bridge.trajectory = running.goal.plan

    def _cancel(self, handle: Any) -> None:
        running = self._running
        if running is None or running.handle is not handle:
            return  # finished already, or not started yet (_start sees the cancel)
        self._running = None
        if self.bridge.trajectory is running.goal.plan:
            self.bridge.trajectory = None
        states = self.node.sim.joint_states(self.bridge.name)
        hold = [(j, {'position': states[j][0]}) for j in running.goal.joints]
        self._reference.update((j, values['position']) for j, values in hold)
        self.bridge._apply(hold, f'{CONTROLLER}/{ACTION}')  # noqa: SLF001 - same package
        running.finish(CANCELED)

    def before_step(self, t: float) -> None:
        """Judge the running goal at ``t`` (the state the last step produced), publish feedback
        and the controller state."""
        running = self._running
        publish_state = self._state_rate.due(t) and self._has_state_subscribers()
        if running is None and not publish_state:
            return
        states = self.node.sim.joint_states(self.bridge.name)
        sample = None
        if running is not None:
            goal = running.goal
            if running.done.done():  # preempted
                self._running = running = None
            elif self.bridge.trajectory is not goal.plan and not goal.plan.finished(
                    t + self.node.sim.step_length):
                self._running = None
                running.finish(Outcome(INVALID_GOAL, 'the trajectory was replaced by a command '
                                                     f'on another topic of {self.bridge.topic}'))
                running = None
        if running is not None:
            goal = running.goal
            positions = [states[j][0] for j in goal.joints]
            velocities = [states[j][1] for j in goal.joints]
            sample = running.monitor.sample(t, positions, velocities)
            if sample is not None:
                self._reference.update(zip(goal.joints, sample.desired_positions))
                if t + 1e-9 >= running.next_feedback:
                    running.next_feedback = t + 1.0 / FEEDBACK_RATE
                    self._feedback(running, t, sample)
                outcome = running.monitor.update(t, positions, velocities)
                if outcome is not None:
                    self._running = None
                    running.finish(outcome)
        if publish_state:
            self._publish_state(t, states)

    def _has_state_subscribers(self) -> bool:
        try:
            return self.state_publisher.get_subscription_count() > 0
        except Exception:  # noqa: BLE001 - destroyed while shutting down
            return False

    def _feedback(self, running: _Running, t: float, sample: Sample) -> None:
        msg = FollowJointTrajectory.Feedback()
        set_stamp(msg.header.stamp, t)
        msg.joint_names = list(running.goal.joints)
        msg.desired.positions = sample.desired_positions
        msg.desired.velocities = sample.desired_velocities
        msg.actual.positions = sample.actual_positions
        msg.actual.velocities = sample.actual_velocities
        msg.error.positions = sample.position_error
        msg.error.velocities = sample.velocity_error
        if FEEDBACK_HAS_INDEX:  # control_msgs >= 6 (Kilted); Jazzy's 5.x has no index fields
            msg.index = sample.index
            msg.multi_dof_index = 0
        try:
            running.handle.publish_feedback(msg)
        except Exception:  # noqa: BLE001 - the goal handle went away (client gone, shutdown)
            pass

    def _publish_state(self, t: float, states: dict[str, tuple[float, float, float]]) -> None:
        msg = self._state_msg
        set_stamp(msg.header.stamp, t)
        actual = [states[j][0] for j in self.joints]
        velocity = [states[j][1] for j in self.joints]
        plan = self.bridge.trajectory
        reference = dict(self._reference)
        reference_velocity: dict[str, float] = {}
        if plan is not None and plan.started:
            positions, velocities = plan.sample(t)
            reference.update(zip(plan.joints, positions))
            reference_velocity.update(zip(plan.joints, velocities))
        ref = [reference.get(j, a) for j, a in zip(self.joints, actual)]
        ref_velocity = [reference_velocity.get(j, 0.0) for j in self.joints]
        msg.reference.positions = ref
        msg.reference.velocities = ref_velocity
        msg.feedback.positions = actual
        msg.feedback.velocities = velocity
        msg.error.positions = [r - a for r, a in zip(ref, actual)]
        msg.error.velocities = [r - v for r, v in zip(ref_velocity, velocity)]
        msg.output.positions = ref
        self.node.publish(self.state_publisher, msg)

    def destroy(self) -> None:
        """Abort the running goal and take the server down (physics thread once running)."""
        self.destroyed = True
        running, self._running = self._running, None
        if running is not None:
            running.finish(Outcome(INVALID_GOAL, 'the entity was deleted'))
        self.server.destroy()
        self.node.destroy_publisher(self.state_publisher)


def _tolerance(msg: Any) -> tuple[str, float, float, float]:
    return (msg.name, msg.position, msg.velocity, msg.acceleration)


def _end(transition: Any) -> None:
    try:
        transition()
    except Exception:  # noqa: BLE001 - goal already terminal or its handle destroyed
        pass


# --- the node's servers ----------------------------------------------------------------------------

class TrajectoryActions:
    """The action servers of a node's robots: :meth:`attach` where a bridge is created,
    :meth:`detach` where it is removed (both on the physics thread once the node runs)."""

    def __init__(self, node: NodeHost):
        self.node = node
        self.servers: dict[str, FollowJointTrajectoryServer] = {}
        self._warned = False
        self._hooked = False

    def attach(self, bridge: EntityBridge) -> FollowJointTrajectoryServer | None:
        """The action server of ``bridge``'s robot (None for objects and robots without
        movable joints)."""
        if not bridge.is_robot or not bridge.joint_names:
            return None
        if FollowJointTrajectory is None:
            if not self._warned:
                self._warned = True
                self.node.get_logger().warning(
                    f'no {CONTROLLER}/{ACTION} action servers: {_MISSING}')
            return None
        if not self._hooked:
            self._hooked = True
            self.node.stepper.add_before_step(self._before_step)
        self.detach(bridge.name)
        server = FollowJointTrajectoryServer(self.node, bridge)
        self.servers[bridge.name] = server
        return server

    def detach(self, name: str) -> None:
        server = self.servers.pop(name, None)
        if server is not None:
            server.destroy()

    def _before_step(self, t: float) -> None:
        for server in list(self.servers.values()):
            server.before_step(t)
