"""``scene-sim-ros bag recover FILE``: a recording cut short (a kill, a full disk) made complete.

Such a file ends in the middle of the data: no summary, no footer. ``mcap`` and ``bag info``
read it record by record, but rosbag2 and rosbags' ``AnyReader`` want the footer and the
summary. :func:`salvage` reads what there is (every complete record, and the messages of a cut
uncompressed chunk up to the cut); :func:`recover` writes them into a new file with the index,
the summary and the ``rosbag2`` metadata (built from the channels' own metadata), as
``mcap recover`` does for plain MCAP files.
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

from scene_sim_ros.cli.client.session import UserError
from scene_sim_ros.ros.outputs import bag_format as fmt

MAGIC = b'\x89MCAP0\r\n'
BUSY_S = 2.0  # a file written to this recently may still be recording
_CHUNK_HEAD = struct.Struct('<QQQII')  # start, end, uncompressed size, crc, compression length


def has_footer(path: Path) -> bool:
    with open(path, 'rb') as stream:
        if stream.seek(0, os.SEEK_END) < 2 * len(MAGIC) + 29:
            return False
        stream.seek(-(len(MAGIC) + 29), os.SEEK_END)
        tail = stream.read()
    return tail[0] == 0x02 and tail.endswith(MAGIC)


def salvage(path: Path) -> Iterator[Any]:
    """Header, Schema, Channel, Message and Metadata records of an MCAP file that may stop
    anywhere, in file order; a record cut by the end is left out."""
    with open(path, 'rb') as stream:
        if stream.read(len(MAGIC)) != MAGIC:
            raise UserError(f'{path}: not an MCAP file')
        if os.fstat(stream.fileno()).st_size <= len(MAGIC):
            return
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
            yield from _records(memoryview(data), len(MAGIC))


def _records(data: memoryview, pos: int) -> Iterator[Any]:
    from mcap.opcode import Opcode
    while pos + 9 <= len(data):
        opcode = data[pos]
        (length,) = struct.unpack_from('<Q', data, pos + 1)
        body = data[pos + 9:pos + 9 + length]
        complete = len(body) == length
        if opcode == Opcode.CHUNK:
            yield from _chunk_records(body, complete)
        elif opcode == Opcode.FOOTER or not complete:
            return
        elif opcode in (Opcode.HEADER, Opcode.SCHEMA, Opcode.CHANNEL, Opcode.MESSAGE,
                        Opcode.METADATA):
            yield _read(opcode, bytes(body))
        if not complete:
            return
        pos += 9 + length


def _chunk_records(body: memoryview, complete: bool) -> Iterator[Any]:
    from mcap.data_stream import ReadDataStream
    from mcap.records import Chunk
    from mcap.stream_reader import breakup_chunk
    if complete:
        chunk = Chunk.read(ReadDataStream(BytesIO(bytes(body))))
        yield from breakup_chunk(chunk)
        return
    if len(body) < _CHUNK_HEAD.size:
        return
    *_, compression_length = _CHUNK_HEAD.unpack_from(body, 0)
    if compression_length:  # a cut compressed chunk does not decompress
        return
    start = _CHUNK_HEAD.size + 8  # records length
    yield from _inner_records(body[start:])


def _inner_records(data: memoryview) -> Iterator[Any]:
    """The records of a cut uncompressed chunk, up to the first one the cut reached."""
    from mcap.opcode import Opcode
    pos = 0
    while pos + 9 <= len(data):
        opcode = data[pos]
        (length,) = struct.unpack_from('<Q', data, pos + 1)
        if pos + 9 + length > len(data):
            return
        if opcode in (Opcode.SCHEMA, Opcode.CHANNEL, Opcode.MESSAGE):
            yield _read(opcode, bytes(data[pos + 9:pos + 9 + length]))
        pos += 9 + length


def _read(opcode: int, body: bytes) -> Any:
    from mcap.data_stream import ReadDataStream
    from mcap.opcode import Opcode
    from mcap.records import Channel, Header, Message, Metadata, Schema
    stream = ReadDataStream(BytesIO(body))
    if opcode == Opcode.MESSAGE:
        return Message.read(stream, len(body))
    kinds: dict[int, Any] = {Opcode.HEADER: Header, Opcode.SCHEMA: Schema,
                             Opcode.CHANNEL: Channel, Opcode.METADATA: Metadata}
    return kinds[opcode].read(stream)


def recover(path: str | Path, output: str | Path | None = None) -> dict[str, Any]:
    """Write the readable part of ``path`` as a complete rosbag2 MCAP file: ``output``, else
    ``path`` itself (replaced once the new file is whole). Returns counts for the report."""
    from mcap.writer import CompressionType, Writer
    path = Path(path)
    if not path.is_file():
        raise UserError(f'{path}: no such file')
    if has_footer(path) and output is None:
        raise UserError(f'{path} is complete (it has its summary); nothing to recover')
    age = time.time() - path.stat().st_mtime
    if age < BUSY_S and output is None:
        raise UserError(f'{path} was written {age:.1f} s ago: a recording may still be going; '
                        'stop it first, or recover a snapshot of it with -o OUT.mcap')
    target = Path(output) if output is not None else path
    partial = target.with_name(target.name + '.recovering')
    state = _Rewrite()
    try:
        with open(partial, 'wb') as out:
            writer = Writer(out, chunk_size=2**20, compression=CompressionType.NONE)
            state.writer = writer
            for record in salvage(path):
                state.take(record)
            state.finish(target.name)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return {'path': str(target), 'messages': state.messages, 'topics': len(state.topics),
            'start_ns': state.first, 'end_ns': state.last}


class _Rewrite:
    """Records of a salvaged file into a new writer, ids mapped; the rosbag2 metadata at the
    end from the channels' own metadata (QoS, type hash) and the counts."""

    def __init__(self) -> None:
        self.writer: Any = None
        self.started = False
        self.schemas: dict[int, tuple[int, str]] = {}
        self.channels: dict[int, int] = {}
        self.topics: dict[int, fmt.TopicRecord] = {}
        self.messages = 0
        self.first = 0
        self.last = 0

    def take(self, record: Any) -> None:
        from mcap.records import Channel, Header, Message, Schema
        if isinstance(record, Header):
            self._start(record.profile, record.library)
            return
        self._start(fmt.PROFILE, 'scene_sim_ros')
        if isinstance(record, Schema) and record.id not in self.schemas:
            new = self.writer.register_schema(record.name, record.encoding, record.data)
            self.schemas[record.id] = (new, record.name)
        elif isinstance(record, Channel) and record.id not in self.channels:
            schema, type_name = self.schemas.get(record.schema_id, (0, ''))
            self.channels[record.id] = self.writer.register_channel(
                record.topic, record.message_encoding, schema, dict(record.metadata))
            self.topics[record.id] = fmt.TopicRecord(
                record.topic, type_name,
                fmt.parse_qos(record.metadata.get('offered_qos_profiles', '')),
                record.metadata.get('topic_type_hash', ''))
        elif isinstance(record, Message) and record.channel_id in self.channels:
            self.writer.add_message(self.channels[record.channel_id], record.log_time,
                                    record.data, record.publish_time, record.sequence)
            self.topics[record.channel_id].count += 1
            self.first = record.log_time if not self.messages else min(self.first,
                                                                        record.log_time)
            self.last = max(self.last, record.log_time)
            self.messages += 1

    def _start(self, profile: str, library: str) -> None:
        if not self.started:
            self.started = True
            self.writer.start(profile=profile, library=library or 'scene_sim_ros')

    def finish(self, file_name: str) -> None:
        self._start(fmt.PROFILE, 'scene_sim_ros')
        metadata = fmt.bag_metadata(file_name, list(self.topics.values()), self.first, self.last)
        self.writer.add_metadata(fmt.METADATA_NAME, fmt.metadata_record(metadata))
        self.writer.finish()


def bag_recover(path: str, output: str | None = None) -> int:
    done = recover(path, output)
    print(f'recovered {done["messages"]} messages on {done["topics"]} topics, '
          f'{(done["end_ns"] - done["start_ns"]) / 1e9:.3f} s, into {done["path"]}')
    return 0
