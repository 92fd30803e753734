"""Worlds, spawnables, bounds, named poses and entity info (simulation_interfaces), called from a
separate process as any client of the standard calls them.

One node serves the module: the bundled default scene (rover, ball, crate walls), paused, with
``worlds.paths`` naming a folder of this module's (a good world and one that does not parse)
and ``named_poses`` a YAML file. Before each test the default world is loaded again if another
one is, spawned entities are removed and the node is paused, so every test passes alone and in
any order. test_supervisor_other_release.py runs this module against the other release.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

from scene_sim_ros.ros.supervisor import compat  # noqa: E402 - 1.x or 2.x definitions
from support.processes import scene_sim_run  # noqa: E402
from support.ros import call_service, client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

BALL_RADIUS = 0.1   # default.ros2's ball
ALL_SERVICES = {
    'get_simulator_features': 'GetSimulatorFeatures', 'get_simulation_state': 'GetSimulationState',
    'set_simulation_state': 'SetSimulationState', 'step_simulation': 'StepSimulation',
    'reset_simulation': 'ResetSimulation', 'get_entities': 'GetEntities',
    'get_entity_info': 'GetEntityInfo', 'get_entity_state': 'GetEntityState',
    'get_entities_states': 'GetEntitiesStates', 'set_entity_state': 'SetEntityState',
    'spawn_entity': 'SpawnEntity', 'delete_entity': 'DeleteEntity',
    'get_available_worlds': 'GetAvailableWorlds', 'get_current_world': 'GetCurrentWorld',
    'load_world': 'LoadWorld', 'unload_world': 'UnloadWorld', 'get_spawnables': 'GetSpawnables',
    'spawn_entities': 'SpawnEntities', 'get_entity_bounds': 'GetEntityBounds',
    'get_named_poses': 'GetNamedPoses', 'get_named_pose_bounds': 'GetNamedPoseBounds',
    'set_entity_info': 'SetEntityInfo'}
"""The 22 services of simulation_interfaces (1.5.1 on), by the names O3DE and Isaac Sim use."""

SMALL_WORLD = """<Simulation>
  <Scene name="Pucks" stepLength="0.01s">
    <Compound name="floor"><BoxGeometry width="4" depth="4" height="0.1"/></Compound>
    <Body name="puck">
      <Translation z="0.5"/>
      <CylinderGeometry radius="0.2" height="0.05"/>
      <CylinderMass value="0.5kg" radius="0.2" height="0.05"/>
    </Body>
  </Scene>
</Simulation>
"""

BROKEN_WORLD = """<Simulation>
  <Scene name="Broken" stepLength="0.01s">
    <Body name="b">
      <SphereGeometry radius="0.1">
    </Body>
  </Scene>
</Simulation>
"""

MESHLESS_ROBOT = """<?xml version="1.0"?>
<robot name="meshless">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="missing_body.stl"/></geometry></collision>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
</robot>
"""

NAMED_POSES = """\
dock:
  position: [1.5, -0.5, 0.0]
  yaw: 1.5707963
  description: by the charging station
  tags: [parking, spawn]
  bounds: [[-0.4, -0.3, 0.0], [0.4, 0.3, 0.5]]
"""


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp('worlds')
    (folder / 'worlds').mkdir()
    (folder / 'worlds' / 'pucks.ros2').write_text(SMALL_WORLD)
    (folder / 'worlds' / 'broken.ros2').write_text(BROKEN_WORLD)
    (folder / 'worlds' / 'meshless.urdf').write_text(MESHLESS_ROBOT)
    (folder / 'poses.yaml').write_text(NAMED_POSES)
    return folder


@pytest.fixture(scope='module')
def sim_node(folder):
    with scene_sim_run(folder, '--paused', '--real-time-factor', '0',
                       '--worlds', str(folder / 'worlds'), '--ros-args',
                       '-p', f'named_poses:={folder / "poses.yaml"}') as proc:
        yield proc
        assert proc.is_running(), 'the node did not survive the tests of this module'


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('supervisor_worlds_client')


def srv(name):
    import simulation_interfaces.srv
    return getattr(simulation_interfaces.srv, ALL_SERVICES[name])


def call(client, service, timeout=30.0, **fields):
    kind = srv(service)
    return call_service(client, kind, f'/{service}', kind.Request(**fields), timeout=timeout)


def ok(response):
    from simulation_interfaces.msg import Result
    assert response.result.result == Result.RESULT_OK, response.result.error_message
    return response


def load(client, uri='', text='', **fields):
    return call(client, 'load_world', **compat.world_resource_fields(uri, text), **fields)


def entities(client):
    return sorted(ok(call(client, 'get_entities')).entities)


def state(client):
    return ok(call(client, 'get_simulation_state')).state.state


@pytest.fixture(autouse=True)
def default_world(client):
    """Each test starts in the default world, paused, nothing spawned."""
    from simulation_interfaces.msg import SimulationState
    current = call(client, 'get_current_world')
    if current.result.result != 1 or current.world.name != 'default':   # 1: RESULT_OK
        ok(load(client, 'default'))
    if state(client) != SimulationState.STATE_PAUSED:
        call(client, 'set_simulation_state', state=SimulationState(state=SimulationState.STATE_PAUSED))
    ok(call(client, 'reset_simulation', scope=4))   # SCOPE_SPAWNED
    yield


def test_all_22_services_are_served_with_their_types_and_advertised(client):
    from simulation_interfaces.msg import SimulatorFeatures as F

    def served():
        found = dict(client.get_service_names_and_types())
        return {n: found.get(f'/{n}') for n in ALL_SERVICES}
    spin_until(client, lambda: all(served().values()), 10.0)
    assert served() == {n: [f'simulation_interfaces/srv/{t}'] for n, t in ALL_SERVICES.items()}
    features = set(call(client, 'get_simulator_features').features.features)
    assert {F.WORLD_LOADING, F.WORLD_RESOURCE_STRING, F.WORLD_TAGS, F.WORLD_UNLOADING,
            F.WORLD_INFO_GETTING, F.AVAILABLE_WORLDS, F.SPAWNABLES, F.SPAWNING_ENTITIES,
            F.ENTITY_BOUNDS, F.ENTITY_BOUNDS_BOX, F.ENTITY_BOUNDS_CONVEX, F.NAMED_POSES,
            F.POSE_BOUNDS, F.ENTITY_INFO_SETTING} <= features
    assert F.SIMULATION_RESET_TIME not in features


def test_available_worlds_are_the_examples_the_default_scene_and_the_folder(client, folder):
    worlds = {w.name: w for w in ok(call(client, 'get_available_worlds')).worlds}
    assert len(worlds) >= 6
    assert {'default', 'car', 'arm', 'webots_scout', 'simox_scene', 'raisim_world',
            'pucks', 'broken'} <= set(worlds)
    car = worlds['car']
    assert car.world_resource.uri.startswith('file://') and car.world_resource.uri.endswith(
        '/car.ros2')
    assert {'simrobot', 'robot:car', 'sensor:camera', 'example'} <= set(car.tags)
    assert car.description
    assert {'simrobot', 'folder'} <= set(worlds['pucks'].tags)
    assert 'error' in worlds['broken'].tags   # listed, and said not to load
    webots = ok(call(client, 'get_available_worlds', filter=_tags(['webots']))).worlds
    assert webots and all('webots' in w.tags for w in webots)
    both = ok(call(client, 'get_available_worlds', filter=_tags(['webots', 'example'],
                                                                 all_of=True))).worlds
    assert {w.name for w in both} == {'webots_scout', 'ScoutRobot'}


def test_available_worlds_sources_outside_the_folders_fail_unless_told_to_go_on(client, folder):
    from simulation_interfaces.msg import Result
    refused = call(client, 'get_available_worlds', additional_sources=['/etc'])
    assert refused.result.result == Result.RESULT_OPERATION_FAILED
    assert 'outside the folders' in refused.result.error_message
    went_on = ok(call(client, 'get_available_worlds', additional_sources=['/etc'],
                      continue_on_error=True))
    assert 'outside the folders' in went_on.result.error_message and went_on.worlds
    inside = ok(call(client, 'get_available_worlds',
                     additional_sources=[(folder / 'worlds').as_uri()]))
    assert 'source' in {t for w in inside.worlds for t in w.tags}
    offline = ok(call(client, 'get_available_worlds', additional_sources=['https://x.org/w'],
                      offline_only=True))
    assert offline.worlds


def test_load_world_replaces_the_default_scene_within_5_s(client):
    assert 'rover' in entities(client)
    started = time.monotonic()
    response = ok(load(client, 'car'))
    elapsed = time.monotonic() - started
    assert elapsed < 5.0
    assert response.world.name == 'car'
    names = entities(client)
    assert 'car' in names and 'rover' not in names and 'ball' not in names
    assert spin_until(client, lambda: client.count_publishers('/car/joint_states') == 1
                      and client.count_publishers('/rover/joint_states') == 0, 10.0)
    current = ok(call(client, 'get_current_world')).world
    assert current.name == 'car' and 'robot:car' in current.tags


def test_unload_leaves_no_world_and_load_brings_one_back(client):
    from simulation_interfaces.msg import SimulationState as S
    from simulation_interfaces.srv import GetCurrentWorld, SetSimulationState, UnloadWorld
    ok(call(client, 'unload_world'))
    assert state(client) == S.STATE_NO_WORLD
    assert call(client, 'get_current_world').result.result == GetCurrentWorld.Response.NO_WORLD_LOADED
    assert entities(client) == []
    assert call(client, 'unload_world').result.result == UnloadWorld.Response.NO_WORLD_LOADED
    refused = call(client, 'set_simulation_state', state=S(state=S.STATE_PLAYING))
    assert refused.result.result == SetSimulationState.Response.INCORRECT_TRANSITION
    assert call(client, 'step_simulation', steps=1).result.result == 4   # OPERATION_FAILED
    assert call(client, 'reset_simulation').result.result == 3   # RESULT_INCORRECT_STATE
    ok(load(client, 'default'))
    assert state(client) == S.STATE_PAUSED
    assert 'rover' in entities(client)


def test_load_world_keeps_playing_and_clock_never_goes_back(client):
    """tf2's TransformListener clears its buffer on a jump back in time, found through this
    same rclpy jump callback of a use_sim_time clock."""
    from rclpy.clock import ClockType, JumpThreshold
    from rclpy.duration import Duration
    from rclpy.parameter import Parameter
    from rosgraph_msgs.msg import Clock
    from simulation_interfaces.msg import SimulationState as S
    client.set_parameters([Parameter('use_sim_time', value=True)])
    jumps_back, times = [], []
    handler = client.get_clock().create_jump_callback(
        JumpThreshold(min_forward=None, min_backward=Duration(nanoseconds=-1),
                      on_clock_change=True),
        post_callback=lambda jump: jumps_back.append(jump))
    subscription = client.create_subscription(
        Clock, '/clock', lambda m: times.append(m.clock.sec + m.clock.nanosec * 1e-9), 1000)
    try:
        assert client.get_clock().clock_type == ClockType.ROS_TIME
        ok(call(client, 'set_simulation_state', state=S(state=S.STATE_PLAYING)))
        spin_until(client, lambda: len(times) > 20, 10.0)
        ok(load(client, 'car'))
        assert state(client) == S.STATE_PLAYING   # the loaded world keeps the play state
        count = len(times)
        assert spin_until(client, lambda: len(times) > count + 20, 10.0)
        ok(load(client, 'default'))
        count = len(times)
        assert spin_until(client, lambda: len(times) > count + 20, 10.0)
    finally:
        client.destroy_subscription(subscription)
        handler.unregister()
        client.set_parameters([Parameter('use_sim_time', value=False)])
    assert all(b >= a for a, b in zip(times, times[1:])), 'sim time went back'
    assert jumps_back == []


def test_tf2_ros_buffer_across_load_world_keeps_its_frames_and_finds_the_new_ones(client):
    """The consumer's own code: tf2_ros' Buffer and TransformListener on a use_sim_time node
    (the Buffer clears itself on a jump back of its clock: 'Detected jump back in time')."""
    tf2_ros = pytest.importorskip('tf2_ros', reason='tf2_ros is not on PyPI: runs on a ROS 2 '
                                                    'distribution or a tools environment')
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.time import Time
    from simulation_interfaces.msg import SimulationState as S
    node = rclpy.create_node('tf2_across_worlds', context=client.context,
                             parameter_overrides=[Parameter('use_sim_time', value=True)])
    executor = SingleThreadedExecutor(context=client.context)
    executor.add_node(node)
    buffer = tf2_ros.Buffer(node=node)
    clears = []
    buffer.clear = lambda: clears.append(node.get_clock().now())
    listener = tf2_ros.TransformListener(buffer, node)

    def knows(frame, timeout=20.0):
        deadline = time.monotonic() + timeout
        while not buffer.can_transform('world', frame, Time()):
            if time.monotonic() > deadline:
                return False
            executor.spin_once(timeout_sec=0.05)
        return True
    try:
        ok(call(client, 'set_simulation_state', state=S(state=S.STATE_PLAYING)))
        assert knows('rover/rover')
        ok(load(client, 'car'))
        assert knows('car/car')
        ok(load(client, 'default'))
        assert knows('ball/ball')
        assert buffer.can_transform('world', 'car/car', Time())   # kept: nothing was cleared
        assert clears == []
    finally:
        listener.unregister()
        executor.shutdown()
        node.destroy_node()


def test_a_world_that_does_not_parse_changes_nothing_and_says_where(client, folder):
    from simulation_interfaces.srv import LoadWorld
    before = entities(client)
    response = load(client, (folder / 'worlds' / 'broken.ros2').as_uri())
    assert response.result.result == LoadWorld.Response.RESOURCE_PARSE_ERROR
    assert re.search(r'broken\.ros2:\d+: ', response.result.error_message), \
        response.result.error_message
    assert ok(call(client, 'get_current_world')).world.name == 'default'
    assert entities(client) == before


@pytest.mark.parametrize('outside', ['file:///etc/passwd', '/etc/passwd', '{folder}/../../../etc/passwd',
                                     'package://scene_sim_ros/../../../../etc/passwd'])
def test_a_uri_outside_the_world_folders_is_refused_unread(client, folder, outside):
    from simulation_interfaces.msg import Result
    response = load(client, outside.format(folder=folder))
    assert response.result.result in (Result.RESULT_OPERATION_FAILED, Result.RESULT_NOT_FOUND)
    assert 'root:' not in response.result.error_message
    assert ok(call(client, 'get_current_world')).world.name == 'default'


def test_missing_assets_fail_a_load_unless_ignored_as_the_srv_says(client, folder):
    from simulation_interfaces.srv import LoadWorld
    uri = (folder / 'worlds' / 'meshless.urdf').as_uri()
    refused = load(client, uri)
    assert refused.result.result == LoadWorld.Response.MISSING_ASSETS
    assert re.search(r"meshless\.urdf:\d+: .*'missing_body\.stl' not found",
                     refused.result.error_message), refused.result.error_message
    assert ok(call(client, 'get_current_world')).world.name == 'default'
    ok(load(client, uri, ignore_missing_or_unsupported_assets=True))
    assert entities(client) == ['meshless']


@pytest.mark.parametrize('name, text', [
    ('simox.xml', '<Scene name="S"><Robot name="r"><File>missing_robot.xml</File></Robot></Scene>'),
    ('raisim.xml', '<raisim version="1.0"><objects><mesh name="m" file_name="missing.obj" '
                   'mass="1"/></objects></raisim>'),
    ('webots.wbt', '#VRML_SIM R2023b utf8\nSolid { children [ Shape { appearance Appearance { '
                   'texture ImageTexture { url [ "missing.png" ] } } geometry Box { } } ] }\n'),
    ('urdf.urdf', MESHLESS_ROBOT)])
def test_every_loader_words_a_missing_file_as_load_world_recognises_it(tmp_path, name, text):
    from scene_sim_ros import load_scene
    from scene_sim_ros.ros.supervisor.world_services import MISSING_ASSET
    (tmp_path / name).write_text(text)
    warnings = load_scene(tmp_path / name).warnings
    assert len(warnings) == 1 and MISSING_ASSET.search(warnings[0]), warnings


def test_bad_load_requests_answer_the_srv_codes(client):
    from simulation_interfaces.srv import LoadWorld
    assert load(client).result.result == LoadWorld.Response.NO_RESOURCE
    assert load(client, text='just text').result.result == LoadWorld.Response.UNSUPPORTED_FORMAT
    assert load(client, 'http://example.com/w.wbt').result.result == \
        LoadWorld.Response.UNSUPPORTED_FORMAT
    assert load(client, 'no_such_world').result.result == 2   # RESULT_NOT_FOUND


def test_load_world_from_a_resource_string(client):
    response = ok(load(client, text=SMALL_WORLD))
    assert response.world.name == 'Pucks' and response.world.world_resource.resource_string
    assert entities(client) == ['floor', 'puck']


def test_spawnables_spawn_two_at_once_and_report_each(client):
    from simulation_interfaces.msg import Resource, SpawnEntity, SpawnResult
    from simulation_interfaces.srv import SpawnEntities
    spawnables = ok(call(client, 'get_spawnables')).spawnables
    uris = [compat.spawnable_uri(s) for s in spawnables]
    car = next(s for s, u in zip(spawnables, uris) if u.endswith('/car.ros2#car'))
    assert car.spawn_bounds.type == 1 and len(car.spawn_bounds.points) == 2
    puck = next(u for u in uris if u.endswith('/pucks.ros2#puck'))
    assert not any(u.endswith('#field') for u in uris)   # static compounds are no spawnables
    car_uri = next(u for u in uris if u.endswith('/car.ros2#car'))
    requests = [SpawnEntity(name='car_a', entity_resource=Resource(uri=car_uri)),
                SpawnEntity(name='puck_a', entity_resource=Resource(uri=puck))]
    for k, request in enumerate(requests):
        request.initial_pose.pose.position.x = -2.0 + k
    response = ok(call(client, 'spawn_entities', spawn_requests=requests))
    assert [r.entity_name for r in response.results] == ['car_a', 'puck_a']
    assert {'car_a', 'puck_a'} <= set(entities(client))
    again = call(client, 'spawn_entities', spawn_requests=requests[:1] + [
        SpawnEntity(name='puck_b', entity_resource=Resource(uri=puck))])
    assert again.result.result == SpawnEntities.Response.ENTITIES_SPAWN_FAILED
    assert [r.result.result for r in again.results] == [SpawnResult.NAME_NOT_UNIQUE, 1]
    assert [r.entity_name for r in again.results] == ['', 'puck_b']


def test_entity_bounds_of_the_ball_are_a_box_of_its_size(client):
    bounds = ok(call(client, 'get_entity_bounds', entity='ball')).bounds
    assert bounds.type == 1
    upper, lower = ([p.x, p.y, p.z] for p in bounds.points)
    assert upper == pytest.approx([BALL_RADIUS] * 3, abs=1e-6)
    assert lower == pytest.approx([-BALL_RADIUS] * 3, abs=1e-6)
    from simulation_interfaces.msg import Result
    assert call(client, 'get_entity_bounds', entity='nobody').result.result == \
        Result.RESULT_NOT_FOUND


def test_bounds_filters_find_what_overlaps_box_sphere_and_convex_hull(client):
    from geometry_msgs.msg import Vector3
    from simulation_interfaces.msg import Bounds, EntityFilters, Result
    position = ok(call(client, 'get_entity_state', entity='ball')).state.pose.position
    near = Vector3(x=position.x + BALL_RADIUS + 0.05, y=position.y, z=position.z)
    box = Bounds(type=Bounds.TYPE_BOX, points=[Vector3(x=near.x, y=near.y - 0.01, z=near.z),
                                               Vector3(x=near.x + 0.01, y=near.y, z=near.z)])
    assert ok(call(client, 'get_entities', filters=EntityFilters(bounds=box))).entities == []
    sphere = Bounds(type=Bounds.TYPE_SPHERE, points=[near, Vector3(x=0.1)])
    found = ok(call(client, 'get_entities', filters=EntityFilters(bounds=sphere))).entities
    assert 'ball' in found and 'rover' not in found
    states = ok(call(client, 'get_entities_states', filters=EntityFilters(bounds=sphere)))
    assert 'ball' in states.entities
    # a tetrahedron with a corner just off the ball's box, then one reaching into it
    def tetra(reach):
        tip = Vector3(x=near.x - 0.05 - reach, y=near.y, z=near.z)
        return Bounds(type=Bounds.TYPE_CONVEX_HULL, points=[
            tip, Vector3(x=near.x + 0.3, y=near.y + 0.2, z=near.z),
            Vector3(x=near.x + 0.3, y=near.y - 0.2, z=near.z),
            Vector3(x=near.x + 0.3, y=near.y, z=near.z + 0.3)])
    assert ok(call(client, 'get_entities', filters=EntityFilters(bounds=tetra(-0.01)))
              ).entities == []
    assert ok(call(client, 'get_entities', filters=EntityFilters(bounds=tetra(0.01)))
              ).entities == ['ball']
    flat = Bounds(type=Bounds.TYPE_CONVEX_HULL, points=[near, near])
    assert call(client, 'get_entities', filters=EntityFilters(bounds=flat)).result.result == \
        Result.RESULT_OPERATION_FAILED


def test_set_entity_info_is_what_get_entity_info_and_filters_see(client):
    from simulation_interfaces.msg import EntityCategory, EntityFilters, EntityInfo, Result
    info = EntityInfo(category=EntityCategory(category=EntityCategory.CATEGORY_HUMAN),
                      description='a pedestrian', tags=['walker', 'test'])
    ok(call(client, 'set_entity_info', entity='ball', info=info))
    got = ok(call(client, 'get_entity_info', entity='ball')).info
    assert (got.category.category, got.description, list(got.tags)) == (
        EntityCategory.CATEGORY_HUMAN, 'a pedestrian', ['walker', 'test'])
    humans = EntityFilters(categories=[EntityCategory(category=EntityCategory.CATEGORY_HUMAN)])
    assert ok(call(client, 'get_entities', filters=humans)).entities == ['ball']
    assert ok(call(client, 'get_entities', filters=EntityFilters(tags=_tags(['walker'])))
              ).entities == ['ball']
    bad = EntityInfo(category=EntityCategory(category=99))
    assert call(client, 'set_entity_info', entity='ball', info=bad).result.result == \
        Result.RESULT_OPERATION_FAILED
    assert call(client, 'set_entity_info', entity='nobody', info=info).result.result == \
        Result.RESULT_NOT_FOUND
    ok(call(client, 'reset_simulation', scope=255))   # a full reset forgets it
    assert ok(call(client, 'get_entity_info', entity='ball')).info.description != 'a pedestrian'


def test_named_poses_are_the_start_poses_and_the_file(client):
    from simulation_interfaces.msg import Result
    poses = {p.name: p for p in ok(call(client, 'get_named_poses')).poses}
    assert {'rover_start', 'ball_start', 'dock'} <= set(poses)
    dock = poses['dock']
    assert (dock.pose.position.x, dock.pose.position.y) == (1.5, -0.5)
    assert 2 * math.atan2(dock.pose.orientation.z, dock.pose.orientation.w) == \
        pytest.approx(1.5707963)
    assert dock.description == 'by the charging station'
    parking = ok(call(client, 'get_named_poses', tags=_tags(['parking']))).poses
    assert [p.name for p in parking] == ['dock']
    bounds = ok(call(client, 'get_named_pose_bounds', name='dock')).bounds
    assert bounds.type == 1
    assert [[p.x, p.y, p.z] for p in bounds.points] == [[0.4, 0.3, 0.5], [-0.4, -0.3, 0.0]]
    ball = ok(call(client, 'get_named_pose_bounds', name='ball_start')).bounds
    assert [p.x for p in ball.points] == pytest.approx([BALL_RADIUS, -BALL_RADIUS])
    assert call(client, 'get_named_pose_bounds', name='nowhere').result.result == \
        Result.RESULT_NOT_FOUND


def test_a_webots_world_offers_its_viewpoint_as_a_named_pose(client):
    ok(load(client, 'webots_scout'))
    poses = {p.name: p for p in ok(call(client, 'get_named_poses')).poses}
    assert {'scout_start', 'viewpoint', 'dock'} <= set(poses)
    position = poses['viewpoint'].pose.position
    assert (position.x, position.y, position.z) == (0.5, -4.0, 3.0)   # webots_scout.wbt
    assert ok(call(client, 'get_named_pose_bounds', name='viewpoint')).bounds.type == 0


def _tags(tags, all_of=False):
    from simulation_interfaces.msg import TagsFilter
    return TagsFilter(tags=tags, filter_mode=1 if all_of else 0)


def test_100_loads_in_a_row_leave_memory_where_it_was(client, sim_node):
    def rss_kb():
        status = Path(f'/proc/{sim_node.pid}/status').read_text()
        return int(re.search(r'VmRSS:\s+(\d+) kB', status).group(1))
    ok(load(client, 'car'))
    first = rss_kb()
    for k in range(99):
        ok(load(client, 'car' if k % 2 else 'default'))
    last = rss_kb()
    print(f'RSS {first} kB after the first load, {last} kB after 100')
    assert last <= first * 1.05, f'RSS {first} kB after the first load, {last} kB after 100'

