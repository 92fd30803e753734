"""Record topics into a rosbag2 MCAP file (what ``ros2 bag record -s mcap`` writes).

A :mod:`.tap` sink: ``message()`` only puts the CDR bytes on a bounded queue (full: the message
is dropped and counted, the simulation never waits); a writer thread of its own writes them
with the ``mcap`` library: profile ``ros2``, schemas ``ros2msg`` (the message definition with its
dependencies), message encoding ``cdr``, log time = publish time = the sim time of the node, and
at the end the ``rosbag2`` metadata record that ``ros2 bag info`` reads. Chunks of at most 1 MiB
(or 1 s) go to the file as they fill, unbuffered: a kill or a full disk leaves a file that is
readable up to its last complete chunk. ``max_size_mb`` ends the recording (not the simulation)
once the file has grown that big.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from .tap import TopicInfo, topic_selector

QUEUE_MESSAGES = 2000
QUEUE_BYTES = 256 * 2**20
CHUNK_BYTES = 2**20
CHUNK_SECONDS = 1.0
ROSBAG2_VERSION = 9

_QOS_FOREVER = {'sec': 9223372036, 'nsec': 854775807}


def qos_profiles(info: TopicInfo) -> list[dict[str, Any]]:
    """The offered QoS in rosbag2's metadata form (enum values of rmw)."""
    return [{'history': 1, 'depth': 1 if info.latched else 10,
             'reliability': 1 if info.reliable else 2,
             'durability': 1 if info.latched else 2,
             'deadline': dict(_QOS_FOREVER), 'lifespan': dict(_QOS_FOREVER),
             'liveliness': 1, 'liveliness_lease_duration': dict(_QOS_FOREVER),
             'avoid_ros_namespace_conventions': False}]


class _DirectFile:
    """A file each ``write`` of which reaches the OS at once (the mcap writer would put a raw
    file behind a BufferedWriter, whose last bytes a kill loses)."""

    def __init__(self, path: Path):
        self._raw = open(path, 'wb', buffering=0)  # noqa: SIM115 - closed by close()
        self._offset = 0

    def write(self, data: bytes | memoryview) -> int:
        view = memoryview(data)
        while view.nbytes:
            written = self._raw.write(view)
            if written is None:
                continue
            view = view[written:]
        self._offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self._offset

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self._raw.close()


class Recorder:
    """A tap sink writing ``path`` (an .mcap file); :meth:`close` finishes the file."""

    def __init__(self, path: str | Path, *, topics: Sequence[str] = (), max_size_mb: float = 0,
                 logger: Any = None, queue_messages: int = QUEUE_MESSAGES):
        from mcap.writer import CompressionType, Writer
        self.path = Path(path)
        if self.path.suffix != '.mcap':
            self.path = self.path.with_name(self.path.name + '.mcap')
        self.path.parent.mkdir(parents=True, exist_ok=True)
        select = topic_selector(topics)
        self._selected: dict[str, bool] = {}

        def selected(topic: str) -> bool:
            found = self._selected.get(topic)
            if found is None:
                found = self._selected[topic] = select(topic)
            return found
        self._select = selected
        self.max_bytes = int(max_size_mb * 2**20) if max_size_mb and max_size_mb > 0 else 0
        self.logger = logger
        self.dropped = 0
        self.written = 0
        self.counts: dict[str, int] = {}
        self.failed: str | None = None
        self._queued_bytes = 0
        self._queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue(maxsize=queue_messages)
        self._file = _DirectFile(self.path)
        self._writer = Writer(cast(Any, self._file), chunk_size=CHUNK_BYTES,
                              compression=CompressionType.NONE)
        self._writer.start(profile='ros2', library='scene_sim_ros')
        self._schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        self._infos: dict[str, TopicInfo] = {}
        self._first = 0
        self._last = 0
        self._chunk_opened = time.monotonic()
        self._open = True
        self._thread = threading.Thread(target=self._run, name='scene_sim_recorder', daemon=True)
        self._thread.start()
        self._log('info', f'recording to {self.path}')

    # --- tap sink (tap thread) --------------------------------------------------------------

    def wants(self, topic: str) -> bool:
        return self._open and self._select(topic)

    def topic_added(self, info: TopicInfo) -> None:
        if self._select(info.topic):
            self._put(('topic', info), block=True)

    def message(self, topic: str, data: bytes, stamp_ns: int) -> None:
        if not self._open or not self._select(topic):
            return
        if self._queued_bytes + len(data) > QUEUE_BYTES or not self._put(
                ('msg', topic, stamp_ns, data), block=False):
            self.dropped += 1
            return
        self._queued_bytes += len(data)

    def _put(self, item: tuple[Any, ...], *, block: bool) -> bool:
        try:
            self._queue.put(item, block=block, timeout=1.0 if block else None)
        except queue.Full:
            return False
        return True

    # --- writer thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=CHUNK_SECONDS / 2)
            except queue.Empty:
                item = ('tick',)
            if item is None:
                break
            if self.failed is not None:
                if item[0] == 'msg':
                    self._queued_bytes -= len(item[3])
                    self.dropped += 1
                continue
            try:
                self._handle(item)
            except OSError as err:  # a full disk, a vanished folder: stop writing, keep the file
                self.failed = f'{type(err).__name__}: {err}'
                self._open = False
                self._log('error', f'recording to {self.path} stopped: {self.failed}; the file '
                          'is readable up to its last complete chunk')

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == 'topic':
            self._add_channel(item[1])
        elif kind == 'msg':
            _, topic, stamp, data = item
            self._queued_bytes -= len(data)
            channel = self._channels.get(topic)
            if channel is None:
                return
            if not self.written:
                self._first = stamp
            self._first = min(self._first, stamp)
            self._last = max(self._last, stamp)
            self._writer.add_message(channel, log_time=stamp, data=data, publish_time=stamp,
                                     sequence=self.counts[topic])
            self.counts[topic] += 1
            self.written += 1
        if time.monotonic() - self._chunk_opened > CHUNK_SECONDS:
            self._flush_chunk()
        if self.max_bytes and self._size() > self.max_bytes:
            self._open = False
            self.failed = f'record.max_size_mb reached ({self.max_bytes / 2**20:g} MiB)'
            self._log('warning', f'recording to {self.path} ended: {self.failed}')

    def _size(self) -> int:
        return self._file.tell()

    def _flush_chunk(self) -> None:
        """Write the open chunk now (the mcap writer does so itself only when it is full)."""
        self._chunk_opened = time.monotonic()
        builder = getattr(self._writer, '_Writer__chunk_builder', None)
        finalize: Callable[[], None] | None = getattr(self._writer, '_Writer__finalize_chunk',
                                                      None)
        if builder is not None and finalize is not None and builder.num_messages:
            finalize()

    def _add_channel(self, info: TopicInfo) -> None:
        if info.topic in self._channels:
            return
        schema = self._schemas.get(info.type)
        if schema is None:
            schema = self._writer.register_schema(
                name=info.type, encoding='ros2msg', data=info.definition.encode())
            self._schemas[info.type] = schema
        self._channels[info.topic] = self._writer.register_channel(
            topic=info.topic, message_encoding='cdr', schema_id=schema,
            metadata={'offered_qos_profiles': json.dumps(qos_profiles(info)),
                      'topic_type_hash': info.type_hash})
        self._infos[info.topic] = info
        self.counts[info.topic] = 0

    # --- end ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Finish the file: the rest of the queue, the rosbag2 metadata, the index."""
        if self._thread.is_alive():
            self._open = False
            self._queue.put(None)
            self._thread.join()
        try:
            if self.failed is None or self.failed.startswith('record.max_size_mb'):
                self._writer.add_metadata('rosbag2', {
                    'serialized_metadata': json.dumps(self.bag_metadata())})
                self._writer.finish()
        except OSError as err:
            self._log('error', f'could not finish {self.path}: {err}')
        finally:
            self._file.close()
        text = f'recorded {self.written} messages on {len(self.counts)} topics to {self.path}'
        if self.dropped:
            text += f'; {self.dropped} messages dropped (the writer could not keep up)'
        self._log('warning' if self.dropped else 'info', text)

    def bag_metadata(self) -> dict[str, Any]:
        """What rosbag2 writes into the ``rosbag2`` metadata record (and metadata.yaml)."""
        duration = max(0, self._last - self._first)
        return {
            'version': ROSBAG2_VERSION,
            'storage_identifier': 'mcap',
            'relative_file_paths': [self.path.name],
            'duration': {'nanoseconds': duration},
            'starting_time': {'nanoseconds_since_epoch': self._first},
            'message_count': self.written,
            'topics_with_message_count': [
                {'topic_metadata': {'name': info.topic, 'type': info.type,
                                    'serialization_format': 'cdr',
                                    'offered_qos_profiles': qos_profiles(info),
                                    'type_description_hash': info.type_hash},
                 'message_count': self.counts[topic]}
                for topic, info in self._infos.items()],
            'compression_format': '', 'compression_mode': '',
            'files': [{'path': self.path.name,
                       'starting_time': {'nanoseconds_since_epoch': self._first},
                       'duration': {'nanoseconds': duration},
                       'message_count': self.written}],
            'custom_data': {'recorded_by': 'scene_sim_ros'},
            'ros_distro': 'kilted',
        }

    def _log(self, level: str, text: str) -> None:
        if self.logger is not None:
            getattr(self.logger, level)(text)
        else:
            import sys
            print(f'[{level}] {text}', file=sys.stderr)
