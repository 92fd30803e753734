"""Where the node's publishing time goes, step by step (for issue 17's node overhead).

Usage: ``python bench/publishing_trace.py [SCENE] [--seconds 8] [--warmup 11]``

Runs ``scene-sim-ros run SCENE --real-time-factor 0`` (default Game.ros2) in a child process
with timestamps around the publishing machinery (see :mod:`scene_sim_ros.ros.runtime.publishing`), while
this process consumes every robot's joint states, IMU and odometry and ``/tf`` as serialized
messages with rclpy's EventsExecutor (``node_rtf.py --raw --events``). Over ``--seconds`` wall
seconds after ``--warmup`` seconds of sim time it reports the node's RTF (from ``/clock``) and
medians per step:

- the GIL-free PyBullet step (wall and CPU; wall minus CPU is mostly waiting for the GIL back),
- the outbox's window (``WINDOW_SHARE`` of the recent step), the time it spent building the
  step's messages (it builds them all first), the messages it then got out in the window and
  the wall time each took on the publishing thread,
- the messages left for the physics thread and the time it spent publishing them.

The timestamps wrap private methods (``Outbox.open_window``, ``Outbox.drain``, the outbox's
publish callable, ``simulation.native_step``): when those change, change this script with them.
The numbers are wall clock on the node's threads, so a loaded machine shows in them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from node_rtf import GAME, Client, isolate_ros, stop_node  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


Event = tuple[str, float, float, float]


def install_trace(events: list[Event]) -> None:
    """Wrap the publishing machinery so that ``events`` gets ``(kind, time, a, b)`` tuples:
    ``o`` window opened (a: its length), ``b`` the outbox thread built a message (a: wall
    seconds), ``p``/``P`` it starts/ends publishing one, ``x`` another thread published one,
    ``d``/``D`` a drain starts/ends, ``n`` a GIL-free step ended (a: its wall seconds, b: its
    CPU seconds)."""
    import threading

    from scene_sim_ros.ros.runtime import publishing
    from scene_sim_ros.sim.engines.pybullet import simulation

    outbox = publishing.Outbox
    original_init, original_open, original_drain = (
        outbox.__init__, outbox.open_window, outbox.drain)
    original_native_step = simulation.native_step

    def init(self: Any, publish: Any, prepare: Any = None) -> None:
        def traced(publisher: Any, msg: Any) -> None:
            if threading.current_thread() is not self._thread:
                events.append(('x', time.perf_counter(), 0.0, 0.0))
                publish(publisher, msg)
                return
            events.append(('p', time.perf_counter(), 0.0, 0.0))
            publish(publisher, msg)
            events.append(('P', time.perf_counter(), 0.0, 0.0))

        def traced_prepare(publisher: Any, msg: Any) -> Any:
            started = time.perf_counter()
            built = prepare(publisher, msg)
            events.append(('b', time.perf_counter(), time.perf_counter() - started, 0.0))
            return built
        original_init(self, traced, None if prepare is None else traced_prepare)

    def open_window(self: Any, seconds: float) -> None:
        events.append(('o', time.perf_counter(), seconds, 0.0))
        original_open(self, seconds)

    def drain(self: Any) -> None:
        events.append(('d', time.perf_counter(), 0.0, 0.0))
        original_drain(self)
        events.append(('D', time.perf_counter(), 0.0, 0.0))

    def native_step(client: int) -> Any:
        step = original_native_step(client)
        if step is None:
            return None

        def traced_step() -> None:
            wall, cpu = time.perf_counter(), time.thread_time()
            step()
            now = time.perf_counter()
            events.append(('n', now, now - wall, time.thread_time() - cpu))
        return traced_step

    outbox.__init__ = init
    outbox.open_window = open_window
    outbox.drain = drain
    simulation.native_step = native_step


def summarize(events: list[Event], start: float) -> dict[str, float]:
    """Medians per step from the events after ``start`` (perf_counter)."""
    steps: list[dict[str, float]] = []
    current: dict[str, float] | None = None
    native = []
    for kind, t, value, cpu in events:
        if t < start:
            continue
        if kind == 'n':
            native.append((value, cpu))
            continue
        if kind == 'o':
            current = {'open': t, 'window': value, 'built': 0.0, 'sent': 0, 'spent': 0.0,
                       'left': 0}
            steps.append(current)
        elif current is None:
            continue
        elif kind == 'b':
            current['built'] += value
        elif kind == 'x' and 'drained' not in current:
            current['left'] += 1
        elif kind == 'p':
            current['started'] = t
        elif kind == 'P' and 'started' in current:
            current['sent'] += 1
            current['spent'] += t - current.pop('started')
        elif kind == 'd' and 'drain' not in current:
            current['drain'] = t
        elif kind == 'D' and 'drain' in current and 'drained' not in current:
            current['drained'] = t - current['drain']
    complete = [s for s in steps if 'drained' in s]

    def median(values: Any) -> float:
        values = list(values)
        return statistics.median(values) if values else float('nan')
    return {
        'steps': len(complete),
        'native_wall_ms': median(w for w, _ in native) * 1e3,
        'native_cpu_ms': median(c for _, c in native) * 1e3,
        'native_gil_wait_ms_mean': statistics.fmean(w - c for w, c in native) * 1e3
        if native else float('nan'),
        'window_ms': median(s['window'] for s in complete) * 1e3,
        'building_in_window_ms': median(s['built'] for s in complete) * 1e3,
        'sent_in_window': median(s['sent'] for s in complete),
        'ms_per_message_in_window': median(s['spent'] / s['sent'] for s in complete
                                           if s['sent']) * 1e3,
        'left_for_physics_thread': median(s['left'] for s in complete),
        'physics_thread_publishing_ms': median(s['drained'] for s in complete) * 1e3,
    }


def child(out: Path, scene: str, seconds: float) -> int:
    """The node, traced; when it is stopped, writes the summary of its last ``seconds`` wall
    seconds to ``out``."""
    events: list[Event] = []
    install_trace(events)
    from scene_sim_ros.cli import main as cli
    try:
        return cli.main(['run', scene, '--real-time-factor', '0'])
    finally:
        out.write_text(json.dumps(summarize(events, time.perf_counter() - seconds)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=GAME)
    parser.add_argument('--seconds', type=float, default=8.0, help='wall seconds traced')
    parser.add_argument('--warmup', type=float, default=11.0,
                        help='sim seconds the node runs before the trace counts')
    parser.add_argument('--child', type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        sys.exit(child(args.child, str(args.scene), args.seconds))

    from scene_sim_ros import load_scene
    scene = load_scene(args.scene)
    robots = [e.name for e in scene.entities if e.kind == 'robot']
    with tempfile.TemporaryDirectory(prefix='publishing_trace_') as tmp:
        isolate_ros(tmp)
        client = Client(robots, raw=True, events=True)
        client.step_length = scene.step_length
        out = Path(tmp) / 'trace.json'
        argv = [sys.executable, __file__, str(args.scene), '--child', str(out),
                '--seconds', str(args.seconds)]
        with open(Path(tmp) / 'node.log', 'ab') as log:
            proc = subprocess.Popen(argv, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, env=dict(os.environ))
        try:
            try:
                client.wait_for_clock(120.0)
            except TimeoutError:
                sys.exit('the node published no /clock; its log:\n'
                         + (Path(tmp) / 'node.log').read_text()[-4000:])
            rtf, _ = client.rtf(args.seconds, warmup=args.warmup)
        finally:
            stop_node(proc)
            client.close()
        if not out.exists():
            sys.exit(f'the node wrote no trace; its log: {(Path(tmp) / "node.log").read_text()}')
        summary = json.loads(out.read_text())
    summary['node_rtf'] = rtf
    print(f'{args.scene.name}: {len(robots)} robots, per step (medians over '
          f'{summary["steps"]} steps after {args.warmup:g} sim s):')
    for key, value in summary.items():
        print(f'  {key:34s} {value:9.3f}')
    print(json.dumps(summary))


if __name__ == '__main__':
    main()
