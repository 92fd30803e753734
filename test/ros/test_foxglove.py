"""Live view (issue 28): ``run --foxglove PORT`` speaks the Foxglove WebSocket protocol
(``foxglove.sdk.v1``) to a client in another process, as Foxglove / Lichtblick do: the channel
list, subscriptions with CDR payloads that decode (rosbags, from the advertised ros2msg
schemas), client publishing to the joint commands, service calls."""

from __future__ import annotations

import asyncio
import json
import math
import re
import struct
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from support.processes import console_script, free_tcp_port

pytest.importorskip('foxglove')
websockets = pytest.importorskip('websockets')

CLI = console_script('scene-sim-ros')
SUBPROTOCOL = 'foxglove.sdk.v1'


class Viewer:
    """A minimal Foxglove WebSocket client."""

    def __init__(self, ws):
        self.ws = ws
        self.channels: dict[str, dict] = {}
        self.services: dict[str, dict] = {}
        self.server_info: dict = {}
        self.subscriptions: dict[int, str] = {}
        self.messages: dict[str, list[tuple[int, bytes]]] = {}
        self.responses: dict[int, bytes] = {}
        self.time = 0
        self._next = 1

    async def pump(self, seconds: float, until=None) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (until and until()):
            try:
                frame = await asyncio.wait_for(self.ws.recv(), timeout=0.2)
            except TimeoutError:
                continue
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg['op'] == 'serverInfo':
                    self.server_info = msg
                elif msg['op'] == 'advertise':
                    for channel in msg['channels']:
                        self.channels[channel['topic']] = channel
                elif msg['op'] == 'advertiseServices':
                    for service in msg['services']:
                        self.services[service['name']] = service
            elif frame[0] == 0x01:
                sub, stamp = struct.unpack_from('<IQ', frame, 1)
                topic = self.subscriptions.get(sub)
                if topic is not None:
                    self.messages.setdefault(topic, []).append((stamp, bytes(frame[13:])))
            elif frame[0] == 0x02:
                self.time = struct.unpack_from('<Q', frame, 1)[0]
            elif frame[0] == 0x03:
                _, call_id, length = struct.unpack_from('<III', frame, 1)
                encoding_end = 13 + length
                self.responses[call_id] = bytes(frame[encoding_end:])

    async def subscribe(self, *topics: str) -> None:
        subs = []
        for topic in topics:
            sub = self._next
            self._next += 1
            self.subscriptions[sub] = topic
            subs.append({'id': sub, 'channelId': self.channels[topic]['id']})
        await self.ws.send(json.dumps({'op': 'subscribe', 'subscriptions': subs}))


def _decoder(channel: dict):
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore
    store = get_typestore(Stores.EMPTY)
    store.register(get_types_from_msg(channel['schema'], channel['schemaName']))
    return lambda data: store.deserialize_cdr(data, channel['schemaName'])


async def _session(port: int) -> dict:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    result: dict = {}
    async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
            'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
        viewer = Viewer(ws)
        await viewer.pump(10.0, until=lambda: '/rover/joint_states' in viewer.channels
                          and '/rover/joint_commands' in viewer.channels
                          and '/get_simulation_state' in viewer.services)
        result['server_info'] = viewer.server_info
        result['channels'] = dict(viewer.channels)
        topics = ('/rover/camera/image_raw', '/tf', '/rover/joint_states', '/tf_static',
                  '/rover/robot_description')
        await viewer.subscribe(*topics)
        await viewer.pump(20.0, until=lambda: all(len(viewer.messages.get(t, [])) >= (
            1 if t in ('/tf_static', '/rover/robot_description') else 5) for t in topics))
        result['messages'] = {t: list(m) for t, m in viewer.messages.items()}
        result['time'] = viewer.time

        # publish a joint command as Lichtblick does: a client channel without a schema
        await ws.send(json.dumps({'op': 'advertise', 'channels': [{
            'id': 7, 'topic': '/rover/joint_commands', 'encoding': 'cdr',
            'schemaName': 'sensor_msgs/msg/JointState'}]}))
        await viewer.pump(0.5)
        command = JointState(name=['pan_joint'], position=[1.0])
        for _ in range(5):
            await ws.send(b'\x01' + struct.pack('<I', 7) + serialize_message(command))
            await viewer.pump(0.2)
        viewer.messages.clear()
        await viewer.pump(4.0)
        result['after'] = list(viewer.messages.get('/rover/joint_states', []))

        # call a supervisor service with an empty request
        service = viewer.services.get('/get_simulation_state')
        if service is not None:
            encoding = b'cdr'
            await ws.send(b'\x02' + struct.pack('<III', service['id'], 42, len(encoding))
                          + encoding + b'\x00\x01\x00\x00\x00')
            await viewer.pump(10.0, until=lambda: 42 in viewer.responses)
            result['service_response'] = viewer.responses.get(42)
        result['services'] = dict(viewer.services)
    return result


def test_a_foxglove_client_sees_subscribes_decodes_and_commands(managed_process):
    port = free_tcp_port()
    sim = managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-run',
                          ready=r'Foxglove live view on ws://', ready_timeout=120)
    sim.wait_for_output(r'services: get_simulator_features', timeout=60)
    result = asyncio.run(_session(port))

    channels = result['channels']
    for topic in ('/clock', '/tf', '/tf_static', '/rover/joint_states', '/rover/camera/image_raw',
                  '/rover/imu/data_raw', '/rover/laser/scan', '/rover/robot_description',
                  '/rover/odom'):
        assert topic in channels, sorted(channels)
        assert channels[topic]['encoding'] == 'cdr'
        assert channels[topic]['schemaEncoding'] == 'ros2msg'
    assert channels['/rover/camera/image_raw']['schemaName'] == 'sensor_msgs/msg/Image'
    assert channels['/rover/joint_commands']['schemaName'] == 'sensor_msgs/msg/JointState'
    assert 'clientPublish' in result['server_info']['capabilities']
    assert 'cdr' in result['server_info'].get('supportedEncodings', [])

    messages = result['messages']
    image = _decoder(channels['/rover/camera/image_raw'])(messages['/rover/camera/image_raw'][0][1])
    assert image.encoding == 'rgb8' and len(image.data) == image.step * image.height > 0
    tf = _decoder(channels['/tf'])(messages['/tf'][0][1])
    assert any(t.child_frame_id.startswith('rover/') for t in tf.transforms)
    assert tf.transforms[0].header.frame_id == 'world'
    static = _decoder(channels['/tf_static'])(messages['/tf_static'][0][1])
    assert static.transforms
    urdf = _decoder(channels['/rover/robot_description'])(
        messages['/rover/robot_description'][0][1])
    assert '<robot' in urdf.data
    joints = _decoder(channels['/rover/joint_states'])
    first = joints(messages['/rover/joint_states'][0][1])
    assert 'pan_joint' in first.name and len(first.position) == len(first.name)
    stamps = [s for s, _ in messages['/rover/joint_states']]
    assert stamps == sorted(stamps)  # sim time
    assert result['time'] > 0

    after = [joints(data) for _, data in result['after']]
    assert after, 'no joint states after the command'
    pan = after[-1].position[list(after[-1].name).index('pan_joint')]
    assert pan == pytest.approx(1.0, abs=0.05)

    response = result.get('service_response')
    assert response is not None and response[:2] == b'\x00\x01'  # a CDR answer
    from rclpy.serialization import deserialize_message
    from simulation_interfaces.srv import GetSimulationState
    state = deserialize_message(response, GetSimulationState.Response)
    assert state.state.state == state.state.STATE_PLAYING
    service = result['services']['/get_simulation_state']
    assert service['type'] == 'simulation_interfaces/srv/GetSimulationState'


def test_a_stalled_viewer_does_not_slow_the_simulation_and_a_new_one_still_gets_data(
        managed_process, ros_node):
    from rosgraph_msgs.msg import Clock
    from websockets.sync.client import connect

    from support.ros import wait_for_messages

    def sim_time() -> float:
        clock = wait_for_messages(ros_node, Clock, '/clock', count=1, timeout=30.0)[0].clock
        return clock.sec + clock.nanosec * 1e-9

    port = free_tcp_port()
    sim = managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-stall',
                          ready=r'services: get_simulator_features', ready_timeout=120)
    # the stalled viewer: subscribes to every channel, then reads nothing (the client stops
    # reading the socket once 4 frames wait)
    with connect(f'ws://127.0.0.1:{port}', subprotocols=[SUBPROTOCOL], max_size=None,
                 max_queue=4) as stalled:
        channels: dict[str, int] = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and '/rover/camera/image_raw' not in channels:
            frame = stalled.recv(timeout=5)
            if isinstance(frame, str) and json.loads(frame)['op'] == 'advertise':
                channels.update({c['topic']: c['id'] for c in json.loads(frame)['channels']})
        stalled.send(json.dumps({'op': 'subscribe', 'subscriptions': [
            {'id': i + 1, 'channelId': cid} for i, cid in enumerate(channels.values())]}))
        time.sleep(3.0)  # its queues fill
        # a server blocked on the viewer would stop the simulation: sim time must go on
        # (how much the viewer costs is bench/outputs_rtf.py's measure)
        start_sim = sim_time()
        deadline = time.monotonic() + 60.0
        while sim_time() < start_sim + 3.0:
            assert time.monotonic() < deadline, 'the simulation stopped behind a stalled viewer'

        # the stalled viewer vanishes without a goodbye; a new viewer is served
        stalled.socket.close()

    result = asyncio.run(_fresh_viewer(port))
    assert result >= 5
    # the node's log says it, once, per viewer (foxglove-sdk's reports, counted)
    sim.wait_for_output(r'Foxglove: viewer \S+ does not keep up; it gets the newest 128',
                        timeout=10)
    sim.wait_for_output(r'Foxglove: viewer \S+ left \(it had fallen behind', timeout=10)
    assert sim.output().count('does not keep up') == 1
    assert 'Error sending message' not in sim.output()


async def _fresh_viewer(port: int) -> int:
    async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[SUBPROTOCOL],
                                  max_size=None) as ws:
        viewer = Viewer(ws)
        await viewer.pump(10.0, until=lambda: '/rover/joint_states' in viewer.channels)
        await viewer.subscribe('/rover/joint_states')
        await viewer.pump(10.0, until=lambda: len(viewer.messages.get(
            '/rover/joint_states', [])) >= 5)
        return len(viewer.messages.get('/rover/joint_states', []))


def test_without_ament_prefix_path_every_service_and_schema_is_served(managed_process):
    """A wheel or plain-venv install has no AMENT_PREFIX_PATH: the interface definitions are
    found beside the installed packages all the same (resources.package_share_directory)."""
    port = free_tcp_port()
    managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-no-ament',
                    env={'AMENT_PREFIX_PATH': ''}, ready=r'services: get_simulator_features',
                    ready_timeout=120)

    async def session() -> Viewer:
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(20.0, until=lambda: len(viewer.services) >= 12
                              and '/rover/joint_trajectory_controller/controller_state'
                              in viewer.channels)
            return viewer
    viewer = asyncio.run(session())
    assert len(viewer.services) >= 12, sorted(viewer.services)
    assert {'services', 'parameters', 'assets', 'clientPublish', 'time'} <= set(
        viewer.server_info['capabilities'])
    state = viewer.services['/get_simulation_state']
    assert state['type'] == 'simulation_interfaces/srv/GetSimulationState'
    empty = sorted(topic for topic, channel in viewer.channels.items() if not channel.get('schema'))
    assert empty == [], empty
    assert '/rover/joint_trajectory_controller/follow_joint_trajectory/_action/feedback' in \
        viewer.channels
    controller = viewer.channels['/rover/joint_trajectory_controller/controller_state']
    assert 'trajectory_msgs/JointTrajectoryPoint' in controller['schema']


def test_teleop_with_a_ros1_style_twist_drives_the_rover(managed_process):
    """Lichtblick's Teleop panel advertises ``geometry_msgs/Twist`` (ROS 1 style) on cmd_vel,
    which is a TwistStamped with default parameters: the server accepts the name, stamps each
    Twist on arrival, and the rover drives >= 0.5 m in 8 s (issue 41)."""
    from geometry_msgs.msg import Twist
    from rclpy.serialization import serialize_message

    port = free_tcp_port()
    managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-teleop',
                    ready=r'services: get_simulator_features', ready_timeout=120)

    async def drive() -> tuple[list[bytes], Viewer]:
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(20.0, until=lambda: '/rover/odom' in viewer.channels
                              and '/rover/cmd_vel' in viewer.channels)
            await viewer.subscribe('/rover/odom')
            await ws.send(json.dumps({'op': 'advertise', 'channels': [{
                'id': 3, 'topic': '/rover/cmd_vel', 'encoding': 'cdr',
                'schemaName': 'geometry_msgs/Twist'}]}))
            forward = Twist()
            forward.linear.x = 0.5
            twist = serialize_message(forward)
            deadline = time.monotonic() + 8.0
            while time.monotonic() < deadline:
                await ws.send(b'\x01' + struct.pack('<I', 3) + twist)
                await viewer.pump(0.1)
            return [data for _, data in viewer.messages.get('/rover/odom', [])], viewer
    odometry, viewer = asyncio.run(drive())
    assert viewer.channels['/rover/cmd_vel']['schemaName'] == 'geometry_msgs/msg/TwistStamped'
    decode = _decoder(viewer.channels['/rover/odom'])
    first, last = decode(odometry[0]).pose.pose.position, decode(odometry[-1]).pose.pose.position
    assert math.hypot(last.x - first.x, last.y - first.y) >= 0.5


def test_parameters_capability_reads_sets_and_refuses_with_a_reason(managed_process, ros_node):
    """What Lichtblick's Parameters panel does: getParameters (all), setParameters of a
    dynamic one (the node takes it: the ROS side reads it back), and of a read-only one
    (refused, value unchanged, a status message says why)."""
    from rcl_interfaces.srv import GetParameters

    from support.ros import call_service
    port = free_tcp_port()
    managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-parameters',
                    ready=r'services: get_simulator_features', ready_timeout=120)

    async def session() -> dict[str, dict]:
        answers: dict[str, dict] = {}
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(10.0, until=lambda: bool(viewer.server_info))
            answers['info'] = viewer.server_info
            for request in (
                    {'op': 'getParameters', 'parameterNames': [], 'id': 'all'},
                    {'op': 'setParameters', 'id': 'rtf', 'parameters': [
                        {'name': '/scene_sim.real_time_factor', 'value': 0.5}]},
                    {'op': 'setParameters', 'id': 'seed', 'parameters': [
                        {'name': '/scene_sim.seed', 'value': 7}]}):
                await ws.send(json.dumps(request))
                deadline = time.monotonic() + 10.0
                while time.monotonic() < deadline and request['id'] not in answers:
                    frame = await asyncio.wait_for(ws.recv(), timeout=10.0)
                    if isinstance(frame, str):
                        msg = json.loads(frame)
                        if msg['op'] == 'parameterValues' and msg.get('id') == request['id']:
                            answers[request['id']] = {p['name']: p.get('value')
                                                      for p in msg['parameters']}
                        elif msg['op'] == 'status':
                            answers.setdefault('status', {})[msg['message']] = msg['level']
        return answers
    answers = asyncio.run(session())
    assert 'parameters' in answers['info']['capabilities']
    every = answers['all']
    assert every['/scene_sim.real_time_factor'] == 1.0 and every['/scene_sim.paused'] is False
    assert len(every) >= 20
    assert answers['rtf'] == {'/scene_sim.real_time_factor': 0.5}
    response = call_service(ros_node, GetParameters, '/scene_sim/get_parameters',
                            GetParameters.Request(names=['real_time_factor', 'seed']))
    assert [v.double_value for v in response.values][:1] == [0.5]
    assert response.values[1].integer_value == 0
    assert answers['seed'] == {'/scene_sim.seed': 0}
    (text,) = answers['status']
    assert text.startswith('parameter /scene_sim.seed not set:') and 'read-only' in text


def test_fetch_asset_serves_the_described_meshes_and_nothing_else(managed_process):
    """The B-Human game: every mesh URI of robot1's published URDF comes through fetchAsset
    with the file's bytes; URIs outside the described files are refused, however written."""
    from support.corpus import CORPUS, skip_if_missing
    game = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'
    skip_if_missing(game)
    port = free_tcp_port()
    managed_process([CLI, 'run', str(game), '--foxglove', str(port), '--real-time-factor', '0'],
                    name='foxglove-assets', ready=r'services: get_simulator_features',
                    ready_timeout=180)
    outside = ['file:///etc/passwd', 'package://scene_sim_ros/../../etc/passwd',
               'package://scene_sim_ros/%2E%2E/%2E%2E/etc/passwd', 'file:///etc/../etc/hostname']

    async def session() -> tuple[dict, str, dict[str, tuple[int, bytes]]]:
        answers: dict[str, tuple[int, bytes]] = {}
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(30.0, until=lambda: '/robot1/robot_description' in viewer.channels)
            await viewer.subscribe('/robot1/robot_description')
            await viewer.pump(30.0, until=lambda: '/robot1/robot_description' in viewer.messages)
            channel = viewer.channels['/robot1/robot_description']
            urdf = _decoder(channel)(viewer.messages['/robot1/robot_description'][0][1]).data
            uris = sorted(set(re.findall(r'filename="([^"]+)"', urdf))) + outside
            for request_id, uri in enumerate(uris):   # one at a time: the SDK caps concurrency
                await ws.send(json.dumps({'op': 'fetchAsset', 'uri': uri,
                                          'requestId': request_id}))
                deadline = time.monotonic() + 30.0
                while uri not in answers and time.monotonic() < deadline:
                    frame = await asyncio.wait_for(ws.recv(), timeout=30.0)
                    if isinstance(frame, bytes) and frame[0] == 0x04:
                        answered, status, length = struct.unpack_from('<IBI', frame, 1)
                        answers[uris[answered]] = (status, bytes(frame[10 + length:]))
                        errors[uris[answered]] = bytes(frame[10:10 + length]).decode()
        return viewer.server_info, urdf, answers
    errors: dict[str, str] = {}
    info, urdf, answers = asyncio.run(session())
    assert 'assets' in info['capabilities']
    meshes = [uri for uri in answers if uri not in outside]
    assert len(meshes) >= 10, urdf[:2000]
    for uri in meshes:
        status, data = answers[uri]
        assert status == 0 and data == Path(unquote(urlparse(uri).path)).read_bytes(), \
            (uri, errors.get(uri))
    for uri in outside:
        assert answers[uri] == (1, b''), uri


def test_a_viewer_watching_only_latched_topics_still_gets_the_time(managed_process):
    """The time broadcast follows /clock, not the watched topics: a viewer of /tf_static alone
    (a robot model) sees sim time advance (it got one broadcast in 4 s before, issue 41)."""
    port = free_tcp_port()
    managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-time',
                    ready=r'services: get_simulator_features', ready_timeout=120)

    async def session() -> list[int]:
        times: list[int] = []
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(10.0, until=lambda: '/tf_static' in viewer.channels)
            await viewer.subscribe('/tf_static')
            deadline = time.monotonic() + 30.0
            while len(times) < 20 and time.monotonic() < deadline:
                try:
                    frame = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                if isinstance(frame, bytes) and frame[0] == 0x02:
                    times.append(struct.unpack_from('<Q', frame, 1)[0])
        return times
    times = asyncio.run(session())
    assert len(times) == 20 and times == sorted(times) and times[-1] > times[0]
    # at most one broadcast per 20 ms of sim time (TIME_PERIOD_NS)
    assert min(b - a for a, b in zip(times, times[1:])) >= 20_000_000


def test_connection_graph_shows_who_publishes_subscribes_and_serves(managed_process, ros_node):
    """Foxglove's Topic Graph: subscribeConnectionGraph answers with the ROS graph, this test's
    own node (another process) included."""
    from std_msgs.msg import String
    port = free_tcp_port()
    managed_process([CLI, 'run', '--foxglove', str(port)], name='foxglove-graph',
                    ready=r'services: get_simulator_features', ready_timeout=120)
    ros_node.create_publisher(String, '/graph_probe', 10)
    own = ros_node.get_fully_qualified_name()

    async def session() -> dict:
        graph: dict = {'published': {}, 'subscribed': {}, 'services': {}}
        async with websockets.connect(f'ws://127.0.0.1:{port}', subprotocols=[
                'foxglove.websocket.v1', SUBPROTOCOL], max_size=None) as ws:
            viewer = Viewer(ws)
            await viewer.pump(10.0, until=lambda: bool(viewer.server_info))
            graph['capabilities'] = viewer.server_info['capabilities']
            await ws.send(json.dumps({'op': 'subscribeConnectionGraph'}))
            deadline = time.monotonic() + 20.0
            while time.monotonic() < deadline and own not in graph['published'].get(
                    '/graph_probe', []):
                try:
                    frame = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                if isinstance(frame, str) and json.loads(frame)['op'] == 'connectionGraphUpdate':
                    update = json.loads(frame)
                    for entry in update.get('publishedTopics', []):
                        graph['published'][entry['name']] = entry['publisherIds']
                    for entry in update.get('subscribedTopics', []):
                        graph['subscribed'][entry['name']] = entry['subscriberIds']
                    for entry in update.get('advertisedServices', []):
                        graph['services'][entry['name']] = entry['providerIds']
        return graph
    graph = asyncio.run(session())
    assert 'connectionGraph' in graph['capabilities']
    assert '/scene_sim' in graph['published']['/clock']
    assert '/scene_sim' in graph['subscribed']['/rover/cmd_vel']
    assert graph['services']['/get_simulation_state'] == ['/scene_sim']
    assert own in graph['published']['/graph_probe']
