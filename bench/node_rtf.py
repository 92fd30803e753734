"""Real-time factor of the ROS node on Game.ros2 (14 NAOs) vs the bare simulation, same run.

Usage: ``python bench/node_rtf.py [SCENE] [--rounds 5] [--window 8] [--robot robot1]
[--clock-only] [--raw] [--events] [--no-cameras] [--warmup 0] [--engine pybullet]
[--node-args "..."]``

Each round, interleaved:

1. **bare**: the simulation of the same scene (in ``--engine``) stepped in this process
   for ``--window`` wall seconds (no ROS);
2. **node**: ``scene-sim-ros run SCENE --real-time-factor 0`` in a child process (joint states,
   TF and IMU of every robot published after every step, odometry at 50 Hz, /clock), while this
   process subscribes to every robot's ``joint_states``, ``imu/data_raw`` and ``odom`` and to
   ``/tf`` and ``/clock``; no camera is subscribed, so none is rendered;
3. **node + 2 cameras**: the same node, with ``<robot>/CameraTop`` and ``<robot>/CameraBottom``
   ``image_raw`` subscribed as well (rendered at ``publish_rates.camera``, 30 Hz of sim time);
   ``--no-cameras`` leaves this part out (the non-visual topics only, in half the time).

RTF = simulated seconds per wall second, measured from ``/clock`` over the window as a user sees
it (for bare: ``sim.time``); the window starts 0.5 wall seconds after the node's clock runs,
and not before its sim time reached ``--warmup`` seconds (some costs only start after seconds of
sim time). ``--clock-only`` leaves out the consumer of joint states, TF, IMU and odometry
(their cost in the node without a subscriber, and the consumer's own CPU); ``--raw`` receives
them as serialized bytes and counts them (the node delivers every message as before, the
consumer leaves out the Python deserialization that keeps one of two cores busy); ``--events``
takes them with rclpy's EventsExecutor (C++) instead of the SingleThreadedExecutor, whose
per-message wait-set rebuild costs the consumer most of its CPU (on 2 cores, CPU the node then
lacks). The consumer's own CPU (its process, per wall second) is reported. Reported: medians
over the rounds, and the overhead ratio node RTF / bare RTF (1.0 = the bridge costs nothing). On
a machine other processes load, wall-clock RTFs follow the load; the CPU seconds per simulated
second (bare: this thread; node: its process, all threads, during the plain window) and their
ratio do not, and say what the node would reach on a core of its own.
The child gets its own ROS_DOMAIN_ID,
localhost-only discovery and a temporary ROS_LOG_DIR, and is stopped with SIGINT.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from game_scene import GAME

REPO = Path(__file__).resolve().parents[1]
CAMERA_RATE = 30.0   # Hz of sim time: the node's publish_rates.camera default
ODOM_RATE = 50.0     # Hz of sim time: the node's mobile_base.rate default


def isolate_ros(log_dir: str) -> None:
    """Localhost discovery and a ROS domain no live test process holds (the tests' allocator)."""
    sys.path.insert(0, str(REPO / 'test'))
    from support import ros_env
    ros_env.isolate(Path(log_dir))


def bare_rtf(sim, window: float) -> tuple[float, float]:
    """(RTF, CPU seconds per simulated second) of stepping ``sim`` here for ``window`` s."""
    started, cpu = time.perf_counter(), time.thread_time()
    sim_start = sim.time
    while time.perf_counter() - started < window:
        sim.step(5)
    simulated = sim.time - sim_start
    return simulated / (time.perf_counter() - started), (time.thread_time() - cpu) / simulated


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) process ``pid`` has used."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


class Client:
    """Subscribes like a consumer of the node and measures /clock against the wall clock."""

    def __init__(self, robots: list[str], consume: bool = True, raw: bool = False,
                 events: bool = False):
        import rclpy
        from nav_msgs.msg import Odometry
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import Imu, JointState
        from tf2_msgs.msg import TFMessage
        rclpy.init()
        self.node = rclpy.create_node('node_rtf_bench')
        if events:
            from rclpy.experimental import EventsExecutor
            self.executor = EventsExecutor()
        else:
            self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.clock = None
        self.received = 0
        count = self._count
        self.node.create_subscription(Clock, '/clock', self._on_clock, 10)
        if consume:
            self.node.create_subscription(TFMessage, '/tf', count, QoSProfile(depth=100),
                                          raw=raw)
        for robot in robots if consume else ():
            self.node.create_subscription(JointState, f'/{robot}/joint_states', count, 10,
                                          raw=raw)
            self.node.create_subscription(Imu, f'/{robot}/imu/data_raw', count, 10, raw=raw)
            self.node.create_subscription(Odometry, f'/{robot}/odom', count, 10, raw=raw)
        self.camera_subscriptions = []
        self.robots = list(robots)
        self.delivered: list[float] = []   # per round: frames received / frames published
        self.per_step = 2 * len(robots) + 1 if consume else 0  # joint states, IMU, /tf
        self.per_second = ODOM_RATE * len(robots) if consume else 0.0  # odometry
        self.step_length = 0.0  # set by main()
        self.received_share: list[float] = []  # per round: messages received / published
        self.consumer_cores: list[float] = []  # per round: this process's CPU s per wall s

    def _count(self, msg) -> None:
        self.received += 1

    def _on_clock(self, msg) -> None:
        # monotonic: a stray /clock of another process in the domain cannot drag it back
        value = msg.clock.sec + msg.clock.nanosec * 1e-9
        if self.clock is None or value > self.clock:
            self.clock = value

    def spin_for(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.05)

    def wait_for_clock(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.clock is None:
            if time.monotonic() > deadline:
                raise TimeoutError('no /clock from the node')
            self.executor.spin_once(timeout_sec=0.1)

    def rtf(self, window: float, pid: int | None = None,
            warmup: float = 0.0) -> tuple[float, float]:
        """(RTF, CPU seconds of process ``pid`` per simulated second; nan without a pid),
        measured from 0.5 wall seconds on, and not before /clock reached ``warmup`` s."""
        self.spin_for(0.5)
        while self.clock is not None and self.clock < warmup:
            self.spin_for(0.1)
        publishers = self.node.count_publishers('/clock')
        if publishers != 1:
            print(f'warning: {publishers} publishers on /clock', flush=True)
        sim0, wall0 = self.clock, time.monotonic()
        cpu0 = process_cpu(pid) if pid is not None else math.nan
        own0 = time.process_time()
        received0 = self.received
        self.spin_for(window)
        simulated = self.clock - sim0
        if pid is not None:
            self.consumer_cores.append((time.process_time() - own0) / (time.monotonic() - wall0))
        if pid is not None and self.per_step:
            published = simulated / self.step_length * self.per_step + simulated * self.per_second
            self.received_share.append((self.received - received0) / published)
        cpu = (process_cpu(pid) - cpu0) / simulated if pid is not None else math.nan
        return simulated / (time.monotonic() - wall0), cpu

    def wait_for_node(self, timeout: float) -> None:
        """Until the node just started is the one /clock publisher and its clock runs (the
        last samples of the node stopped before can still arrive while this one is found)."""
        deadline = time.monotonic() + timeout
        while self.node.count_publishers('/clock') != 1 and time.monotonic() < deadline:
            self.spin_for(0.2)
        self.clock = None
        self.wait_for_clock(max(1.0, deadline - time.monotonic()))

    def subscribe_cameras(self, robot: str) -> None:
        """``robot``'s CameraTop and CameraBottom; ``all``: those of every robot."""
        from rclpy.qos import QoSProfile
        from sensor_msgs.msg import Image
        self.images: dict[str, set[float]] = {}
        topics = [f'/{r}/{camera}/image_raw' for r in (self.robots if robot == 'all' else [robot])
                  for camera in ('CameraTop', 'CameraBottom')]
        for topic in topics:
            def count(msg, topic: str = topic) -> None:
                stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
                self.images.setdefault(topic, set()).add(round(stamp, 6))
            self.camera_subscriptions.append(self.node.create_subscription(
                Image, topic, count, QoSProfile(depth=10)))

    def frames_delivered(self, rate: float = CAMERA_RATE) -> float:
        """Distinct frames received over the frames published (``rate`` Hz of sim time between
        each camera's first and last stamp), all cameras together."""
        received = expected = 0
        for stamps in self.images.values():
            received += len(stamps)
            expected += round((max(stamps) - min(stamps)) * rate) + 1
        return received / expected if expected else math.nan

    def wait_for_images(self, timeout: float) -> None:
        """Until every camera delivered a frame (a renderer's first frame may build caches)."""
        deadline = time.monotonic() + timeout
        while (len(self.images) < len(self.camera_subscriptions)
               and time.monotonic() < deadline):
            self.executor.spin_once(timeout_sec=0.05)

    def unsubscribe_cameras(self) -> None:
        for subscription in self.camera_subscriptions:
            self.node.destroy_subscription(subscription)
        self.camera_subscriptions.clear()

    def close(self) -> None:
        import rclpy
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown()


def node_round(scene: Path, client: Client, window: float, robot: str | None,
               log_dir: str, extra: list[str], warmup: float = 0.0) -> tuple[float, float, float]:
    """(RTF, RTF with ``robot``'s cameras subscribed (nan when None), CPU per sim second)."""
    argv = [sys.executable, '-m', 'scene_sim_ros.cli', 'run', str(scene),
            '--real-time-factor', '0', *extra]
    with open(Path(log_dir) / 'node.log', 'ab') as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        client.clock = None
        client.wait_for_clock(120.0)
        client.wait_for_node(60.0)
        plain, cpu = client.rtf(window, proc.pid, warmup)
        if robot is None:
            return plain, math.nan, cpu
        client.subscribe_cameras(robot)
        client.wait_for_images(60.0)  # first frames (renderers start lazily, gl builds its LOD)
        client.spin_for(1.0)
        client.images.clear()
        cameras, _ = client.rtf(window)
        client.unsubscribe_cameras()
        client.delivered.append(client.frames_delivered())
        return plain, cameras, cpu
    finally:
        stop_node(proc)


def stop_node(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGINT to the node's process group, SIGKILL if it has not exited after ``timeout`` s."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=GAME)
    parser.add_argument('--rounds', '--runs', type=int, default=5)
    parser.add_argument('--window', type=float, default=8.0, help='wall seconds per measurement')
    parser.add_argument('--robot', default='robot1',
                        help="whose two cameras are subscribed ('all': every robot's)")
    parser.add_argument('--clock-only', action='store_true',
                        help='subscribe to /clock only (no consumer of joint states, TF, IMU, '
                        'odometry)')
    parser.add_argument('--raw', action='store_true',
                        help='take joint states, TF, IMU and odometry as serialized bytes (no '
                        'Python '
                        'deserialization in the consumer)')
    parser.add_argument('--events', action='store_true',
                        help="consume with rclpy's EventsExecutor (C++) instead of the "
                        'SingleThreadedExecutor')
    parser.add_argument('--warmup', type=float, default=0.0,
                        help='sim seconds the node runs before its window starts (its /clock)')
    parser.add_argument('--no-cameras', action='store_true',
                        help='leave out the round with cameras subscribed')
    parser.add_argument('--engine', default='pybullet', help='the engine of both bare and node')
    parser.add_argument('--node-args', default='', help='more `scene-sim-ros run` arguments, '
                        'e.g. "--no-use-sim-time" or "--ros-args -p tf_rate:=30.0"')
    args = parser.parse_args()
    log_dir = tempfile.mkdtemp(prefix='node_rtf_')
    isolate_ros(log_dir)

    from scene_sim_ros import create_simulator, load_scene
    scene = load_scene(args.scene)
    robots = [e.name for e in scene.entities if e.kind == 'robot']
    sim = create_simulator(scene, args.engine)
    sim.step(round(0.5 / sim.step_length))
    client = Client(robots, consume=not args.clock_only, raw=args.raw, events=args.events)
    client.step_length = scene.step_length
    bare, plain, cameras, bare_cpu, node_cpu = [], [], [], [], []
    cameras_label = f'{2 * len(robots) if args.robot == "all" else 2} cameras'
    try:
        for k in range(args.rounds):
            rtf, cpu = bare_rtf(sim, args.window)
            bare.append(rtf)
            bare_cpu.append(cpu)
            p, c, cpu = node_round(args.scene, client, args.window,
                                   None if args.no_cameras else args.robot, log_dir,
                                   ['--engine', args.engine, *args.node_args.split()],
                                   args.warmup)
            plain.append(p)
            cameras.append(c)
            node_cpu.append(cpu)
            print(f'round {k + 1}: bare {bare[-1]:.3f}  node {p:.3f}  node+{cameras_label} {c:.3f}  '
                  f'CPU s per sim s: bare {bare_cpu[-1]:.3f} node {cpu:.3f}  '
                  f'frames received {client.delivered[-1] if client.delivered else math.nan:.1%}',
                  flush=True)
    finally:
        client.close()
        sim.close()
    result = {
        'consumer': ('clock only' if args.clock_only
                     else 'joint states, TF, IMU, odometry of all robots'
                     + (' (serialized, counted)' if args.raw else '')),
        'scene': args.scene.name, 'robots': len(robots), 'step_length': scene.step_length,
        'rounds': args.rounds, 'window_s': args.window, 'warmup_sim_s': args.warmup,
        'bare_rtf': statistics.median(bare), 'node_rtf': statistics.median(plain),
        'node_cameras_rtf': statistics.median(cameras),
        'node_over_bare': statistics.median(p / b for p, b in zip(plain, bare)),
        'node_cameras_over_bare': statistics.median(c / b for c, b in zip(cameras, bare)),
        'bare_cpu_per_sim_s': statistics.median(bare_cpu),
        'node_cpu_per_sim_s': statistics.median(node_cpu),
        'cpu_bare_over_node': statistics.median(b / n for b, n in zip(bare_cpu, node_cpu)),
        'camera_frames_received': (statistics.median(client.delivered) if client.delivered
                                   else math.nan),
        'messages_received': (statistics.median(client.received_share)
                              if client.received_share else math.nan),
        'consumer_cores': statistics.median(client.consumer_cores),
    }
    print(f"\n{result['scene']} ({result['robots']} robots, step {scene.step_length * 1000:g} ms), "
          f'median of {args.rounds} rounds of {args.window:g} s, load average '
          f'{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:')
    print(f"  bare simulation       RTF {result['bare_rtf']:.3f}   ({args.engine})")
    print(f"  consumer: {result['consumer']}")
    print(f"  node                  RTF {result['node_rtf']:.3f}   "
          f"x{result['node_over_bare']:.2f} of bare")
    print(f"  node + {cameras_label:<15}RTF {result['node_cameras_rtf']:.3f}   "
          f"x{result['node_cameras_over_bare']:.2f} of bare")
    print(f"  CPU per sim second    bare {result['bare_cpu_per_sim_s']:.3f} s, node (all threads) "
          f"{result['node_cpu_per_sim_s']:.3f} s   x{result['cpu_bare_over_node']:.2f}: the "
          'node on a core of its own, as a share of bare')
    print(f"  joint states, IMU, odometry and /tf received by the consumer: "
          f"{result['messages_received']:.1%} of those published; the consumer's process "
          f"used {result['consumer_cores']:.0%} of a core")
    print(f"  camera frames received in another process: {result['camera_frames_received']:.1%} "
          f'(distinct stamps over the {CAMERA_RATE:g} Hz frames between first and last)')
    print(json.dumps(result))


if __name__ == '__main__':
    main()
