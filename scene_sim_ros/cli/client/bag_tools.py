"""``scene-sim-ros bag info FILE`` (ros2 bag info without rosbag2) and ``scene-sim-ros record``.

``bag info`` reads an MCAP file with the ``mcap`` library: from its summary when the file was
closed properly, else record by record up to where it stops (a recording that was killed or
ran out of disk), so it also says whether the file is complete and how to make it so
(``bag recover``, :mod:`.bag_recover`).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from scene_sim_ros.cli.client.session import UserError


def bag_summary(path: str | Path) -> dict[str, Any]:
    """Topics (type, count, rate), start, end, duration and completeness of an MCAP file."""
    from mcap.exceptions import McapError
    from mcap.reader import make_reader
    path = Path(path)
    if path.is_dir():  # a rosbag2 directory: its .mcap files
        files = sorted(path.glob('*.mcap'))
        if not files:
            raise UserError(f'{path}: no .mcap file in this folder')
        path = files[0]
    if not path.exists():
        raise UserError(f'{path}: no such file')
    topics: dict[str, str] = {}
    counts: Counter[str] = Counter()
    complete = True
    metadata: dict[str, Any] = {}
    with open(path, 'rb') as stream:
        if stream.read(8) != b'\x89MCAP0\r\n':
            raise UserError(f'{path}: not an MCAP file')
        stream.seek(0)
        try:
            reader = make_reader(stream)
            header = reader.get_header()
            summary = reader.get_summary()
        except (McapError, EOFError, ValueError, OSError):  # cut short: no footer, no summary
            summary = None
        if summary is not None and summary.statistics is not None:
            for channel in summary.channels.values():
                schema = summary.schemas.get(channel.schema_id)
                topics[channel.topic] = schema.name if schema else ''
                counts[channel.topic] = summary.statistics.channel_message_counts.get(
                    channel.id, 0)
            start, end = summary.statistics.message_start_time, summary.statistics.message_end_time
            rates = _rates_from_chunks(summary, counts)
            for record in reader.iter_metadata():
                if record.name == 'rosbag2':
                    metadata = _parse(record.metadata.get('serialized_metadata', ''))
            profile = header.profile
        else:
            complete = False
            profile, start, end, rates = _read_cut_file(path, topics, counts)
    duration = max(0, end - start)
    return {
        'path': str(path), 'profile': profile, 'complete': complete,
        'rosbag2_metadata': bool(metadata),
        'start_ns': start, 'end_ns': end, 'duration_s': duration / 1e9,
        'message_count': sum(counts.values()),
        'topics': [{'topic': t, 'type': topics[t], 'count': counts[t],
                    'rate_hz': rates.get(t, 0.0)} for t in sorted(topics)],
    }


def _read_cut_file(path: Path, topics: dict[str, str],
                   counts: Counter[str]) -> tuple[str, int, int, dict[str, float]]:
    """A file without summary (killed, disk full): record by record, up to the cut."""
    from mcap.records import Channel, Header, Message, Schema

    from scene_sim_ros.cli.client.bag_recover import salvage
    profile = ''
    schemas: dict[int, str] = {}
    channels: dict[int, str] = {}
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for item in salvage(path):
        if isinstance(item, Header):
            profile = item.profile
        elif isinstance(item, Schema):
            schemas[item.id] = item.name
        elif isinstance(item, Channel):
            channels[item.id] = item.topic
            topics[item.topic] = schemas.get(item.schema_id, '')
        elif isinstance(item, Message):
            topic = channels.get(item.channel_id, '?')
            counts[topic] += 1
            first.setdefault(topic, item.log_time)
            last[topic] = item.log_time
    rates = {t: _rate(counts[t], first[t], last[t]) for t in first}
    return (profile, min(first.values(), default=0), max(last.values(), default=0), rates)


def _parse(text: str) -> dict[str, Any]:
    import yaml
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    return value if isinstance(value, dict) else {}


def _rate(count: int, first: int, last: int) -> float:
    return (count - 1) / ((last - first) / 1e9) if count > 1 and last > first else 0.0


def _rates_from_chunks(summary: Any, counts: Counter[str]) -> dict[str, float]:
    """Rates over the whole span of the file (per channel times are not in the summary)."""
    stats = summary.statistics
    span = (stats.message_end_time - stats.message_start_time) / 1e9
    return {topic: (count / span if span > 0 else 0.0) for topic, count in counts.items()}


def bag_info(path: str, *, as_json: bool = False) -> int:
    info = bag_summary(path)
    if as_json:
        json.dump(info, sys.stdout)
        sys.stdout.write('\n')
        return 0
    print(f'Files:             {info["path"]}')
    print(f'Profile:           {info["profile"] or "?"}')
    if not info['complete']:
        print('Incomplete:        no summary (the recording was killed or its disk was full); '
              'read up to where it stops.\n'
              '                   ros2 bag and rosbags need the summary: '
              f'scene-sim-ros bag recover {info["path"]}')
    print(f'Duration:          {info["duration_s"]:.3f} s (sim time)')
    print(f'Start:             {info["start_ns"] / 1e9:.3f} s')
    print(f'End:               {info["end_ns"] / 1e9:.3f} s')
    print(f'Messages:          {info["message_count"]}')
    width = max([len(t['topic']) for t in info['topics']] + [5])
    type_width = max([len(t['type']) for t in info['topics']] + [4])
    print(f'Topics:            {len(info["topics"])}')
    print(f'  {"topic":<{width}}  {"type":<{type_width}}  {"count":>7}  {"rate":>8}')
    for topic in info['topics']:
        print(f'  {topic["topic"]:<{width}}  {topic["type"]:<{type_width}}  '
              f'{topic["count"]:>7}  {topic["rate_hz"]:>7.1f}Hz')
    return 0


def record(path: str, topics: list[str], *, namespace: str = '/', node_name: str = 'scene_sim',
           duration: float | None = None, max_size_mb: float = 0, wait: float = 10.0) -> int:
    """Record what the running simulation publishes until Ctrl-C / SIGTERM (or ``duration``
    seconds of wall time). Stamps are the sim time of the last ``/clock`` seen."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from scene_sim_ros.ros.outputs.recorder import Recorder
    from scene_sim_ros.ros.outputs.tap import Tap
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    stop = {'now': False}

    def request_stop(*_: Any) -> None:
        stop['now'] = True
    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    ns = '/' + namespace.strip('/') if namespace.strip('/') else '/'
    tap = Tap(rclpy.get_default_context(), (node_name, ns))
    recorder: Recorder | None = None
    try:
        deadline = time.monotonic() + wait
        tap.start()
        while not tap._published():  # noqa: SLF001 - the graph, as the tap sees it
            if time.monotonic() > deadline:
                raise UserError(f'no simulation node {ns.rstrip("/")}/{node_name} publishing '
                                f'after {wait:g} s (is `scene-sim-ros run` going, on this '
                                'ROS_DOMAIN_ID and --namespace?)')
            time.sleep(0.2)
        recorder = Recorder(path, topics=topics, max_size_mb=max_size_mb)
        tap.add_sink(recorder)
        tap.refresh()
        print('Ctrl-C stops', file=sys.stderr)
        end = None if duration is None else time.monotonic() + duration
        while not stop['now'] and (end is None or time.monotonic() < end):
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        tap.stop()
        if recorder is not None:
            recorder.close()
        rclpy.try_shutdown()
    return 0
