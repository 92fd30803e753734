"""Soak: the ROS node on Game.ros2 (14 NAOs) at real time for ``--minutes`` (default 30).

Usage: ``python bench/soak.py [SCENE] [--minutes 30] [--warmup S] [--sample 10]
[--node-args "..."] [--depth 100] [--tracemalloc]``

``scene-sim-ros run SCENE`` runs headless at its default real-time factor 1 in a child process
(its own ROS_DOMAIN_ID, localhost-only discovery, ROS_LOG_DIR in a temporary folder, stopped
with SIGINT). This process subscribes, as a consumer would, to ``/clock``, ``/tf`` and the
joint states, IMU and odometry of every robot (the topics ``scene-sim-ros topics`` lists
whose rates are not visual), counts every message (raw, not deserialized: the consumer should
cost little beside the node) and every ``--sample`` wall seconds reads the node's VmRSS
(``/proc/PID/status``), its CPU seconds (all threads), the newest ``/clock`` and the counts.

Reported, between the warm-up sample (minute 2, or 10 % of a shorter run) and the last one:

- RSS at both, growth in % and in KB per minute (two points, and the least-squares slope of
  every sample in between, less sensitive to allocator noise); issue 19 asks for < 2 %;
- RTF = sim seconds per wall second (from /clock) and the dropped steps: steps the node did not
  run because it fell behind real time (wall seconds x RTF 1 / step length - steps run; the node
  re-anchors its pacing when more than 0.25 s late instead of catching up);
- messages received per topic kind over messages expected (sim seconds x rate, the rates of
  ``config/params.yaml``; 0 = every step), and of the topic of each kind that got the least;
  a consumer that falls more than ``--depth`` samples behind (descheduled on a loaded
  machine) loses the oldest, as any KEEP_LAST reader would;
- the node's CPU share (CPU seconds per wall second; 1.0 = one core), and this consumer's.

On a machine other programs load, RTF and dropped steps follow that load; RSS does not, nor
does the node's CPU per sim second (its inverse is the RTF the node would reach on a core of its
own). ``--tracemalloc`` (diagnosis, slows the node) runs the node under :mod:`tracemalloc` and
writes where Python memory grew between the two samples to ``tracemalloc.txt`` by the log.
Exit 2 when the scene (the third-party corpus) is absent. Not run by ``./dev.sh bench`` (it
takes half an hour); ``--minutes 3`` is a quick check.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from node_rtf import GAME, REPO, isolate_ros, process_cpu, stop_node  # bench/ is on sys.path

KINDS = ('clock', 'tf', 'joint_states', 'imu', 'odom')

# The node under tracemalloc: a snapshot when the bench creates the trigger file (warm-up), and
# at each later trigger the growth since then, by line and by traceback, into the report file.
TRACED_NODE = r"""
import os, runpy, sys, threading, time, tracemalloc
trigger, report = sys.argv.pop(1), sys.argv.pop(1)
tracemalloc.start(12)
def take():
    while not os.path.exists(trigger):
        time.sleep(0.5)
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)])
    os.remove(trigger)
    return snapshot
def watch():
    first = take()
    while True:
        now = take()
        with open(report + '.tmp', 'w') as out:
            total = sum(s.size_diff for s in now.compare_to(first, 'filename'))
            out.write(f'traced Python memory growth: {total / 1024:+.0f} KB\n\nby line:\n')
            out.writelines(f'{s}\n' for s in now.compare_to(first, 'lineno')[:20])
            out.write('\nby traceback:\n')
            for s in now.compare_to(first, 'traceback')[:8]:
                out.write(f'{s}\n' + ''.join(f'    {line}\n' for line in s.traceback.format()))
        os.replace(report + '.tmp', report)
threading.Thread(target=watch, daemon=True).start()
sys.argv[0] = 'scene-sim-ros'
runpy.run_module('scene_sim_ros.cli', run_name='__main__', alter_sys=True)
"""


def rss_kb(pid: int) -> int:
    """Resident set size of process ``pid`` now (VmRSS), KB."""
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    raise RuntimeError(f'no VmRSS for process {pid}')


def default_rates() -> dict[str, float]:
    """Hz of sim time per topic kind, as the node's defaults (0: after every step)."""
    import yaml

    from scene_sim_ros.resources import config_path
    params = yaml.safe_load(config_path('params.yaml').read_text())['/**']['ros__parameters']
    rates = params['publish_rates']
    return {'clock': 0.0, 'tf': float(params['tf_rate']),
            'joint_states': float(rates['joint_states']), 'imu': float(rates['imu']),
            'odom': float(params['odometry']['rate'])}


def counted_topics(scene) -> dict[str, str]:
    """Topic -> kind, for the non-visual topics the node publishes on ``scene``."""
    from scene_sim_ros.ros.runtime.interface_list import interface_rows
    kinds = {'rosgraph_msgs/msg/Clock': 'clock', 'sensor_msgs/msg/JointState': 'joint_states',
             'sensor_msgs/msg/Imu': 'imu', 'nav_msgs/msg/Odometry': 'odom'}
    topics = {}
    for direction, topic, msg_type in interface_rows(scene):
        if direction != 'pub':
            continue
        if topic == '/tf':
            topics[topic] = 'tf'
        elif msg_type in kinds:
            topics[topic] = kinds[msg_type]
    return topics


def message_class(kind: str):
    from nav_msgs.msg import Odometry
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Imu, JointState
    from tf2_msgs.msg import TFMessage
    return {'clock': Clock, 'tf': TFMessage, 'joint_states': JointState, 'imu': Imu,
            'odom': Odometry}[kind]


class Consumer:
    """Counts the messages of ``topics`` (reliable, ``depth`` samples kept until this process
    takes them; the node's writers keep 100) and keeps the newest ``/clock``."""

    def __init__(self, topics: dict[str, str], depth: int):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile
        from rosgraph_msgs.msg import Clock
        from std_msgs.msg import UInt64

        from scene_sim_ros.ros import qos
        rclpy.init()
        self.node = rclpy.create_node('soak_bench')
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.topics = topics
        self.counts = dict.fromkeys(topics, 0)
        self.clock: float | None = None
        self.publish_errors = 0
        self.node.create_subscription(Clock, '/clock', self._on_clock, QoSProfile(depth=depth))
        for topic, kind in topics.items():
            self.node.create_subscription(message_class(kind), topic, self._counter(topic),
                                          QoSProfile(depth=depth), raw=True)
        self.node.create_subscription(UInt64, '/scene_sim/publish_errors', self._on_errors,
                                      qos.LATCHED)

    def _counter(self, topic: str):
        counts = self.counts

        def count(_raw: bytes) -> None:
            counts[topic] += 1
        return count

    def _on_clock(self, msg) -> None:
        value = msg.clock.sec + msg.clock.nanosec * 1e-9
        if self.clock is None or value > self.clock:
            self.clock = value

    def _on_errors(self, msg) -> None:
        self.publish_errors = msg.data

    def spin_until(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=min(0.05, max(0.0, deadline - time.monotonic())))

    def wait_for_node(self, proc: subprocess.Popen, timeout: float) -> None:
        """Until the node is the one /clock publisher, its clock runs and every counted topic
        has its publisher."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f'the node exited with {proc.returncode} while starting')
            self.spin_until(time.monotonic() + 0.2)
            missing = [t for t in self.topics if self.node.count_publishers(t) < 1]
            if self.clock is not None and not missing and self.node.count_publishers('/clock') == 1:
                return
        raise TimeoutError(f'the node did not start within {timeout:g} s')

    def close(self) -> None:
        import rclpy
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown()


@dataclass
class Sample:
    wall: float          # seconds since the node's clock first ran
    rss_kb: int
    node_cpu: float      # CPU seconds of the node process
    own_cpu: float       # CPU seconds of this process (the consumer)
    sim: float           # newest /clock
    load: float          # the machine's 1-minute load average
    counts: dict[str, int] = field(default_factory=dict)


def trace_trigger(log_dir: Path, wait: bool) -> None:
    """Ask the traced node for a snapshot; ``wait``: until it wrote its report."""
    report = log_dir / 'tracemalloc.txt'
    report.unlink(missing_ok=True)
    (log_dir / 'snapshot').touch()
    deadline = time.monotonic() + 300.0
    while wait and not report.exists() and time.monotonic() < deadline:
        time.sleep(1.0)


def soak(args: argparse.Namespace, warmup: float, log_dir: Path
         ) -> tuple[list[Sample], Sample, dict, object, int]:
    from scene_sim_ros import load_scene
    scene = load_scene(args.scene)
    topics = counted_topics(scene)
    consumer = Consumer(topics, args.depth)
    traced, period = args.tracemalloc, args.sample
    node = (['-c', TRACED_NODE, str(log_dir / 'snapshot'), str(log_dir / 'tracemalloc.txt')]
            if traced else ['-m', 'scene_sim_ros.cli'])
    argv = [sys.executable, *node, 'run', str(args.scene), *args.node_args.split()]
    with open(log_dir / 'node.log', 'ab') as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=REPO,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    samples: list[Sample] = []
    try:
        consumer.wait_for_node(proc, 300.0)
        start = time.monotonic()
        duration = args.minutes * 60.0
        k = 0
        while True:
            consumer.spin_until(start + k * period)
            if proc.poll() is not None:
                raise RuntimeError(f'the node exited with {proc.returncode} after '
                                   f'{time.monotonic() - start:.0f} s (log: {log_dir}/node.log)')
            samples.append(Sample(time.monotonic() - start, rss_kb(proc.pid), process_cpu(proc.pid),
                                  time.process_time(), consumer.clock, os.getloadavg()[0],
                                  dict(consumer.counts)))
            last = k * period >= duration
            if traced and (last or (k - 1) * period < warmup <= k * period):
                trace_trigger(log_dir, wait=last)
            if last:
                break
            k += 1
            if k % 6 == 0:
                s = samples[-1]
                print(f'{s.wall / 60:5.1f} min  RSS {s.rss_kb / 1024:7.1f} MB  '
                      f'sim {s.sim:8.1f} s', flush=True)
        (log_dir / 'samples.json').write_text(json.dumps([vars(s) for s in samples]))
        warm = next(s for s in samples if s.wall >= warmup)
        return samples, warm, topics, scene, consumer.publish_errors
    finally:
        stop_node(proc)
        consumer.close()


def slope_kb_per_min(samples: list[Sample]) -> float:
    """Least-squares slope of RSS over wall time."""
    n = len(samples)
    if n < 2:
        return math.nan
    mean_t = sum(s.wall for s in samples) / n
    mean_r = sum(s.rss_kb for s in samples) / n
    var = sum((s.wall - mean_t) ** 2 for s in samples)
    cov = sum((s.wall - mean_t) * (s.rss_kb - mean_r) for s in samples)
    return cov / var * 60.0


def delivery(warm: Sample, end: Sample, topics: dict[str, str], step_length: float,
             rates: dict[str, float]) -> dict[str, dict[str, float]]:
    """Per kind: messages received between the two samples over expected (sim s x rate), all
    topics of the kind together (``share``) and the topic that received the least (``worst``)."""
    simulated = end.sim - warm.sim
    per_topic_expected = {
        kind: simulated / step_length if rate <= 0.0 or 1.0 / rate <= step_length
        else simulated * rate for kind, rate in rates.items()}
    result: dict[str, dict[str, float]] = {}
    for topic, kind in topics.items():
        row = result.setdefault(kind, {'topics': 0, 'received': 0, 'expected': 0.0,
                                       'worst': math.inf})
        received = end.counts[topic] - warm.counts[topic]
        row['topics'] += 1
        row['received'] += received
        row['expected'] += per_topic_expected[kind]
        row['worst'] = min(row['worst'], received / per_topic_expected[kind])
    for row in result.values():
        row['share'] = row['received'] / row['expected'] if row['expected'] else math.nan
    return result


def report(args, samples: list[Sample], warm: Sample, topics: dict[str, str], scene,
           publish_errors: int) -> dict:
    end = samples[-1]
    window = [s for s in samples if s.wall >= warm.wall]
    wall = end.wall - warm.wall
    simulated = end.sim - warm.sim
    step = scene.step_length
    expected_steps = wall * 1.0 / step   # real-time factor 1
    run_steps = simulated / step
    growth_kb = end.rss_kb - warm.rss_kb
    rates = default_rates()
    delivered = delivery(warm, end, topics, step, rates)
    result = {
        'scene': args.scene.name, 'robots': sum(e.kind == 'robot' for e in scene.entities),
        'step_length': step, 'minutes': args.minutes, 'warmup_s': round(warm.wall, 1),
        'sample_s': args.sample, 'samples': len(samples), 'consumer_depth': args.depth,
        'rss_warm_kb': warm.rss_kb, 'rss_end_kb': end.rss_kb,
        'rss_max_kb': max(s.rss_kb for s in window),
        'rss_growth_pct': 100.0 * growth_kb / warm.rss_kb,
        'rss_growth_kb_per_min': growth_kb / (wall / 60.0),
        'rss_slope_kb_per_min': slope_kb_per_min(window),
        'wall_s': wall, 'sim_s': simulated, 'rtf': simulated / wall,
        'steps_run': round(run_steps), 'steps_dropped': round(expected_steps - run_steps),
        'dropped_share': 1.0 - run_steps / expected_steps,
        'node_cpu_share': (end.node_cpu - warm.node_cpu) / wall,
        'node_cpu_per_sim_s': (end.node_cpu - warm.node_cpu) / simulated,
        'consumer_cpu_share': (end.own_cpu - warm.own_cpu) / wall,
        'load_average': sum(s.load for s in window) / len(window), 'cpus': os.cpu_count(),
        'received': {k: round(v['share'], 4) for k, v in delivered.items()},
        'received_worst_topic': {k: round(v['worst'], 4) for k, v in delivered.items()},
        'publish_errors': publish_errors,
        'rss_kb_each_minute': [s.rss_kb for s in samples if round(s.wall / args.sample)
                               % round(60 / args.sample) == 0],
    }
    result['rss_growth_ok'] = result['rss_growth_pct'] < 2.0
    print(f"\n{result['scene']} ({result['robots']} robots, step {step * 1000:g} ms), real-time "
          f"factor 1, headless, {args.minutes:g} min; window from {warm.wall:.0f} s to "
          f'{end.wall:.0f} s after the first /clock, samples every {args.sample:g} s:\n')
    print('| measure | value |')
    print('|---|---|')
    print(f"| RSS after warm-up / at end / max | {warm.rss_kb / 1024:.1f} / "
          f"{end.rss_kb / 1024:.1f} / {result['rss_max_kb'] / 1024:.1f} MB |")
    print(f"| RSS growth | {result['rss_growth_pct']:+.2f} % "
          f"({'< 2 %: ok' if result['rss_growth_ok'] else '>= 2 %: FAILS issue 19'}), "
          f"{result['rss_growth_kb_per_min']:+.1f} KB/min (fit {result['rss_slope_kb_per_min']:+.1f}"
          ' KB/min) |')
    print(f"| sim / wall time | {simulated:.1f} s / {wall:.1f} s = RTF {result['rtf']:.3f} |")
    print(f"| dropped steps (behind real time) | {result['steps_dropped']} of "
          f"{round(expected_steps)} ({result['dropped_share']:.1%}) |")
    for kind in KINDS:
        if kind in delivered:
            row = delivered[kind]
            rate = rates[kind]
            print(f"| received {kind} ({row['topics']} topic{'s' if row['topics'] > 1 else ''}, "
                  f"{'every step' if rate <= 0 else f'{rate:g} Hz'}) | {row['received']} of "
                  f"{row['expected']:.0f} ({row['share']:.2%}"
                  + (f", worst topic {row['worst']:.2%})" if row['topics'] > 1 else ')') + ' |')
    print(f"| node CPU (1.0 = one core) | {result['node_cpu_share']:.2f}, "
          f"{result['node_cpu_per_sim_s']:.2f} s per sim s (RTF "
          f"{1 / result['node_cpu_per_sim_s']:.2f} on a core of its own) |")
    print(f"| consumer CPU | {result['consumer_cpu_share']:.2f} |")
    print(f"| machine load (mean 1-min load average) | {result['load_average']:.1f} on "
          f"{result['cpus']} cores |")
    print(f'| node publish errors (~/publish_errors) | {publish_errors} |')
    print(json.dumps(result))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=GAME)
    parser.add_argument('--minutes', type=float, default=30.0)
    parser.add_argument('--warmup', type=float, default=None,
                        help='seconds before the first RSS of the window (default: 120, or 10 %% '
                             'of a run shorter than 20 minutes)')
    parser.add_argument('--sample', type=float, default=10.0, help='wall seconds between samples')
    parser.add_argument('--node-args', default='', help='more `scene-sim-ros run` arguments')
    parser.add_argument('--depth', type=int, default=100,
                        help='samples each subscription keeps until taken (the node keeps 100)')
    parser.add_argument('--tracemalloc', action='store_true',
                        help='run the node under tracemalloc; where Python memory grew goes to '
                             'tracemalloc.txt beside the node log')
    args = parser.parse_args()
    if not args.scene.is_file():
        corpus = ' (the third-party corpus ../shared/corpus is not here)' if args.scene == GAME else ''
        print(f'soak: {args.scene} is absent{corpus}', file=sys.stderr)
        return 2
    warmup = args.warmup if args.warmup is not None else min(120.0, 0.1 * args.minutes * 60.0)
    log_dir = Path(tempfile.mkdtemp(prefix='soak_'))
    isolate_ros(str(log_dir))
    print(f'soak: {args.scene.name} for {args.minutes:g} min, warm-up {warmup:g} s, node log '
          f'{log_dir}/node.log', flush=True)
    *measured, publish_errors = soak(args, warmup, log_dir)
    report(args, *measured, publish_errors)
    if args.tracemalloc:
        print(f'tracemalloc: {log_dir}/tracemalloc.txt', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
