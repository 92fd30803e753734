"""Record topics into a rosbag2 MCAP file (what ``ros2 bag record -s mcap`` writes).

A :mod:`.tap` sink: ``message()`` only puts the CDR bytes on a bounded queue (full: the message
is dropped and counted, the simulation never waits); a writer thread of its own writes them
with the ``mcap`` library: profile ``ros2``, schemas ``ros2msg`` (the message definition with its
dependencies), message encoding ``cdr``, log time = publish time = the sim time of the node, and
at the end the ``rosbag2`` metadata record that ``ros2 bag info`` reads. Chunks of at most 1 MiB
(or 1 s) go to the file as they fill, unbuffered: a kill or a full disk leaves a file without
its summary that ``mcap`` and ``bag info`` read up to its last chunk and that ``scene-sim-ros
bag recover`` (:mod:`scene_sim_ros.cli.client.bag_recover`) makes complete for rosbag2 and rosbags.
``max_size_mb`` ends the recording (not the simulation) once the file has grown that big.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from scene_sim_ros.ros.outputs import bag_format as fmt
from scene_sim_ros.ros.outputs.tap import TopicInfo, topic_selector

QUEUE_MESSAGES = 2000
QUEUE_BYTES = 256 * 2**20
CHUNK_BYTES = 2**20
CHUNK_SECONDS = 1.0


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
        self.unwritten = 0  # after the file stopped (disk full, size limit)
        self.written = 0
        self.counts: dict[str, int] = {}
        self.failed: str | None = None
        self._queued_bytes = 0
        self._queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue(maxsize=queue_messages)
        self._file = _DirectFile(self.path)
        self._writer = Writer(cast(Any, self._file), chunk_size=CHUNK_BYTES,
                              compression=CompressionType.NONE)
        self._writer.start(profile=fmt.PROFILE, library='scene_sim_ros')
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
                    self.unwritten += 1
                continue
            try:
                self._handle(item)
            except OSError as err:  # a full disk, a vanished folder: stop writing, keep the file
                self.failed = f'{type(err).__name__}: {err}'
                self._open = False
                self._log('error', f'recording to {self.path} stopped: {self.failed}; the '
                          'simulation goes on. The file holds what was written up to then; '
                          f'`scene-sim-ros bag recover {self.path}` (once there is room) makes '
                          'it a complete bag')

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
                name=info.type, encoding=fmt.SCHEMA_ENCODING, data=info.definition.encode())
            self._schemas[info.type] = schema
        self._channels[info.topic] = self._writer.register_channel(
            topic=info.topic, message_encoding=fmt.MESSAGE_ENCODING, schema_id=schema,
            metadata={'offered_qos_profiles': fmt.qos_text(_qos(info)),
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
                self._writer.add_metadata(fmt.METADATA_NAME,
                                          fmt.metadata_record(self.bag_metadata()))
                self._writer.finish()
        except OSError as err:
            self._log('error', f'could not finish {self.path}: {err}')
        finally:
            self._file.close()
        text = f'recorded {self.written} messages on {len(self.counts)} topics to {self.path}'
        if self.dropped:
            text += f'; {self.dropped} messages dropped (the writer could not keep up)'
        if self.failed is not None:
            text += f'; stopped early ({self.failed}), {self.unwritten} messages after that not ' \
                    'recorded'
        self._log('warning' if self.dropped or self.failed else 'info', text)

    def bag_metadata(self) -> dict[str, Any]:
        """What rosbag2 writes into the ``rosbag2`` metadata record (and metadata.yaml)."""
        topics = [fmt.TopicRecord(topic, info.type, _qos(info), info.type_hash,
                                  self.counts[topic]) for topic, info in self._infos.items()]
        return fmt.bag_metadata(self.path.name, topics, self._first, self._last)

    def _log(self, level: str, text: str) -> None:
        # one call site per severity: rclpy's logger refuses another severity at the same site
        if self.logger is None:
            import sys
            print(f'[{level}] {text}', file=sys.stderr)
        elif level == 'error':
            self.logger.error(text)
        elif level == 'warning':
            self.logger.warning(text)
        else:
            self.logger.info(text)


def _qos(info: TopicInfo) -> list[dict[str, Any]]:
    return fmt.qos_profiles(reliable=info.reliable, latched=info.latched)
