"""Supervisor services (simulation_interfaces) of the node, called from a separate process.

One node launch serves the module: a small scene with a ball and a four-wheeled car modelled
on SimRobot's SimpleVehicle, started paused. Before each test the node is paused and reset (the
scene's poses, no spawned entities), so every test passes alone and in any order; a test that
needs spawned entities spawns them itself. Starting paused and quitting have a node of their own
(test_supervisor_lifecycle.py).
"""

from __future__ import annotations

import math
import textwrap
import time

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

from scene_sim_ros.ros.supervisor import compat  # noqa: E402 - 1.x or 2.x definitions
from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node, spin_until, wait_for_messages  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

STEP = 0.01

WHEEL = """
      <Hinge name="{name}">
        <Translation x="{x}" y="{y}" z="-0.01"/>
        <Axis y="1.0"><VelocityMotor maxVelocity="10" maxForce="10.0"/></Axis>
        <Body name="{name}_wheel">
          <SphereAppearance radius="0.05"><Surface ref="yellow"/></SphereAppearance>
          <SphereGeometry radius="0.05"/>
          <SphereMass value="0.2kg" radius="0.05"/>
        </Body>
      </Hinge>"""

CAR = """
    <Body name="car">
      <Translation z="0.07"/>
      <BoxAppearance width="0.2" depth="0.4" height="0.06"><Surface ref="yellow"/></BoxAppearance>
      <BoxGeometry width="0.2" depth="0.4" height="0.06"/>
      <BoxMass value="2kg" width="0.2" depth="0.4" height="0.06"/>
      {wheels}
    </Body>""".format(wheels=''.join(
    WHEEL.format(name=n, x=x, y=y) for n, x, y in (
        ('backLeft', -0.12, 0.13), ('backRight', -0.12, -0.13),
        ('frontLeft', 0.12, 0.13), ('frontRight', 0.12, -0.13))))

SURFACE = '<Surface name="yellow" diffuseColor="rgb(90%, 90%, 0%)"/>'

SCENE = f"""
<Simulation>
  {SURFACE}
  <Scene name="SupervisorTest" stepLength="{STEP}s">
    <Compound name="ground">
      <Translation z="-0.1"/>
      <BoxGeometry width="20" depth="20" height="0.2"/>
    </Compound>
    <Body name="ball">
      <Translation x="2" z="0.5"/>
      <SphereGeometry radius="0.1"/>
      <SphereMass value="1kg" radius="0.1"/>
    </Body>
    {CAR}
  </Scene>
</Simulation>"""

CAR_FRAGMENT = f'<Simulation>{SURFACE}{CAR}</Simulation>'


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    folder = tmp_path_factory.mktemp('supervisor')
    scene = folder / 'scene.ros2'
    scene.write_text(textwrap.dedent(SCENE))
    with scene_sim_run(folder, str(scene), '--paused', '--real-time-factor', '0',
                       '--ros-args', '-p', 'supervisor_topics:=[ball, car]') as proc:
        yield proc
        assert proc.is_running(), 'the node did not survive the tests of this module'


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('supervisor_test_client')


def call(client, srv_type, name, **fields):
    return call_service(client, srv_type, f'/{name}', srv_type.Request(**fields), timeout=20.0)


class ClockLog:
    """The distinct /clock times (sim seconds) received while the test runs.

    While paused the node republishes the current time (so late joiners get it); a repeat of
    the latest time is not a new step and is left out.
    """

    def __init__(self, client):
        from rosgraph_msgs.msg import Clock
        self.client, self.times = client, []
        self.subscription = client.create_subscription(Clock, '/clock', self._record, 100)
        assert spin_until(client, lambda: self.subscription.get_publisher_count() > 0, 10.0)

    def _record(self, msg):
        t = msg.clock.sec + msg.clock.nanosec * 1e-9
        if not self.times or t != self.times[-1]:
            self.times.append(t)

    def settled(self, quiet=0.3):
        """The current time once no new time arrived for ``quiet`` s (the node is paused)."""
        count = -1
        while count != len(self.times):
            count = len(self.times)
            spin_until(self.client, lambda seen=count: len(self.times) > seen, quiet)
        assert self.times, 'no /clock received'
        return self.times[-1]

    def after(self, t0, steps):
        """The distinct times after ``t0`` once ``steps`` steps of STEP have arrived."""
        target = t0 + steps * STEP - 1e-9
        assert spin_until(self.client, lambda: self.times[-1] >= target, 10.0), self.times
        self.settled()
        return [t for t in self.times if t > t0 + 1e-9]

    def close(self):
        self.client.destroy_subscription(self.subscription)


@pytest.fixture
def clock(client):
    log = ClockLog(client)
    yield log
    log.close()


@pytest.fixture(autouse=True)
def paused_and_reset(client):
    """Each test starts from the scene as loaded, paused (a reset keeps the clock going)."""
    from simulation_interfaces.msg import SimulationState as S
    from simulation_interfaces.srv import GetSimulationState, ResetSimulation
    state = call(client, GetSimulationState, 'get_simulation_state').state.state
    if state == S.STATE_STOPPED:
        assert set_state(client, S.STATE_PLAYING).result == 1
    if state != S.STATE_PAUSED:
        assert set_state(client, S.STATE_PAUSED).result == 1
    reset = call(client, ResetSimulation, 'reset_simulation',
                 scope=ResetSimulation.Request.SCOPE_ALL)
    assert reset.result.result == 1, reset.result.error_message


def entity_state(client, name):
    from simulation_interfaces.srv import GetEntityState
    response = call(client, GetEntityState, 'get_entity_state', entity=name)
    assert response.result.result == 1, response.result.error_message
    return response.state


def set_state(client, target):
    from simulation_interfaces.msg import SimulationState
    from simulation_interfaces.srv import SetSimulationState
    return call(client, SetSimulationState, 'set_simulation_state',
                state=SimulationState(state=target)).result


def step(client, steps):
    from simulation_interfaces.srv import StepSimulation
    return call(client, StepSimulation, 'step_simulation', steps=steps).result


def tf_of(client, child):
    from tf2_msgs.msg import TFMessage
    found = []

    def take(msg):
        found.extend(t.transform.translation for t in msg.transforms
                     if t.child_frame_id == child)
    subscription = client.create_subscription(TFMessage, '/tf', take, 100)
    try:
        step(client, 1)
        assert spin_until(client, lambda: bool(found), 10.0), f'no {child} on /tf'
    finally:
        client.destroy_subscription(subscription)
    return found[-1]


# --- features and state -------------------------------------------------------------------------

def test_features_advertise_stepping_spawning_and_state(client):
    from simulation_interfaces.msg import SimulatorFeatures as F
    from simulation_interfaces.srv import GetSimulatorFeatures
    features = call(client, GetSimulatorFeatures, 'get_simulator_features').features
    assert {F.STEP_SIMULATION_ACTION, F.SPAWNING, F.DELETING, F.ENTITY_STATE_SETTING,
            F.SIMULATION_RESET_STATE} <= set(features.features)
    assert F.SIMULATION_RESET_TIME not in features.features
    assert list(features.spawn_formats) == ['simrobot', 'webots', 'simox', 'raisim', 'urdf']
    assert f'simulation_interfaces {compat.GENERATION}' in features.custom_info


def test_served_services_are_the_ones_scene_sim_ros_topics_lists(client):
    from scene_sim_ros.ros.runtime.interface_list import supervisor_rows
    listed = {(name, kind) for direction, name, kind in supervisor_rows() if direction == 'srv'}
    served: set[tuple[str, str]] = set()
    deadline = time.monotonic() + 10.0
    while not listed <= served and time.monotonic() < deadline:
        served = {(name, kind) for name, kinds in client.get_service_names_and_types()
                  for kind in kinds if kind.startswith('simulation_interfaces/srv/')}
        time.sleep(0.2)
    assert served == listed


def test_step_simulation_advances_clock_by_exactly_n_steps_and_the_ball_falls(client, clock):
    before_z = entity_state(client, 'ball').pose.position.z
    step(client, 1)
    t0 = clock.settled()
    result = step(client, 10)
    assert result.result == 1, result.error_message
    assert clock.after(t0, 10) == pytest.approx([t0 + k * STEP for k in range(1, 11)], abs=1e-9)
    after = entity_state(client, 'ball')
    assert after.pose.position.z < before_z - 0.5 * 9.81 * (10 * STEP) ** 2 * 0.9
    assert after.twist.linear.z < -0.9 * 9.81 * 11 * STEP


def test_simulate_steps_action_gives_feedback_and_completes(client, clock):
    from rclpy.action import ActionClient
    from simulation_interfaces.action import SimulateSteps
    action = ActionClient(client, SimulateSteps, '/simulate_steps')
    try:
        assert spin_until(client, action.server_is_ready, 20.0)
        step(client, 1)
        t0 = clock.settled()
        feedback = []
        goal = action.send_goal_async(SimulateSteps.Goal(steps=5),
                                      feedback_callback=lambda m: feedback.append(m.feedback))
        assert spin_until(client, goal.done, 10.0)
        result = goal.result().get_result_async()
        assert spin_until(client, result.done, 10.0)
        assert result.result().result.result.result == 1
        spin_until(client, lambda: len(feedback) >= 5, 2.0)
        assert [(f.completed_steps, f.remaining_steps) for f in feedback] == [
            (k, 5 - k) for k in range(1, 6)]
        assert clock.after(t0, 5) == pytest.approx([t0 + k * STEP for k in range(1, 6)],
                                                   abs=1e-9)
    finally:
        action.destroy()


def test_stepping_while_playing_fails_and_state_transitions_report_codes(client):
    from simulation_interfaces.msg import SimulationState as S
    assert set_state(client, S.STATE_PLAYING).result == 1
    assert set_state(client, S.STATE_PLAYING).result == 101  # ALREADY_IN_TARGET_STATE
    result = step(client, 3)
    assert result.result == 4 and 'paused' in result.error_message  # OPERATION_FAILED
    assert set_state(client, S.STATE_PAUSED).result == 1
    assert set_state(client, 42).result == 103  # INCORRECT_TRANSITION
    assert step(client, 0).result == 4


# --- entity state -------------------------------------------------------------------------------

def test_set_entity_state_puts_the_ball_at_a_pose_and_tf_agrees(client):
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState
    state = EntityState()
    state.header.frame_id = 'world'
    state.pose.position.x, state.pose.position.y, state.pose.position.z = 1.0, 2.0, 0.5
    response = call(client, SetEntityState, 'set_entity_state', entity='ball', state=state,
                    **compat.state_flag_fields(pose=True, twist=True))
    assert response.result.result == 1, response.result.error_message
    read = entity_state(client, 'ball')
    assert (read.pose.position.x, read.pose.position.y, read.pose.position.z) == pytest.approx(
        (1.0, 2.0, 0.5), abs=1e-9)
    assert read.header.frame_id == 'world'
    seen = tf_of(client, 'ball/ball')  # one step later: the ball fell for one step
    assert (seen.x, seen.y) == pytest.approx((1.0, 2.0), abs=1e-6)
    assert seen.z == pytest.approx(0.5 - 9.81 * STEP ** 2, abs=2e-3)


def test_set_entity_state_in_an_entity_frame(client):
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState
    car = entity_state(client, 'car').pose.position
    state = EntityState()
    state.header.frame_id = 'car'
    state.pose.position.x, state.pose.position.z = 0.5, 1.0
    state.twist.linear.z = 1.0
    response = call(client, SetEntityState, 'set_entity_state', entity='ball', state=state,
                    **compat.state_flag_fields(pose=True, twist=True))
    assert response.result.result == 1, response.result.error_message
    ball = entity_state(client, 'ball')
    assert ball.pose.position.x == pytest.approx(car.x + 0.5, abs=1e-3)  # car is level
    assert ball.pose.position.z == pytest.approx(car.z + 1.0, abs=1e-3)
    assert ball.twist.linear.z == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize('entity, frame, position, code', [
    ('nope', 'world', (0, 0, 1), 2),  # NOT_FOUND
    ('ball', 'map', (0, 0, 1), 2),  # unknown reference frame
    ('ball', 'car/no_link', (0, 0, 1), 2),
    ('ball', 'world', (math.nan, 0, 1), 101),  # INVALID_POSE
])
def test_set_entity_state_errors(client, entity, frame, position, code):
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState
    state = EntityState()
    state.header.frame_id = frame
    state.pose.position.x, state.pose.position.y, state.pose.position.z = position
    response = call(client, SetEntityState, 'set_entity_state', entity=entity, state=state,
                    **compat.state_flag_fields(pose=True))
    assert response.result.result == code
    assert response.result.error_message


def test_set_entity_state_flags_of_the_installed_release(client):
    """2.x: only what the flags choose is set; 1.x (no flags): pose and twist together. A
    fixed entity takes a zero twist (ignored) but answers OPERATION_FAILED to a non-zero one."""
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState
    state = EntityState()
    state.pose.position.x, state.pose.position.y, state.pose.position.z = -3.0, 3.0, 2.0
    state.twist.linear.x = 1.0
    assert call(client, SetEntityState, 'set_entity_state', entity='ball', state=state,
                **compat.state_flag_fields(pose=True, twist=True)).result.result == 1
    moved = EntityState()
    moved.pose.position.x, moved.pose.position.y, moved.pose.position.z = -3.0, 4.0, 2.0
    response = call(client, SetEntityState, 'set_entity_state', entity='ball', state=moved,
                    **compat.state_flag_fields(pose=True))
    assert response.result.result == 1, response.result.error_message
    ball = entity_state(client, 'ball')
    assert ball.pose.position.y == pytest.approx(4.0, abs=1e-9)
    # 2.x kept the twist (set_twist false); 1.x set the request's zero twist
    assert ball.twist.linear.x == pytest.approx(1.0 if compat.STATE_FLAGS else 0.0, abs=1e-9)
    if compat.STATE_FLAGS:
        accel = call(client, SetEntityState, 'set_entity_state', entity='ball', state=moved,
                     set_acceleration=True)
        assert accel.result.result == 0  # FEATURE_UNSUPPORTED
    ground = entity_state(client, 'ground')
    still = EntityState(pose=ground.pose)
    assert call(client, SetEntityState, 'set_entity_state', entity='ground', state=still,
                **compat.state_flag_fields(pose=True, twist=True)).result.result == 1
    still.twist.linear.z = 1.0
    spinning = call(client, SetEntityState, 'set_entity_state', entity='ground', state=still,
                    **compat.state_flag_fields(pose=True, twist=True))
    assert spinning.result.result == 4 and 'fixed' in spinning.result.error_message


# --- entities -----------------------------------------------------------------------------------

def test_get_entities_filters_by_regex_category_and_tags(client):
    from simulation_interfaces.msg import EntityCategory, EntityFilters
    from simulation_interfaces.srv import GetEntities

    def names(**fields):
        response = call(client, GetEntities, 'get_entities', filters=EntityFilters(**fields))
        assert response.result.result == 1, response.result.error_message
        return list(response.entities)
    assert names() == ['ground', 'ball', 'car']
    assert names(filter='^b') == ['ball']
    assert names(categories=[EntityCategory(category=EntityCategory.CATEGORY_ROBOT)]) == ['car']
    filters = EntityFilters()
    filters.tags.tags = ['static']
    assert names(tags=filters.tags) == ['ground']
    bad = call(client, GetEntities, 'get_entities', filters=EntityFilters(filter='(['))
    assert bad.result.result == 4 and 'filter' in bad.result.error_message


def test_get_entity_info_and_unknown_entities(client):
    from simulation_interfaces.msg import EntityCategory
    from simulation_interfaces.srv import DeleteEntity, GetEntityInfo, GetEntityState
    info = call(client, GetEntityInfo, 'get_entity_info', entity='car')
    assert info.info.category.category == EntityCategory.CATEGORY_ROBOT
    assert 'loaded' in info.info.tags and '4 movable joints' in info.info.description
    for srv, name in ((GetEntityInfo, 'get_entity_info'), (GetEntityState, 'get_entity_state'),
                      (DeleteEntity, 'delete_entity')):
        response = call(client, srv, name, entity='no_such_thing')
        assert response.result.result == 2 and 'no_such_thing' in response.result.error_message


def test_get_entities_states_lists_matching_states(client):
    from simulation_interfaces.msg import EntityFilters
    from simulation_interfaces.srv import GetEntitiesStates
    response = call(client, GetEntitiesStates, 'get_entities_states',
                    filters=EntityFilters(filter='ball|car'))
    assert list(response.entities) == ['ball', 'car']
    ball = entity_state(client, 'ball')
    assert response.states[0].pose.position.x == pytest.approx(ball.pose.position.x)


# --- spawn, delete, reset -----------------------------------------------------------------------

def spawn(client, name, *, text=CAR_FRAGMENT, uri='', xyz=(0.0, 2.0, 0.0), rename=False):
    from simulation_interfaces.srv import SpawnEntity
    request = SpawnEntity.Request(name=name, allow_renaming=rename,
                                  **compat.spawn_resource_fields(uri, text))
    p = request.initial_pose.pose.position
    p.x, p.y, p.z = xyz
    return call_service(client, SpawnEntity, '/spawn_entity', request, timeout=20.0)


def test_spawned_car_gets_topics_and_drives_on_command(client):
    from sensor_msgs.msg import JointState
    from simulation_interfaces.msg import SimulationState as S
    from std_msgs.msg import Float64MultiArray, String
    response = spawn(client, 'car2')
    assert response.result.result == 1, response.result.error_message
    assert response.entity_name == 'car2'
    start = entity_state(client, 'car2').pose.position
    assert (start.x, start.y) == pytest.approx((0.0, 2.0), abs=1e-6)
    assert start.z == pytest.approx(0.07, abs=1e-6)  # the fragment's own height above the pose
    from rclpy.qos import DurabilityPolicy, QoSProfile
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    (urdf,) = wait_for_messages(client, String, '/car2/robot_description', qos=latched)
    assert '<robot' in urdf.data
    commands = client.create_publisher(Float64MultiArray, '/car2/velocity_controller/commands',
                                       10)
    spin_until(client, lambda: commands.get_subscription_count() > 0, 10.0)
    assert set_state(client, S.STATE_PLAYING).result == 1
    try:
        (states,) = wait_for_messages(client, JointState, '/car2/joint_states', timeout=20.0)
        assert list(states.name) == ['backLeft', 'backRight', 'frontLeft', 'frontRight']
        for _ in range(20):
            commands.publish(Float64MultiArray(data=[8.0] * 4))
            spin_until(client, lambda: False, 0.05)
    finally:
        assert set_state(client, S.STATE_PAUSED).result == 1
        client.destroy_publisher(commands)
    end = entity_state(client, 'car2').pose.position
    # forward (+x, the fragment's heading) at positive wheel speeds, not sideways or back
    assert end.x - start.x > 0.1 and abs(end.y - start.y) < 0.2 * (end.x - start.x)


def test_spawn_errors_return_their_codes(client):
    assert spawn(client, 'car2').result.result == 1
    assert spawn(client, 'car2').result.result == 101  # NAME_NOT_UNIQUE
    renamed = spawn(client, 'car2', rename=True, xyz=(0.0, -2.0, 0.0))
    assert renamed.result.result == 1 and renamed.entity_name == 'car2_2'
    assert spawn(client, '9 lives').result.result == 102  # NAME_INVALID
    assert spawn(client, 'x', text='').result.result == 104  # NO_RESOURCE
    broken = spawn(client, 'x', text='<Body name="b"><Nonsense')
    assert broken.result.result == 106 and broken.result.error_message  # RESOURCE_PARSE_ERROR
    assert spawn(client, 'x', xyz=(math.nan, 0, 0)).result.result == 109  # INVALID_POSE
    assert spawn(client, 'x', text='', uri='/no/such/file.ros2').result.result == 2
    assert spawn(client, 'x', text='', uri='http://example.com/a.ros2').result.result == 103


def test_delete_entity_removes_it_and_its_topics(client):
    from simulation_interfaces.srv import DeleteEntity
    assert spawn(client, 'car2').result.result == 1
    assert spawn(client, 'car2_2', xyz=(0.0, -2.0, 0.0)).result.result == 1

    def topics():
        return {name for name, _ in client.get_topic_names_and_types()}
    assert spin_until(client, lambda: '/car2_2/joint_states' in topics(), 10.0)
    assert call(client, DeleteEntity, 'delete_entity', entity='car2_2').result.result == 1
    assert spin_until(client, lambda: '/car2_2/joint_states' not in topics(), 10.0)
    assert '/car2/joint_states' in topics()
    assert call(client, DeleteEntity, 'delete_entity', entity='car2_2').result.result == 2


def test_the_node_survives_many_spawn_delete_cycles_of_a_robot(client, sim_node):
    """Deleting destroys the robot's subscriptions and action server; done on the physics
    thread under the executor's wait set it ended the node within 50-550 cycles."""
    from simulation_interfaces.srv import DeleteEntity
    for cycle in range(100):
        assert spawn(client, 'car3').result.result == 1, f'cycle {cycle}'
        deleted = call(client, DeleteEntity, 'delete_entity', entity='car3').result
        assert deleted.result == 1, f'cycle {cycle}: {deleted.error_message}'
    assert sim_node.is_running()


def test_reset_restores_poses_removes_spawned_and_keeps_the_clock_going(client, clock):
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import GetEntities, ResetSimulation, SetEntityState
    assert spawn(client, 'car2').result.result == 1
    elsewhere = EntityState()
    elsewhere.pose.position.y, elsewhere.pose.position.z = -3.0, 1.0
    moved = call(client, SetEntityState, 'set_entity_state', entity='ball', state=elsewhere,
                 **compat.state_flag_fields(pose=True, twist=True))
    assert moved.result.result == 1, moved.result.error_message
    step(client, 1)
    before = clock.settled()
    response = call(client, ResetSimulation, 'reset_simulation',
                    scope=ResetSimulation.Request.SCOPE_ALL)
    assert response.result.result == 1, response.result.error_message
    assert list(call(client, GetEntities, 'get_entities').entities) == ['ground', 'ball', 'car']
    ball = entity_state(client, 'ball').pose.position
    assert (ball.x, ball.y, ball.z) == pytest.approx((2.0, 0.0, 0.5), abs=1e-9)
    step(client, 1)
    assert clock.after(before, 1) == pytest.approx([before + STEP], abs=1e-9)  # never backwards
    time_only = call(client, ResetSimulation, 'reset_simulation', scope=1)
    assert time_only.result.result == 0  # FEATURE_UNSUPPORTED: time never goes back


# --- Webots-Supervisor extras -------------------------------------------------------------------

def publish_until_handled(client, msg_type, topic, msg):
    publisher = client.create_publisher(msg_type, topic, 10)
    try:
        assert spin_until(client, lambda: publisher.get_subscription_count() > 0, 10.0)
        publisher.publish(msg)
        spin_until(client, lambda: False, 0.3)  # the physics thread runs it while paused
    finally:
        client.destroy_publisher(publisher)


def test_apply_wrench_then_reset_entity(client):
    from geometry_msgs.msg import WrenchStamped
    from simulation_interfaces.msg import EntityState
    from simulation_interfaces.srv import SetEntityState
    from std_msgs.msg import String
    state = EntityState()
    state.pose.position.x, state.pose.position.y, state.pose.position.z = 5.0, 5.0, 2.0
    assert call(client, SetEntityState, 'set_entity_state', entity='ball', state=state,
                **compat.state_flag_fields(pose=True, twist=True)).result.result == 1
    wrench = WrenchStamped()
    wrench.header.frame_id = 'ball'
    wrench.wrench.force.x = 100.0
    publish_until_handled(client, WrenchStamped, '/scene_sim/apply_wrench', wrench)
    step(client, 1)
    ball = entity_state(client, 'ball')
    assert ball.twist.linear.x == pytest.approx(100.0 / 1.0 * STEP, rel=0.02)  # F/m * dt
    publish_until_handled(client, String, '/scene_sim/reset_entity', String(data='ball'))
    ball = entity_state(client, 'ball')
    assert (ball.pose.position.x, ball.pose.position.y, ball.pose.position.z) == (2.0, 0.0, 0.5)
    assert ball.twist.linear.x == 0.0


def test_set_joint_positions_teleports_a_joint(client):
    from sensor_msgs.msg import JointState
    command = JointState(name=['backLeft'], position=[1.0])
    command.header.frame_id = 'car'
    publish_until_handled(client, JointState, '/scene_sim/set_joint_positions', command)
    subscription_msgs = []
    subscription = client.create_subscription(JointState, '/car/joint_states',
                                              subscription_msgs.append, 10)
    try:
        spin_until(client, lambda: subscription.get_publisher_count() > 0, 10.0)
        step(client, 1)
        assert spin_until(client, lambda: bool(subscription_msgs), 10.0)
    finally:
        client.destroy_subscription(subscription)
    assert subscription_msgs[-1].position[0] == pytest.approx(1.0, abs=0.05)


def test_center_of_mass_and_contacts_while_subscribed(client):
    from geometry_msgs.msg import PointStamped
    from sensor_msgs.msg import PointCloud2
    got = {'com': [], 'contacts': []}
    subscriptions = [
        client.create_subscription(PointStamped, '/ball/center_of_mass', got['com'].append, 10),
        client.create_subscription(PointCloud2, '/car/contacts', got['contacts'].append, 10)]
    try:
        spin_until(client, lambda: all(s.get_publisher_count() for s in subscriptions), 10.0)
        # the clouds of the steps before the car rests on its wheels have fewer points, and the
        # messages of one step_simulation call arrive in any order: step until a resting one came
        for _ in range(10):
            step(client, 10)
            if spin_until(client, lambda: got['com'] and any(c.width >= 4
                                                             for c in got['contacts']), 2.0):
                break
    finally:
        for s in subscriptions:
            client.destroy_subscription(s)
    ball = entity_state(client, 'ball').pose.position
    com = got['com'][-1].point
    # only the entities of supervisor_topics have them
    with_topics = {name.split('/')[1] for name, _ in client.get_topic_names_and_types()
                   if name.endswith(('/center_of_mass', '/contacts'))}
    assert with_topics == {'ball', 'car'}
    assert (com.x, com.y) == pytest.approx((ball.x, ball.y), abs=1e-6)
    cloud = got['contacts'][-1]
    assert [f.name for f in cloud.fields][:3] == ['x', 'y', 'z']
    assert any(c.width >= 4 for c in got['contacts'])  # the wheels


def test_scene_camera_renders_from_a_viewpoint(client):
    from geometry_msgs.msg import PoseStamped
    from sensor_msgs.msg import Image
    images = []
    subscription = client.create_subscription(Image, '/scene_sim/scene_camera/image_raw',
                                              images.append, 2)
    try:
        spin_until(client, lambda: subscription.get_publisher_count() > 0, 10.0)
        view = PoseStamped()
        view.pose.position.x, view.pose.position.z = -1.5, 0.5
        publish_until_handled(client, PoseStamped, '/scene_sim/scene_camera/viewpoint', view)
        assert spin_until(client, lambda: bool(images), 20.0)
    finally:
        client.destroy_subscription(subscription)
    image = images[0]
    assert (image.width, image.height, image.encoding) == (640, 480, 'rgb8')
    pixels = bytes(image.data)
    centre = (240 * 640 + 320) * 3
    assert pixels[centre:centre + 3] != pixels[:3]  # the yellow car in front, not sky


def test_stopped_resets_and_pauses_and_only_plays_from_there(client):
    from simulation_interfaces.msg import SimulationState as S
    from simulation_interfaces.srv import GetSimulationState
    step(client, 20)
    assert set_state(client, S.STATE_STOPPED).result == 1
    assert call(client, GetSimulationState, 'get_simulation_state').state.state == S.STATE_STOPPED
    ball = entity_state(client, 'ball').pose.position
    assert (ball.x, ball.y, ball.z) == (2.0, 0.0, 0.5)
    assert set_state(client, S.STATE_PAUSED).result == 103  # INCORRECT_TRANSITION
    assert step(client, 1).result == 4
    assert set_state(client, S.STATE_PLAYING).result == 1
    assert set_state(client, S.STATE_PAUSED).result == 1

