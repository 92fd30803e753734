"""How long spawning a large scene stalls /clock (issue 19: a 5 MB scene, at most 2 steps).

The node runs the default scene at real-time factor 1 in a child process; this process
subscribes to /clock and calls ``/spawn_entity`` with a generated SimRobot scene of ``--mb``
megabytes (a body whose mesh, a finely tessellated sphere, makes up the size: vertex and
triangle text as in B-Human's robot files). Each round spawns it under a new name, waits, and
deletes it. Reported per round: the time the service took, and the longest wall-clock gap
between two /clock messages while it ran, in steps (1 = no stall), beside the longest gap in as
long a time without a spawn (what the machine's other load does); medians over rounds.

    python bench/spawn_clock.py [--mb 5] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from node_rtf import isolate_ros, stop_node  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def sphere_scene(megabytes: float, radius: float = 0.2) -> str:
    """A SimRobot scene of about ``megabytes`` MB: one body with a UV-sphere mesh."""
    rings = 8
    while _sphere_bytes(rings) < megabytes * 1e6:
        rings = int(rings * 1.2) + 1
    vertices, triangles = [], []
    for i in range(rings + 1):
        theta = math.pi * i / rings
        for j in range(2 * rings):
            phi = math.pi * j / rings
            vertices.append(f'{radius * math.sin(theta) * math.cos(phi):.6f} '
                            f'{radius * math.sin(theta) * math.sin(phi):.6f} '
                            f'{radius * math.cos(theta):.6f}')
    for i in range(rings):
        for j in range(2 * rings):
            a, b = i * 2 * rings + j, i * 2 * rings + (j + 1) % (2 * rings)
            c, d = a + 2 * rings, b + 2 * rings
            triangles.append(f'{a} {c} {b}\n{b} {c} {d}')
    return f"""<Simulation>
  <Surface name="grey" diffuseColor="rgb(50%, 50%, 50%)"/>
  <Body name="blob">
    <Translation z="1"/>
    <ComplexAppearance name="blobLook">
      <Surface ref="grey"/>
      <Vertices>
{chr(10).join(vertices)}
      </Vertices>
      <Triangles>
{chr(10).join(triangles)}
      </Triangles>
    </ComplexAppearance>
    <SphereGeometry radius="{radius}"/>
    <SphereMass value="1kg" radius="{radius}"/>
  </Body>
</Simulation>
"""


def _sphere_bytes(rings: int) -> int:
    return (rings + 1) * 2 * rings * 29 + rings * 2 * rings * 2 * 16


class Client:
    def __init__(self):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rosgraph_msgs.msg import Clock
        rclpy.init()
        self.node = rclpy.create_node('spawn_clock_bench')
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.arrivals: list[tuple[float, float]] = []  # (wall, sim)
        self.clients: dict = {}
        self.node.create_subscription(Clock, '/clock', self._on_clock, 100)

    def _on_clock(self, msg) -> None:
        self.arrivals.append((time.perf_counter(), msg.clock.sec + msg.clock.nanosec * 1e-9))

    def spin_until(self, done, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.01)
        return True

    def service(self, srv_type, name: str):
        """A client of ``name``, made and matched once (not while /clock is being timed)."""
        if name not in self.clients:
            client = self.node.create_client(srv_type, name)
            if not client.wait_for_service(timeout_sec=60.0):
                raise TimeoutError(f'{name} not offered')
            self.clients[name] = client
        return self.clients[name]

    def call(self, srv_type, name: str, request, timeout: float = 120.0):
        future = self.service(srv_type, name).call_async(request)
        if not self.spin_until(future.done, timeout):
            raise TimeoutError(f'{name} did not answer in {timeout} s')
        return future.result()


def spawn_round(client: Client, scene_file: Path, name: str, step: float) -> dict:
    from simulation_interfaces.srv import DeleteEntity, SpawnEntity

    from scene_sim_ros.ros.supervisor import compat
    client.arrivals.clear()
    client.spin_until(lambda: False, 1.0)
    started = time.perf_counter()
    request = SpawnEntity.Request(name=name, **compat.spawn_resource_fields(str(scene_file), ''))
    response = client.call(SpawnEntity, '/spawn_entity', request)
    took = time.perf_counter() - started
    if response.result.result != 1:
        raise RuntimeError(f'spawn failed: {response.result.error_message}')
    client.spin_until(lambda: False, 1.0)
    gap = longest_gap(client.arrivals, started - 0.5)
    client.call(DeleteEntity, '/delete_entity', DeleteEntity.Request(entity=name))
    client.spin_until(lambda: False, 1.0)
    client.arrivals.clear()  # the same time without a spawn: what the machine's load does
    quiet_started = time.perf_counter()
    client.spin_until(lambda: False, took + 1.5)
    quiet = longest_gap(client.arrivals, quiet_started)
    return {'spawn_s': took, 'longest_gap_steps': gap / step, 'quiet_gap_steps': quiet / step}


def longest_gap(arrivals: list[tuple[float, float]], since: float) -> float:
    """The longest wall time between two /clock messages that arrived after ``since``."""
    times = [wall for wall, _ in arrivals if wall >= since]
    return max(b - a for a, b in zip(times, times[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--mb', type=float, default=5.0, help='size of the spawned scene')
    parser.add_argument('--rounds', '--runs', type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        isolate_ros(log_dir)
        scene_file = Path(log_dir) / 'blob.ros2'
        scene_file.write_text(sphere_scene(args.mb))
        size_mb = scene_file.stat().st_size / 1e6
        from scene_sim_ros import load_scene
        from scene_sim_ros.resources import default_scene_path
        step = load_scene(default_scene_path()).step_length
        argv = [sys.executable, '-m', 'scene_sim_ros.cli', 'run', '--real-time-factor', '1']
        with open(Path(log_dir) / 'node.log', 'ab') as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        client = Client()
        try:
            if not client.spin_until(lambda: len(client.arrivals) > 50, 120.0):
                raise TimeoutError('no /clock from the node')
            from simulation_interfaces.srv import DeleteEntity, SpawnEntity
            client.service(SpawnEntity, '/spawn_entity')
            client.service(DeleteEntity, '/delete_entity')
            rounds = [spawn_round(client, scene_file, f'blob{k}', step)
                      for k in range(args.rounds)]
        finally:
            stop_node(proc)
            client.node.destroy_node()
    print(f'spawned a {size_mb:.1f} MB scene {args.rounds} times into the default scene '
          f'(step {step * 1000:g} ms, real-time factor 1)')
    print(f'{"round":>5} {"spawn s":>8} {"longest /clock gap (steps)":>27} {"without spawn":>14}')
    for k, r in enumerate(rounds):
        print(f'{k:>5} {r["spawn_s"]:>8.2f} {r["longest_gap_steps"]:>27.1f} '
              f'{r["quiet_gap_steps"]:>14.1f}')
    summary = {'bench': 'spawn_clock', 'scene_mb': round(size_mb, 2), 'step_s': step,
               'spawn_s_median': statistics.median(r['spawn_s'] for r in rounds),
               'longest_gap_steps_median': statistics.median(
                   r['longest_gap_steps'] for r in rounds),
               'longest_gap_steps_max': max(r['longest_gap_steps'] for r in rounds),
               'quiet_gap_steps_median': statistics.median(r['quiet_gap_steps'] for r in rounds)}
    print(json.dumps(summary))


if __name__ == '__main__':
    main()
