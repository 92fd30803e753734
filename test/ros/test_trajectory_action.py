"""FollowJointTrajectory from a separate process, as MoveIt's moveit_simple_controller_manager
talks to ros2_control's joint_trajectory_controller: the bundled arm example reaches a goal
within its goal tolerance (SUCCEEDED, error_code 0, joint_states agree), a goal naming an
unknown joint ends ABORTED with INVALID_JOINTS, a cancelled goal ends CANCELED and the arm holds
still, a path tolerance violation aborts with PATH_TOLERANCE_VIOLATED, a new goal preempts the
running one; /clock and the services keep answering meanwhile. ``robot_description`` and
``joint_states`` are in the node namespace for the scene's only robot."""

from __future__ import annotations

import time

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('control_msgs.action')
pytest.importorskip('simulation_interfaces.srv')

from scene_sim_ros.ros.bridge.trajectory_action import FEEDBACK_RATE  # noqa: E402
from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node, qos, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

ACTION = '/arm/joint_trajectory_controller/follow_joint_trajectory'
JOINTS = ['waist_joint', 'shoulder_joint', 'elbow_joint', 'wrist_joint']
HOME = [0.0, 0.0, 0.0, 0.0]
TARGET = [0.5, 0.4, -0.6, 0.3]
GOAL_TOLERANCE = 0.02  # rad


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    from scene_sim_ros.resources import example_path
    with scene_sim_run(tmp_path_factory.mktemp('trajectory_action'),
                       str(example_path('arm'))) as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('trajectory_action_test_client')


class Arm:
    """The action client plus what the test hears: /clock, /arm/joint_states."""

    def __init__(self, node):
        from control_msgs.action import FollowJointTrajectory
        from rclpy.action import ActionClient
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import JointState

        self.node = node
        self.action = ActionClient(node, FollowJointTrajectory, ACTION)
        self.clock = 0.0
        self.clocks = 0
        self.state = None
        self.feedback: list = []
        self.subscriptions = [
            node.create_subscription(Clock, '/clock', self._on_clock, 10),
            node.create_subscription(JointState, '/arm/joint_states', self._on_state, qos(10)),
        ]
        assert self.action.wait_for_server(timeout_sec=30.0), 'no action server ' + ACTION
        assert spin_until(node, lambda: self.state is not None, 20.0), 'no joint states'

    def _on_clock(self, msg):
        self.clock = msg.clock.sec + msg.clock.nanosec * 1e-9
        self.clocks += 1

    def _on_state(self, msg):
        self.state = dict(zip(msg.name, msg.position))

    def positions(self):
        return [self.state[j] for j in JOINTS]

    def goal(self, points, joints=JOINTS, *, path=None, goal=None, goal_time=0.0):
        from builtin_interfaces.msg import Duration
        from control_msgs.action import FollowJointTrajectory
        from control_msgs.msg import JointTolerance
        from trajectory_msgs.msg import JointTrajectoryPoint

        msg = FollowJointTrajectory.Goal()
        msg.trajectory.joint_names = list(joints)
        for t, positions in points:
            msg.trajectory.points.append(JointTrajectoryPoint(
                positions=list(positions),
                time_from_start=Duration(sec=int(t), nanosec=int(round((t % 1) * 1e9)))))
        msg.path_tolerance = [JointTolerance(name=j, position=p) for j, p in (path or {}).items()]
        msg.goal_tolerance = [JointTolerance(name=j, position=p) for j, p in (goal or {}).items()]
        msg.goal_time_tolerance = Duration(sec=int(goal_time),
                                           nanosec=int(round((goal_time % 1) * 1e9)))
        return msg

    def send(self, goal):
        future = self.action.send_goal_async(goal, feedback_callback=self.feedback.append)
        assert spin_until(self.node, future.done, 20.0), 'no goal response'
        handle = future.result()
        assert handle.accepted
        return handle

    def result(self, handle, timeout=30.0):
        future = handle.get_result_async()
        assert spin_until(self.node, future.done, timeout), 'no result'
        return future.result()  # .status, .result

    def move(self, target, duration=1.5):
        handle = self.send(self.goal([(duration, target)], goal={j: GOAL_TOLERANCE for j in JOINTS},
                                     goal_time=3.0))
        return self.result(handle)

    def close(self):
        for subscription in self.subscriptions:
            self.node.destroy_subscription(subscription)
        self.action.destroy()


@pytest.fixture
def arm(client):
    arm = Arm(client)
    yield arm
    arm.close()


def test_goal_reaches_the_end_point_within_the_goal_tolerance(arm, client):
    from action_msgs.msg import GoalStatus
    from simulation_interfaces.srv import GetSimulationState

    assert arm.move(HOME).status == GoalStatus.STATUS_SUCCEEDED
    clocks, started = arm.clocks, arm.clock
    first = len(arm.feedback)
    handle = arm.send(arm.goal([(1.0, [0.25, 0.2, -0.3, 0.15]), (2.0, TARGET)],
                               path={j: 0.2 for j in JOINTS},
                               goal={j: GOAL_TOLERANCE for j in JOINTS}, goal_time=3.0))
    # the node keeps serving services while the goal runs
    state = call_service(client, GetSimulationState, '/get_simulation_state', timeout=10.0)
    assert state.state.state == 1  # STATE_PLAYING
    response = arm.result(handle)
    assert response.status == GoalStatus.STATUS_SUCCEEDED
    assert response.result.error_code == 0, response.result.error_string
    assert arm.clock - started >= 2.0 and arm.clocks - clocks > 50  # /clock went on
    assert arm.feedback and list(arm.feedback[-1].feedback.joint_names) == JOINTS
    # JTC's feedback: desired and actual of every joint, error = desired - actual, within the
    # path tolerance the goal gave (0.2 rad) at every control period
    # at JTC's action_monitor_rate, 20 Hz of sim time, over the goal's 2 s
    assert len(arm.feedback) - first >= 0.9 * 2.0 * FEEDBACK_RATE
    for message in arm.feedback[first:]:
        feedback = message.feedback
        desired, actual = feedback.desired.positions, feedback.actual.positions
        assert len(desired) == len(actual) == len(feedback.error.positions) == len(JOINTS)
        for d, a, e in zip(desired, actual, feedback.error.positions):
            assert e == pytest.approx(d - a, abs=1e-9) and abs(e) <= 0.2
    final = arm.feedback[-1].feedback.desired.positions
    assert list(final) == pytest.approx(TARGET, abs=0.05)  # it ends at the goal's last point
    spin_until(client, lambda: False, 0.3)  # a fresh joint state
    assert arm.positions() == pytest.approx(TARGET, abs=GOAL_TOLERANCE)


def test_a_goal_naming_an_unknown_joint_ends_with_invalid_joints(arm):
    from action_msgs.msg import GoalStatus
    from control_msgs.action import FollowJointTrajectory

    handle = arm.send(arm.goal([(1.0, [0.1, 0.1])], joints=['waist_joint', 'no_such_joint']))
    response = arm.result(handle)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.error_code == FollowJointTrajectory.Result.INVALID_JOINTS
    assert 'no_such_joint' in response.result.error_string


def test_a_non_increasing_time_from_start_ends_with_invalid_goal(arm):
    from action_msgs.msg import GoalStatus
    from control_msgs.action import FollowJointTrajectory

    response = arm.result(arm.send(arm.goal([(1.0, HOME), (1.0, TARGET)])))
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.error_code == FollowJointTrajectory.Result.INVALID_GOAL


def test_a_cancelled_goal_stops_the_arm(arm, client):
    from action_msgs.msg import GoalStatus

    assert arm.move(HOME).status == GoalStatus.STATUS_SUCCEEDED
    handle = arm.send(arm.goal([(4.0, TARGET)]))
    start = arm.clock
    assert spin_until(client, lambda: arm.clock - start > 1.0, 10.0)
    cancel = handle.cancel_goal_async()
    assert spin_until(client, cancel.done, 10.0)
    assert len(cancel.result().goals_canceling) == 1
    response = arm.result(handle)
    assert response.status == GoalStatus.STATUS_CANCELED
    spin_until(client, lambda: False, 0.5)  # settle
    stopped = arm.positions()
    assert 0.05 < stopped[0] < 0.45, stopped  # stopped on the way
    spin_until(client, lambda: False, 1.0)
    assert arm.positions() == pytest.approx(stopped, abs=2e-3)


def test_a_path_tolerance_violation_aborts(arm):
    from action_msgs.msg import GoalStatus
    from control_msgs.action import FollowJointTrajectory

    assert arm.move(HOME).status == GoalStatus.STATUS_SUCCEEDED
    # 2.5 rad in 0.5 s is beyond the servo's 120 degree/s: the arm lags behind
    handle = arm.send(arm.goal([(0.5, [2.5, 0.0, 0.0, 0.0])], path={'waist_joint': 0.05}))
    response = arm.result(handle)
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.error_code == FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED
    assert 'waist_joint' in response.result.error_string


def test_a_new_goal_preempts_the_running_one(arm, client):
    from action_msgs.msg import GoalStatus
    from control_msgs.action import FollowJointTrajectory

    first = arm.send(arm.goal([(4.0, TARGET)]))
    spin_until(client, lambda: False, 0.5)
    second = arm.send(arm.goal([(1.0, HOME)], goal={j: GOAL_TOLERANCE for j in JOINTS},
                               goal_time=3.0))
    preempted = arm.result(first)
    assert preempted.status == GoalStatus.STATUS_ABORTED
    assert preempted.result.error_code == FollowJointTrajectory.Result.INVALID_GOAL
    assert 'new incoming action' in preempted.result.error_string
    assert arm.result(second).status == GoalStatus.STATUS_SUCCEEDED


def test_controller_state_is_published(client, sim_node):
    from control_msgs.msg import JointTrajectoryControllerState

    from support.ros import wait_for_messages

    msgs = wait_for_messages(client, JointTrajectoryControllerState,
                             '/arm/joint_trajectory_controller/controller_state', count=2)
    assert list(msgs[-1].joint_names) == JOINTS
    assert len(msgs[-1].feedback.positions) == len(JOINTS)
    assert msgs[-1].speed_scaling_factor == 1.0


def test_robot_description_and_joint_states_in_the_node_namespace(client, sim_node):
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    from support.ros import wait_for_messages

    time.sleep(0.5)  # a late joiner: the URDF was published at start
    description = wait_for_messages(client, String, '/robot_description', qos=qos(1, latched=True))
    assert '<robot name="arm">' in description[0].data
    assert 'name="elbow_joint" type="revolute"' in description[0].data
    assert '<limit lower=' in description[0].data
    states = wait_for_messages(client, JointState, '/joint_states', count=2)
    assert list(states[-1].name) == JOINTS


def test_moveit_snippet_names_the_served_action_and_joints(client, sim_node):
    """config/moveit_controllers_snippet.yaml: MoveIt's action name (<controller>/<action_ns>)
    is on the graph and its joints are the arm's."""
    from pathlib import Path

    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[2] / 'config'
                             / 'moveit_controllers_snippet.yaml').read_text())
    manager = config['moveit_simple_controller_manager']
    (name,) = manager['controller_names']
    controller = manager[name]
    assert controller['type'] == 'FollowJointTrajectory'
    assert controller['joints'] == JOINTS
    action = f'/{name}/{controller["action_ns"]}'
    assert action == ACTION

    def served():
        from rclpy.action import get_action_names_and_types
        return (action, ['control_msgs/action/FollowJointTrajectory']) in \
            get_action_names_and_types(client)
    assert spin_until(client, served, 10.0)
