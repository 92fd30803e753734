"""What recording and the Foxglove live view cost the simulation: real-time factor of the default
scene at ``--real-time-factor 0`` (as fast as it goes), in rounds, interleaved:

1. **plain**: ``scene-sim-ros run`` while this process subscribes to the camera, depth and
   segmentation images (so they are rendered, as they are when recorded);
2. **record**: the same, with ``--record`` (every topic into an MCAP file);
3. **stalled viewer**: the same as plain, with ``--foxglove`` and a viewer in another process
   that subscribes to every channel and then never reads again;
4. **external record**: plain, with ``scene-sim-ros record`` in another process (every topic
   subscribed from outside: what the node pays to publish everything, without the tap).

RTF = sim seconds per wall second from two ``/clock`` samples ``--window`` seconds apart;
CPU = CPU seconds of the node process (all its threads, ``/proc``) per sim second over the same
window: on a machine other programs load, RTF follows their load, CPU per sim second much less.
Reported: medians and the cost ratios 1 - RTF/plain RTF and CPU/plain CPU - 1 (issue 28:
record <= 10 %, stalled viewer < 5 %).

Usage: ``python bench/outputs_rtf.py [--rounds 3] [--window 6] [--real-time-factor 0]``
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from node_rtf import process_cpu, stop_node  # bench/ is on sys.path when a benchmark runs as a script

IMAGES = ('/rover/camera/image_raw', '/rover/depth_camera/image_raw',
          '/rover/segmentation/image_raw')

STALLED_VIEWER = r"""
import json, sys, time
from websockets.sync.client import connect
ws = connect(f"ws://127.0.0.1:{sys.argv[1]}", subprotocols=["foxglove.sdk.v1"], max_size=None)
channels = {}
deadline = time.monotonic() + 20
while time.monotonic() < deadline and len(channels) < 20:
    try:
        frame = ws.recv(timeout=0.5)
    except TimeoutError:
        continue
    if isinstance(frame, str):
        msg = json.loads(frame)
        if msg["op"] == "advertise":
            for c in msg["channels"]:
                channels[c["topic"]] = c["id"]
ws.send(json.dumps({"op": "subscribe", "subscriptions": [
    {"id": i + 1, "channelId": cid} for i, cid in enumerate(channels.values())]}))
print("stalled", len(channels), flush=True)
time.sleep(3600)  # never reads again
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Probe:
    def __init__(self) -> None:
        import rclpy
        rclpy.init()
        self.node = rclpy.create_node('outputs_rtf_bench')
        self.images = []

    def clock(self, timeout: float = 30.0) -> float:
        import rclpy
        from rosgraph_msgs.msg import Clock
        got: list[float] = []
        sub = self.node.create_subscription(
            Clock, '/clock', lambda m: got.append(m.clock.sec + m.clock.nanosec * 1e-9), 10)
        deadline = time.monotonic() + timeout
        while not got and time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=0.05)
        self.node.destroy_subscription(sub)
        if not got:
            raise TimeoutError('no /clock')
        return got[0]

    def watch_images(self) -> None:
        from rclpy.qos import qos_profile_sensor_data
        from sensor_msgs.msg import Image
        self.images = [self.node.create_subscription(Image, t, lambda m: None,
                                                     qos_profile_sensor_data) for t in IMAGES]

    def unwatch(self) -> None:
        for sub in self.images:
            self.node.destroy_subscription(sub)
        self.images = []

    def rtf(self, window: float, pid: int) -> tuple[float, float]:
        """(RTF, CPU seconds of process ``pid`` per sim second) over ``window`` s."""
        import rclpy
        start_sim, start, start_cpu = self.clock(), time.monotonic(), process_cpu(pid)
        end = start + window
        while time.monotonic() < end:
            rclpy.spin_once(self.node, timeout_sec=0.05)  # the image callbacks
        sim = self.clock() - start_sim
        return sim / (time.monotonic() - start), (process_cpu(pid) - start_cpu) / max(sim, 1e-9)


CLI = str(Path(sys.executable).with_name('scene-sim-ros'))
RTF = ['--real-time-factor', '0']


def run_node(extra: list[str], log: Path) -> subprocess.Popen:
    with open(log, 'ab') as out:
        return subprocess.Popen([CLI, 'run', *RTF, *extra], stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def one(probe: Probe, extra: list[str], window: float, log: Path, viewer: bool = False,
        port: int = 0, external: Path | None = None) -> tuple[float, float]:
    proc = run_node(extra, log)
    viewer_proc = None
    try:
        probe.clock(timeout=60)
        if external is not None:
            viewer_proc = subprocess.Popen([CLI, 'record', str(external)],
                                           stderr=subprocess.DEVNULL, start_new_session=True)
        if viewer:
            viewer_proc = subprocess.Popen([sys.executable, '-c', STALLED_VIEWER, str(port)],
                                           stdout=subprocess.PIPE, text=True)
            assert viewer_proc.stdout is not None
            print('   ', viewer_proc.stdout.readline().strip(), file=sys.stderr)
        probe.watch_images()
        time.sleep(2.0)  # rendering on, the viewer's queues full
        return probe.rtf(window, proc.pid)
    finally:
        probe.unwatch()
        if viewer_proc is not None:
            os.killpg(viewer_proc.pid, signal.SIGKILL) if external else viewer_proc.kill()
            viewer_proc.wait()
        stop_node(proc, timeout=15.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--window', type=float, default=6.0)
    parser.add_argument('--real-time-factor', default='0')
    args = parser.parse_args()
    RTF[1] = args.real_time_factor
    tmp = Path(tempfile.mkdtemp(prefix='outputs_rtf_'))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    os.environ.setdefault('ROS_DOMAIN_ID', str(60 + os.getpid() % 40))
    os.environ.setdefault('ROS_LOG_DIR', str(tmp / 'ros'))
    probe = Probe()
    keys = ('plain', 'record', 'stalled_viewer', 'external_record')
    results: dict[str, list[float]] = {k: [] for k in keys}
    cpu: dict[str, list[float]] = {k: [] for k in keys}

    def note(key: str, measured: tuple[float, float]) -> None:
        results[key].append(measured[0])
        cpu[key].append(measured[1])
    for round_ in range(args.rounds):
        log = tmp / 'node.log'
        note('plain', one(probe, [], args.window, log))
        bag = tmp / f'round{round_}.mcap'
        note('record', one(probe, ['--record', str(bag)], args.window, log))
        bag.unlink(missing_ok=True)
        port = _free_port()
        note('stalled_viewer', one(probe, ['--foxglove', str(port)], args.window, log,
                                   viewer=True, port=port))
        note('external_record', one(probe, [], args.window, log, external=tmp / 'external.mcap'))
        (tmp / 'external.mcap').unlink(missing_ok=True)
        print(f'  round {round_ + 1}: ' + ', '.join(
            f'{k} {results[k][-1]:.2f} ({cpu[k][-1]:.2f} cpu-s/sim-s)' for k in keys),
            file=sys.stderr)
    medians = {k: statistics.median(v) for k, v in results.items()}
    cpu_medians = {k: statistics.median(v) for k, v in cpu.items()}
    cost = {k: 1 - medians[k] / medians['plain'] for k in keys if k != 'plain'}
    cpu_cost = {k: cpu_medians[k] / cpu_medians['plain'] - 1 for k in keys if k != 'plain'}
    print(f'| run (default scene, --real-time-factor {RTF[1]}, images subscribed) '
          '| RTF median | min-max | cost | CPU s per sim s | CPU cost |')
    print('|---|---|---|---|---|---|')
    for key in keys:
        values = results[key]
        print(f'| {key} | {medians[key]:.2f} | {min(values):.2f}-{max(values):.2f} | '
              + (f'{cost[key] * 100:.1f} %' if key in cost else '-')
              + f' | {cpu_medians[key]:.2f} | '
              + (f'{cpu_cost[key] * 100:+.1f} %' if key in cpu_cost else '-') + ' |')
    print(json.dumps({'rtf': medians, 'runs': results, 'cost': cost, 'cpu_per_sim_s': cpu,
                      'cpu_cost': cpu_cost}))


if __name__ == '__main__':
    main()
