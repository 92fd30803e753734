"""The tap: serialized messages of every topic a node publishes, for the recorder and the live view.

A second rclpy node (``scene_sim_tap``) with its own executor thread (graph look-ups, the live
view's service clients) and a receiver thread (:mod:`.tap_receiver`) subscribes with
``raw=True`` to the topics the simulation node publishes (found in the ROS graph, looked up again
every second, so spawned and deleted robots come and go) and hands each message's CDR bytes,
untouched, to its sinks (:mod:`.recorder`, :mod:`.foxglove_bridge`). The adapters that publish
know nothing of it. Stamps are the sim time of the node (its clock, fed by the physics thread);
a tap outside the simulation process (``scene-sim-ros record``) takes them from ``/clock``.

A sink has ``wants(topic) -> bool``, ``topic_added(info: TopicInfo)`` and
``message(topic, data, stamp_ns)`` (optional: ``topic_removed(topic)``,
``command_added(info)``); ``message`` runs on the receiver's thread and must not block.
"""

from __future__ import annotations

import fnmatch
import importlib
import struct
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Protocol

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from scene_sim_ros.resources import package_share_directory
from scene_sim_ros.ros.outputs.tap_receiver import Receiver

HIDDEN_TOPICS = ('/rosout', '/parameter_events')
"""Left out unless a pattern names them exactly (rosbag2 records them only when asked, too)."""

REFRESH_S = 1.0
TAP_NODE_NAME = 'scene_sim_tap'


@dataclass(frozen=True)
class TopicInfo:
    topic: str
    type: str                 # 'sensor_msgs/msg/Image'
    definition: str           # ros2msg text with its dependencies
    type_hash: str            # 'RIHS01_...' or ''
    reliable: bool
    latched: bool


class Sink(Protocol):
    def wants(self, topic: str) -> bool: ...
    def topic_added(self, info: TopicInfo) -> None: ...
    def message(self, topic: str, data: bytes, stamp_ns: int) -> None: ...


def topic_selector(patterns: Sequence[str]) -> Callable[[str], bool]:
    """``fnmatch`` globs over topic names (``/rover/*``, ``*image*``); empty: every topic.
    ``/rosout`` and ``/parameter_events`` only when named exactly; hidden topics (a name part
    starting with ``_``: an action's ``_action/feedback`` and ``_action/status``) only when a
    pattern with a hidden part matches them, as ``ros2 bag record`` leaves them out unless
    asked (``--include-hidden-topics``)."""
    patterns = [p if p.startswith(('/', '*')) else '/' + p for p in patterns if p] or ['*']
    hidden_patterns = [p for p in patterns if _is_hidden(p)]

    def wanted(topic: str) -> bool:
        if topic in HIDDEN_TOPICS:
            return topic in patterns
        if _is_hidden(topic):
            return any(fnmatch.fnmatchcase(topic, p) for p in hidden_patterns)
        return any(fnmatch.fnmatchcase(topic, p) for p in patterns)
    return wanted


def _is_hidden(name: str) -> bool:
    return any(part.startswith('_') for part in name.split('/'))


# --- message definitions ------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _typestore() -> Any:
    """Types from the installed .msg files (what the bytes were made with); rosbags' kilted
    store only for those without one."""
    from rosbags.typesys import Stores, get_typestore
    return get_typestore(Stores.EMPTY)


@lru_cache(maxsize=1)
def _stock_typestore() -> Any:
    from rosbags.typesys import Stores, get_typestore
    return get_typestore(Stores.ROS2_KILTED)


def _interface_file(type_name: str, kind: str) -> str | None:
    """The text of ``pkg/<kind>/Name``'s ``.<kind>`` file as installed (see
    :func:`~..resources.package_share_directory`: no environment variable needed)."""
    package, _, name = type_name.partition(f'/{kind}/')
    share = package_share_directory(package)
    if share is None or not name:
        return None
    try:
        return (share / kind / f'{name}.{kind}').read_text(encoding='utf8')
    except (OSError, ValueError):
        return None


def _msg_file(type_name: str) -> str | None:
    return _interface_file(type_name, 'msg')


def _register(store: Any, type_name: str, seen: set[str]) -> None:
    """Add ``type_name`` (and what it uses) to ``store`` from the installed .msg files."""
    from rosbags.typesys import get_types_from_msg
    if type_name in store.fielddefs or type_name in seen:
        return
    seen.add(type_name)
    text = _msg_file(type_name)
    if text is None:
        stock = _stock_typestore()
        if type_name not in stock.fielddefs:
            raise KeyError(type_name)
        types = {type_name: stock.fielddefs[type_name]}
    else:
        types = get_types_from_msg(text, type_name)
    _register_types(store, types, seen)


def _register_types(store: Any, types: dict[str, Any], seen: set[str]) -> None:
    """Add parsed ``types`` to ``store`` after the types their fields use."""
    for _, fields in types.values():
        for _, spec in fields:
            for used in _type_names(spec):
                _register(store, used, seen)
    store.register(types)


def _register_text(store: Any, type_name: str, text: str) -> None:
    """Add ``type_name`` defined by the .msg ``text`` (a section of a .srv or .action)."""
    from rosbags.typesys import get_types_from_msg
    _register_types(store, get_types_from_msg(text, type_name), set())


def _sections(text: str) -> list[str]:
    """The parts of a .srv or .action file between its ``---`` lines."""
    sections: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() == '---':
            sections.append([])
        else:
            sections[-1].append(line)
    return ['\n'.join(lines) for lines in sections]


def _type_names(spec: Any) -> Iterable[str]:
    if isinstance(spec, str):
        if '/' in spec:
            yield spec
        return
    if isinstance(spec, tuple | list):
        for item in spec:
            yield from _type_names(item)


@cache
def message_definition(type_name: str) -> tuple[str, str]:
    """``(ros2msg text with dependencies, RIHS01 hash)`` of a message type, from the package's
    installed .msg files (else rosbags' kilted store); ``('', '')`` if neither knows it. The
    messages of an action (``pkg/action/Name_FeedbackMessage`` on ``_action/feedback``) come
    from its .action file, without a hash."""
    if '/action/' in type_name:
        return _action_message_definition(type_name), ''
    store = _typestore()
    try:
        _register(store, type_name, set())
        text, _ = store.generate_msgdef(type_name, ros_version=2)
    except Exception:  # noqa: BLE001 - an unknown or unparsable type: no schema text
        return '', ''
    try:
        digest = store.hash_rihs01(type_name)
    except Exception:  # noqa: BLE001
        digest = ''
    return text, digest


ACTION_PARTS = ('_Goal', '_Result', '_Feedback')


def _action_message_definition(type_name: str) -> str:
    """ros2msg text of ``pkg/action/Name_<part>`` (Goal, Result, Feedback, FeedbackMessage),
    from the installed .action file; ``''`` where unknown. Nested action types are named
    ``pkg/msg/Name_<part>`` in the text (rosbags names messages so; the bytes are the same)."""
    package, _, rest = type_name.partition('/action/')
    name, _, part = rest.rpartition('_')
    text = _interface_file(f'{package}/action/{name}', 'action')
    if text is None or f'_{part}' not in (*ACTION_PARTS, '_FeedbackMessage'):
        return ''
    sections = _sections(text)
    if len(sections) != 3:
        return ''
    store = _typestore()
    try:
        for suffix, section in zip(ACTION_PARTS, sections, strict=True):
            full = f'{package}/msg/{name}{suffix}'
            if full not in store.fielddefs:
                _register_text(store, full, section)
        full = f'{package}/msg/{name}_{part}'
        if part == 'FeedbackMessage' and full not in store.fielddefs:
            _register_text(store, full, 'unique_identifier_msgs/UUID goal_id\n'
                                        f'{package}/msg/{name}_Feedback feedback')
        return store.generate_msgdef(full, ros_version=2)[0]
    except Exception:  # noqa: BLE001 - unparsable: no schema
        return ''


@cache
def service_definitions(type_name: str) -> tuple[str, str]:
    """ros2msg texts of the request and response of service ``pkg/srv/Name`` (``'pkg/srv/
    Name_Request'`` ...), from the installed .srv file; ``('', '')`` where unknown."""
    package, _, name = type_name.partition('/srv/')
    text = _interface_file(type_name, 'srv')
    if text is None:
        return '', ''
    parts = (*_sections(text), '')[:2]   # request, response
    store = _typestore()
    texts = []
    for suffix, part in zip(('_Request', '_Response'), parts, strict=True):
        full = f'{package}/msg/{name}{suffix}'  # rosbags names messages pkg/msg/Name only
        try:
            if full not in store.fielddefs:
                _register_text(store, full, part)
            texts.append(store.generate_msgdef(full, ros_version=2)[0])
        except Exception:  # noqa: BLE001 - unparsable: no schema
            texts.append('')
    return texts[0], texts[1]


def service_class(type_name: str) -> Any:
    package, _, name = type_name.partition('/srv/')
    return getattr(importlib.import_module(f'{package}.srv'), name)


def message_class(type_name: str) -> Any:
    """The rclpy class of ``pkg/msg/Name``, or of an action's message ``pkg/action/Name_<part>``
    (``_FeedbackMessage`` on ``_action/feedback``: rclpy keeps those under ``Name.Impl``)."""
    if '/action/' in type_name:
        package, _, rest = type_name.partition('/action/')
        name, _, part = rest.rpartition('_')
        action = getattr(importlib.import_module(f'{package}.action'), name)
        return getattr(action, part) if hasattr(action, part) else getattr(action.Impl, part)
    package, _, name = type_name.partition('/msg/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def clock_stamp(data: bytes) -> int | None:
    """Nanoseconds of a CDR ``rosgraph_msgs/Clock`` (header, int32 sec, uint32 nanosec)."""
    if len(data) < 12:
        return None
    little = data[1] == 1
    sec, nsec = struct.unpack('<iI' if little else '>iI', data[4:12])
    return sec * 1_000_000_000 + nsec


# --- the tap ------------------------------------------------------------------------------------

class Tap:
    """Subscribes to what ``target`` (``(name, namespace)``) publishes; one thread of its own.

    ``context`` is the rclpy context (the simulation's, or a client's); ``now`` gives the stamp
    of a message (None: the last ``/clock`` seen). Every sink hears of every topic the target
    publishes (``topic_added``, ``topic_removed``) and of those it subscribes to
    (``command_added``: the command topics a viewer may publish to); a topic is subscribed while
    some sink ``wants`` it (the live view: while a viewer watches it), and its messages go to
    the sinks that want it. :meth:`wake` makes the tap look again at once (from any thread)."""

    def __init__(self, context: Any, target: tuple[str, str], *,
                 now: Callable[[], int] | None = None, namespace: str = '/',
                 depth: int = 20, logger: Any = None):
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.node import Node
        self.node = Node(TAP_NODE_NAME, namespace=namespace, context=context,
                         start_parameter_services=False, enable_rosout=False)
        self.logger = logger or self.node.get_logger()
        self.target = target
        self._now = now
        self._clock_ns = 0
        self._depth = depth
        self.sinks: list[Sink] = []
        self.topics: dict[str, TopicInfo] = {}
        self.commands: dict[str, TopicInfo] = {}
        self._topic_sinks: dict[str, list[Sink]] = {}
        self._lock = threading.RLock()
        self._executor = SingleThreadedExecutor(context=context)
        self._executor.add_node(self.node)
        self._thread: threading.Thread | None = None
        self._receiver = Receiver(context, namespace=namespace, on_error=lambda err: self.logger.error(
            f'tap stopped receiving: {err!r}'))
        self._timer = self.node.create_timer(REFRESH_S, self.refresh)
        self._wake = self.node.create_guard_condition(self.refresh)

    def add_sink(self, sink: Sink) -> None:
        with self._lock:
            self.sinks.append(sink)
            for info in self.topics.values():
                sink.topic_added(info)
            for info in self.commands.values():
                _call(sink, 'command_added', info)

    def wake(self) -> None:
        """Look at the graph and the sinks' wishes again soon (any thread)."""
        try:
            self._wake.trigger()
        except Exception:  # noqa: BLE001 - shutting down
            pass

    def start(self) -> None:
        self.refresh()
        self._receiver.start()
        self._thread = threading.Thread(target=self._spin, name='scene_sim_tap', daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        from rclpy.executors import ExternalShutdownException
        try:
            self._executor.spin()
        except (ExternalShutdownException, KeyboardInterrupt):
            pass
        except Exception as err:  # noqa: BLE001 - context shut down under the executor
            if self.node.context.ok():
                self.logger.error(f'tap stopped: {err!r}')

    def stop(self) -> None:
        self._receiver.stop()
        self._executor.shutdown(timeout_sec=1.0)
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        try:
            self.node.destroy_node()
        except Exception:  # noqa: BLE001 - the context may be gone already
            pass

    def stamp(self) -> int:
        return self._now() if self._now is not None else self._clock_ns

    def _graph(self) -> tuple[dict[str, tuple[str, bool, bool]], dict[str, str]]:
        """({topic: (type, reliable, latched)} the target publishes, {topic: type} it
        subscribes to)."""
        published: dict[str, tuple[str, bool, bool]] = {}
        subscribed: dict[str, str] = {}
        for topic, types in self.node.get_topic_names_and_types():
            if not types:
                continue
            infos = [i for i in self.node.get_publishers_info_by_topic(topic)
                     if (i.node_name, i.node_namespace) == self.target]
            if infos:
                reliable = all(i.qos_profile.reliability == ReliabilityPolicy.RELIABLE
                               for i in infos)
                latched = all(i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                              for i in infos)
                published[topic] = (infos[0].topic_type, reliable, latched)
            elif topic not in HIDDEN_TOPICS:
                subs = [i for i in self.node.get_subscriptions_info_by_topic(topic)
                        if (i.node_name, i.node_namespace) == self.target]
                if subs:
                    subscribed[topic] = subs[0].topic_type
        return published, subscribed

    def _published(self) -> dict[str, tuple[str, bool, bool]]:
        return self._graph()[0]

    def refresh(self) -> None:
        """Follow the graph (new and vanished topics) and the sinks' wishes (subscriptions)."""
        try:
            published, subscribed = self._graph()
        except Exception:  # noqa: BLE001 - graph queries during shutdown
            return
        with self._lock:
            for topic in [t for t in self.topics if t not in published]:
                self._unsubscribe(topic)
                del self.topics[topic]
                for sink in self.sinks:
                    _call(sink, 'topic_removed', topic)
            for topic, (type_name, reliable, latched) in sorted(published.items()):
                if topic not in self.topics:
                    definition, digest = message_definition(type_name)
                    self.topics[topic] = TopicInfo(topic, type_name, definition, digest,
                                                   reliable, latched)
                    for sink in self.sinks:
                        sink.topic_added(self.topics[topic])
                self._follow_wishes(self.topics[topic])
            for topic, type_name in sorted(subscribed.items()):
                if topic not in self.commands:
                    definition, digest = message_definition(type_name)
                    self.commands[topic] = TopicInfo(topic, type_name, definition, digest,
                                                     True, False)
                    for sink in self.sinks:
                        _call(sink, 'command_added', self.commands[topic])
            for sink in self.sinks:
                _call(sink, 'refreshed', self.node)

    def _follow_wishes(self, info: TopicInfo) -> None:
        topic = info.topic
        is_clock = topic.rsplit('/', 1)[-1] == 'clock' and 'Clock' in info.type
        wanting = [s for s in self.sinks if s.wants(topic)]
        needed = bool(wanting) or (is_clock and self._now is None)
        if topic in self._receiver:
            if not needed:
                self._unsubscribe(topic)
            else:
                self._topic_sinks[topic][:] = wanting
            return
        if not needed:
            return
        try:
            msg_type = message_class(info.type)
        except (ImportError, AttributeError):
            self.logger.warning(f'tap: {topic}: type {info.type} not installed here; skipped',
                                once=True)
            return
        qos = QoSProfile(
            depth=self._depth,
            reliability=(ReliabilityPolicy.RELIABLE if info.reliable
                         else ReliabilityPolicy.BEST_EFFORT),
            durability=(DurabilityPolicy.TRANSIENT_LOCAL if info.latched
                        else DurabilityPolicy.VOLATILE))
        self._topic_sinks[topic] = wanting
        self._receiver.add(topic, msg_type, qos, self._callback(topic, wanting, is_clock))

    def _unsubscribe(self, topic: str) -> None:
        self._topic_sinks.pop(topic, None)
        self._receiver.remove(topic)

    def _callback(self, topic: str, sinks: list[Sink], is_clock: bool) -> Callable[[bytes], None]:
        track = is_clock and self._now is None

        def deliver(data: bytes) -> None:
            if track:
                stamp = clock_stamp(data)
                if stamp is not None:
                    self._clock_ns = stamp
            stamp = self.stamp()
            for sink in sinks:
                sink.message(topic, data, stamp)
        return deliver


def _call(sink: Any, method: str, *args: Any) -> None:
    function = getattr(sink, method, None)
    if function is not None:
        function(*args)


def start_in_node(node: Any) -> Tap:
    """A tap on the simulation node ``node``, stamped with its (sim) clock."""
    clock = node.get_clock()
    return Tap(node.context, (node.get_name(), node.get_namespace()),
               now=lambda: clock.now().nanoseconds, namespace=node.get_namespace(),
               logger=node.get_logger())
