"""Live view: the simulation's topics over the Foxglove WebSocket protocol (``foxglove-sdk``).

A :mod:`.tap` sink. Every topic the node publishes is a channel (``ros2msg`` schema, ``cdr``
messages: the bytes rclpy already serialised, untouched), so Foxglove and Lichtblick (>= 1.22,
which speak ``foxglove.sdk.v1``) decode them: 3D panel (TF, robot_description), images, plots.
The tap subscribes to a topic only while a viewer watches it: cameras are not rendered for
nobody. Latched topics (``/tf_static``, ``robot_description``) are sent again to each new viewer.

Viewers may publish (``clientPublish``) to the topics the node subscribes to (joint commands,
cmd_vel, controller commands; advertised as channels too, since Lichtblick only writes types it
was told about) and call the node's services (``services``, CDR requests). A viewer's type name
may be ROS 1 style (``geometry_msgs/Twist``, as Lichtblick's Teleop panel sends it), and a Twist
on a TwistStamped topic (cmd_vel with default parameters) is stamped with the sim time on
arrival, as Gazebo's bridge does, so that Teleop drives the robot.

A slow or vanished viewer never slows the simulation: ``channel.log`` only queues, and the SDK
keeps at most :data:`BACKLOG` messages per viewer, dropping the oldest; what it reports of that
goes to the node's log, counted per viewer (:mod:`.foxglove_log`). The messages come from the
tap's receiver thread, which no viewer can hold up.
"""

from __future__ import annotations

import threading
from typing import Any

from foxglove.websocket import ServerListener

from scene_sim_ros.ros.outputs.foxglove_graph import Graph, connection_graph, ros_graph
from scene_sim_ros.ros.outputs.foxglove_log import SdkLog
from scene_sim_ros.ros.outputs.foxglove_parameters import NodeParameters
from scene_sim_ros.ros.outputs.tap import Tap, TopicInfo, message_class, service_class, service_definitions

BACKLOG = 128
SERVICE_TIMEOUT_S = 10.0
TIME_PERIOD_NS = 20_000_000  # broadcast the sim time at most every 20 ms of it
PARAMETER_SERVICES = ('describe_parameters', 'get_parameter_types', 'get_parameters',
                      'get_type_description', 'list_parameters', 'set_parameters',
                      'set_parameters_atomically')


TWIST, TWIST_STAMPED = 'geometry_msgs/msg/Twist', 'geometry_msgs/msg/TwistStamped'


def ros2_type_name(name: str) -> str:
    """``pkg/msg/Type`` for a ROS 1 style ``pkg/Type``; other names as they are."""
    package, slash, rest = name.partition('/')
    return f'{package}/msg/{rest}' if slash and rest and '/' not in rest else name


class FoxgloveBridge:
    def __init__(self, node: Any, tap: Tap, *, port: int = 8765, address: str = '127.0.0.1'):
        import foxglove
        from foxglove.websocket import Capability
        self.node = node
        self.tap = tap
        self.logger = node.get_logger()
        self.context = foxglove.Context()
        self.channels: dict[str, Any] = {}
        self.command_channels: dict[str, Any] = {}
        self._watched: dict[str, set[int]] = {}  # topic -> client ids
        self._latched: dict[str, tuple[bytes, int]] = {}
        self._client_publishers: dict[tuple[int, int], Any] = {}
        self._publishers: dict[tuple[str, str], Any] = {}
        self._service_clients: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._last_time = -TIME_PERIOD_NS
        self._refused_assets: set[str] = set()
        self._graph_wanted = False
        self._graph: Graph | None = None
        self.rejected = 0
        self.sdk_log = SdkLog(self.logger, BACKLOG)
        self.sdk_log.install()
        self.server = foxglove.start_server(
            name=f'scene_sim_ros {node.get_fully_qualified_name()}', host=address, port=port,
            capabilities=[Capability.ClientPublish, Capability.Services, Capability.Time,
                          Capability.Parameters, Capability.ConnectionGraph],
            server_listener=_Listener(self), supported_encodings=['cdr'],
            services=self._services(), context=self.context, message_backlog_size=BACKLOG,
            asset_handler=self._fetch_asset)
        self.parameters = NodeParameters(node, self._warn_viewers)
        self.logger.info(f'Foxglove live view on ws://{address}:{self.server.port} (Foxglove, '
                         'or Lichtblick >= 1.22: open connection, Foxglove WebSocket)')

    # --- tap sink ----------------------------------------------------------------------------

    def wants(self, topic: str) -> bool:
        """The watched topics, and always the clock: it paces the time broadcast, so that a
        viewer watching only latched topics (a robot model) still sees time go on."""
        return bool(self._watched.get(topic)) or topic.rsplit('/', 1)[-1] == 'clock'

    def topic_added(self, info: TopicInfo) -> None:
        import foxglove
        with self._lock:
            if info.topic in self.channels:
                return
            self.channels[info.topic] = foxglove.Channel(
                info.topic, message_encoding='cdr', context=self.context,
                schema=foxglove.Schema(name=info.type, encoding='ros2msg',
                                       data=info.definition.encode()))

    def command_added(self, info: TopicInfo) -> None:
        """A topic the node subscribes to: advertised (no messages) so that viewers know its
        type and may publish to it."""
        import foxglove
        with self._lock:
            if info.topic in self.channels or info.topic in self.command_channels:
                return
            self.command_channels[info.topic] = foxglove.Channel(
                info.topic, message_encoding='cdr', context=self.context,
                schema=foxglove.Schema(name=info.type, encoding='ros2msg',
                                       data=info.definition.encode()))

    def topic_removed(self, topic: str) -> None:
        with self._lock:
            channel = self.channels.pop(topic, None)
            self._latched.pop(topic, None)
        if channel is not None:
            channel.close()

    def message(self, topic: str, data: bytes, stamp_ns: int) -> None:
        channel = self.channels.get(topic)
        if channel is None:
            return
        info = self.tap.topics.get(topic)
        if info is not None and info.latched:
            self._latched[topic] = (data, stamp_ns)
        channel.log(data, log_time=stamp_ns)
        if stamp_ns - self._last_time >= TIME_PERIOD_NS or stamp_ns < self._last_time:
            self._last_time = stamp_ns
            self.server.broadcast_time(stamp_ns)

    # --- viewers -----------------------------------------------------------------------------

    def subscribed(self, client_id: int, topic: str) -> None:
        with self._lock:
            watchers = self._watched.setdefault(topic, set())
            first = not watchers
            watchers.add(client_id)
        if first:
            self.tap.wake()
        elif topic in self._latched:  # the tap's subscription got it already: send it again
            data, stamp = self._latched[topic]
            timer = threading.Timer(0.2, self._replay, (topic, data, stamp))
            timer.daemon = True
            timer.start()

    def _replay(self, topic: str, data: bytes, stamp: int) -> None:
        channel = self.channels.get(topic)
        if channel is not None:
            channel.log(data, log_time=stamp)

    def unsubscribed(self, client_id: int, topic: str) -> None:
        with self._lock:
            watchers = self._watched.get(topic, set())
            watchers.discard(client_id)
            last = not watchers
        if last:
            self.tap.wake()

    def client_advertised(self, client_id: int, channel: Any) -> None:
        """A viewer will publish on ``channel.topic``; its type by name (Lichtblick sends no
        schema), only to topics the node subscribes to."""
        topic, type_name = channel.topic, ros2_type_name(channel.schema_name)
        if topic not in self.tap.commands:
            self.logger.info(f'Foxglove: a viewer advertised {topic} ({type_name}), which the '
                             'simulation does not subscribe to; its messages are ignored',
                             throttle_duration_sec=10.0)
            return
        expected = self.tap.commands[topic].type
        convert = self._stamped_twist if (type_name, expected) == (TWIST, TWIST_STAMPED) else None
        if channel.encoding != 'cdr' or (type_name not in ('', expected) and convert is None):
            self.logger.warning(f'Foxglove: a viewer advertised {topic} as {type_name} '
                                f'({channel.encoding}); the simulation takes {expected} (cdr)')
            return
        key = (topic, expected)
        with self._lock:
            publisher = self._publishers.get(key)
            if publisher is None:
                from scene_sim_ros.ros import qos
                publisher = self.tap.node.create_publisher(message_class(expected), topic,
                                                           qos.COMMAND)
                self._publishers[key] = publisher
            self._client_publishers[(client_id, channel.id)] = (publisher, convert)

    def client_unadvertised(self, client_id: int, channel_id: int) -> None:
        with self._lock:
            self._client_publishers.pop((client_id, channel_id), None)

    def client_message(self, client_id: int, channel_id: int, data: bytes) -> None:
        entry = self._client_publishers.get((client_id, channel_id))
        if entry is None:
            return
        publisher, convert = entry
        try:
            # serialized CDR, as rclpy takes it; a converted message as an object
            publisher.publish(data if convert is None else convert(data))
        except Exception as err:  # noqa: BLE001 - a malformed message: count, go on
            self.rejected += 1
            self.logger.warning(f'Foxglove: could not publish a viewer message on '
                                f'{publisher.topic_name}: {err}', throttle_duration_sec=5.0)

    def _stamped_twist(self, data: bytes) -> Any:
        from geometry_msgs.msg import Twist, TwistStamped
        from rclpy.serialization import deserialize_message
        message = TwistStamped()
        message.header.stamp = self.node.get_clock().now().to_msg()
        message.twist = deserialize_message(data, Twist)
        return message

    # --- services ------------------------------------------------------------------------------

    def _services(self) -> list[Any]:
        import foxglove
        from foxglove.websocket import MessageSchema, Service, ServiceSchema
        services = []
        name, namespace = self.node.get_name(), self.node.get_namespace()
        for service, types in self.node.get_service_names_and_types_by_node(name, namespace):
            if not types or service.rsplit('/', 1)[-1] in PARAMETER_SERVICES:
                continue
            type_name = types[0]
            request, response = service_definitions(type_name)
            if not request and not response and not type_name.startswith('std_srvs/'):
                continue
            try:
                srv = service_class(type_name)
            except (ImportError, AttributeError):
                continue

            schemas = [MessageSchema(encoding='cdr', schema=foxglove.Schema(
                name=f'{type_name}{suffix}', encoding='ros2msg', data=text.encode()))
                for suffix, text in (('_Request', request), ('_Response', response))]
            services.append(Service(
                name=service, handler=self._service_handler(service, srv),
                schema=ServiceSchema(name=type_name, request=schemas[0], response=schemas[1])))
        return services

    def _service_handler(self, service: str, srv: Any) -> Any:
        from rclpy.serialization import deserialize_message, serialize_message

        def handle(request: Any) -> bytes:
            client = self._service_clients.get(service)
            if client is None:
                client = self._service_clients[service] = self.tap.node.create_client(
                    srv, service)
            message = deserialize_message(bytes(request.payload), srv.Request)
            done = threading.Event()
            future = client.call_async(message)
            future.add_done_callback(lambda _: done.set())
            if not done.wait(SERVICE_TIMEOUT_S):
                client.remove_pending_request(future)
                raise TimeoutError(f'{service} did not answer within {SERVICE_TIMEOUT_S:g} s')
            return serialize_message(future.result())
        return handle

    def want_graph(self, wanted: bool) -> None:
        """A first viewer asks for the connection graph, or the last one stops."""
        self._graph_wanted = wanted
        self._graph = None
        if wanted:
            self.tap.wake()

    def refreshed(self, node: Any) -> None:
        """The tap looked at the ROS graph (its thread): send the connection graph if wanted
        and changed."""
        if not self._graph_wanted:
            return
        graph = ros_graph(node)
        if graph != self._graph:
            self._graph = graph
            self.server.publish_connection_graph(connection_graph(graph))

    def _fetch_asset(self, uri: str) -> bytes | None:
        """``fetchAsset``: a mesh or texture a published robot description names, else None
        (the viewer is told it was not found; the node's log names each refused URI once)."""
        data = self.node.entities.described_files.read(uri)
        if data is None and uri not in self._refused_assets and len(self._refused_assets) < 100:
            self._refused_assets.add(uri)
            self.logger.warning(f'Foxglove: a viewer asked for {uri}, which no published robot '
                                'description names: refused')
        return data

    def _warn_viewers(self, text: str) -> None:
        from foxglove.websocket import StatusLevel
        try:
            self.server.publish_status(text, StatusLevel.Warning)
        except Exception:  # noqa: BLE001 - the server is stopping
            pass

    # --- end -----------------------------------------------------------------------------------

    def close(self) -> None:
        try:
            self.server.stop()
        except Exception:  # noqa: BLE001 - already stopped
            pass
        self.sdk_log.finish()
        if self.rejected:
            self.logger.warning(f'Foxglove: {self.rejected} viewer messages could not be '
                                'published')


class _Listener(ServerListener):
    """foxglove.websocket.ServerListener: runs on the server's threads; hands on at once."""

    def __init__(self, bridge: FoxgloveBridge):
        self.bridge = bridge

    def on_subscribe(self, client: Any, channel: Any) -> None:
        self.bridge.subscribed(client.id, channel.topic)

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        self.bridge.unsubscribed(client.id, channel.topic)

    def on_client_advertise(self, client: Any, channel: Any) -> None:
        self.bridge.client_advertised(client.id, channel)

    def on_client_unadvertise(self, client: Any, client_channel_id: int) -> None:
        self.bridge.client_unadvertised(client.id, client_channel_id)

    def on_message_data(self, client: Any, client_channel_id: int, data: bytes) -> None:
        self.bridge.client_message(client.id, client_channel_id, data)

    def on_get_parameters(self, client: Any, param_names: list[str],
                          request_id: str | None = None) -> list[Any]:
        return self.bridge.parameters.get(param_names)

    def on_set_parameters(self, client: Any, parameters: list[Any],
                          request_id: str | None = None) -> list[Any]:
        return self.bridge.parameters.set(parameters)

    def on_connection_graph_subscribe(self) -> None:
        self.bridge.want_graph(True)

    def on_connection_graph_unsubscribe(self) -> None:
        self.bridge.want_graph(False)
