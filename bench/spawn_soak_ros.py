"""Memory over many spawn/delete cycles through the node's services (issue 19: < 1 KB a cycle).

``bench/spawn_soak.py`` measures the simulator alone; this one the ROS side. Variants, each in
fresh processes, interleaved within each run:

- ``node``: the node (``scene-sim-ros run``, default scene, real-time factor 1) in a child
  process; this process subscribes to the spawned entity's ``joint_states`` and ``odom`` and
  repeats: ``/spawn_entity`` of ``--entity`` (the car of ``car.ros2`` by default) named
  ``thing``, then ``/delete_entity``; the node's RSS is read from ``/proc``;
- ``node-keeprefs``: the same node with its deleted entities' endpoints left in rclpy's callback
  group (the behaviour before the node forgot them: ros2/rclpy#1356, see ``ros/runtime/entities.py``);
- ``rclpy``: plain rclpy, no scene_sim_ros: one node creates and destroys the endpoints a
  spawned car gets (10 publishers, 5 subscriptions, a FollowJointTrajectory action server, with
  the node's QoS profiles; destroyed on the executor's thread as the node does) while a second
  process subscribes to two of them;
- ``rclpy-forget``: the same, forgetting the destroyed endpoints as the node does.

RSS is read after ``--warmup`` cycles and again after ``--cycles`` more; the growth per measured
cycle is reported (median of ``--runs`` runs, min and max).

    python bench/spawn_soak_ros.py [--cycles 1000] [--warmup 300] [--runs 1] [--variants ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from node_rtf import isolate_ros, stop_node  # noqa: E402
from spawn_clock import Client  # noqa: E402
from spawn_soak import median_range  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CAR = ROOT / 'scene_sim_ros' / 'data' / 'examples' / 'car.ros2'
VARIANTS = ('node', 'node-keeprefs', 'rclpy', 'rclpy-forget')

_KEEP_REFERENCES = """
import runpy, sys
import scene_sim_ros.ros.runtime.entities as entities
entities.forget_destroyed = lambda group: None
sys.argv[0] = 'scene-sim-ros'
runpy.run_module('scene_sim_ros.cli', run_name='__main__', alter_sys=True)
"""

_PLAIN_RCLPY = """
import gc, subprocess, sys, threading, time
import rclpy
from rclpy.action import ActionServer
from rclpy.executors import SingleThreadedExecutor
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import CameraInfo, Image, Imu, JointState, LaserScan
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory
sys.path.insert(0, {root!r})
from scene_sim_ros.ros import qos
from scene_sim_ros.ros.runtime.entities import forget_destroyed

PUBLISHERS = [
    (JointState, 'joint_states', qos.SENSOR), (String, 'robot_description', qos.LATCHED),
    (Image, 'camera/image_raw', qos.IMAGE), (CameraInfo, 'camera/camera_info', qos.IMAGE),
    (Image, 'depth_camera/image_raw', qos.IMAGE),
    (CameraInfo, 'depth_camera/camera_info', qos.IMAGE), (LaserScan, 'laser/scan', qos.SENSOR),
    (Imu, 'imu', qos.SENSOR), (Odometry, 'odom', qos.SENSOR),
    (JointTrajectoryControllerState, 'joint_trajectory_controller/controller_state',
     qos.COMMAND)]
SUBSCRIPTIONS = [
    (JointState, 'joint_commands'), (JointTrajectory, 'joint_trajectory'),
    (Float64MultiArray, 'position_controller/commands'),
    (Float64MultiArray, 'velocity_controller/commands'), (TwistStamped, 'cmd_vel')]

def listen():
    rclpy.init()
    node = rclpy.create_node('spawn_soak_listener')
    node.create_subscription(JointState, 'thing/joint_states', lambda msg: None, qos.SENSOR)
    node.create_subscription(Odometry, 'thing/odom', lambda msg: None, qos.SENSOR)
    try:
        rclpy.spin(node)
    except Exception:
        pass

def rss_kb():
    gc.collect()
    with open('/proc/self/status') as f:
        return int(f.read().split('VmRSS:')[1].split()[0])

def soak():
    rclpy.init()
    node = rclpy.create_node('spawn_soak_rclpy')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    listener = subprocess.Popen([sys.executable, '-c', sys.argv[1], 'listen'])
    retired, done = [], threading.Event()
    def destroy_retired():
        while retired:
            retired.pop(0)()
        if {forget}:
            forget_destroyed(node.default_callback_group)
        done.set()
    reaper = node.create_guard_condition(destroy_retired)
    def cycle():
        publishers = [node.create_publisher(t, 'thing/' + n, q) for t, n, q in PUBLISHERS]
        subscriptions = [node.create_subscription(t, 'thing/' + n, lambda msg: None,
                                                  qos.COMMAND) for t, n in SUBSCRIPTIONS]
        server = ActionServer(node, FollowJointTrajectory,
                              'thing/joint_trajectory_controller/follow_joint_trajectory',
                              execute_callback=lambda goal: None)
        publishers[0].publish(JointState(name=['a'], position=[1.0]))
        time.sleep(0.01)
        def destroy():
            server.destroy()
            for publisher in publishers:
                node.destroy_publisher(publisher)
            for subscription in subscriptions:
                node.destroy_subscription(subscription)
        done.clear()
        retired.append(destroy)
        reaper.trigger()
        done.wait(10.0)
    time.sleep(2.0)
    for _ in range({warmup}):
        cycle()
    before = rss_kb()
    start = time.perf_counter()
    for _ in range({cycles}):
        cycle()
    took = time.perf_counter() - start
    print('SOAK', before, rss_kb(), took / {cycles}, flush=True)
    listener.terminate()
    listener.wait()
    executor.shutdown()

listen() if sys.argv[-1] == 'listen' else soak()
"""


def run_node(args: argparse.Namespace, variant: str) -> dict:
    """Spawn and delete through the node's services; the node's RSS from /proc."""
    with tempfile.TemporaryDirectory() as log_dir:
        isolate_ros(log_dir)
        start = (['-c', _KEEP_REFERENCES] if variant == 'node-keeprefs'
                 else ['-m', 'scene_sim_ros.cli'])
        with open(Path(log_dir) / 'node.log', 'wb') as log:
            proc = subprocess.Popen([sys.executable, *start, 'run', '--real-time-factor', '1'],
                                    stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        client = Client()
        try:
            return _node_soak(args, client, proc.pid)
        finally:
            stop_node(proc)
            client.node.destroy_node()
            import rclpy
            rclpy.try_shutdown()


def _node_soak(args: argparse.Namespace, client: Client, pid: int) -> dict:
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState
    from simulation_interfaces.srv import DeleteEntity, SpawnEntity

    from scene_sim_ros.ros import qos
    from scene_sim_ros.ros.supervisor import compat
    if not client.spin_until(lambda: len(client.arrivals) > 20, 120.0):
        sys.exit('the node did not start publishing /clock')
    for msg_type, topic in ((JointState, 'thing/joint_states'), (Odometry, 'thing/odom')):
        client.node.create_subscription(msg_type, topic, lambda msg: None, qos.SENSOR)
    spawn = SpawnEntity.Request(name='thing', **compat.spawn_resource_fields(
        f'{args.entity}#{args.entity_name}', ''))
    delete = DeleteEntity.Request(entity='thing')

    def cycle() -> None:
        for srv_type, service, request in ((SpawnEntity, '/spawn_entity', spawn),
                                           (DeleteEntity, '/delete_entity', delete)):
            result = client.call(srv_type, service, request, timeout=60.0).result
            if result.result != 1:
                sys.exit(f'{service}: {result.error_message}')

    for _ in range(args.warmup):
        cycle()
    before = _rss_kb(pid)
    start = time.perf_counter()
    for _ in range(args.cycles):
        cycle()
    took = time.perf_counter() - start
    return _growth(args, before, _rss_kb(pid), took)


def _rss_kb(pid: int) -> int:
    with open(f'/proc/{pid}/status') as f:
        return int(f.read().split('VmRSS:')[1].split()[0])


def run_rclpy(args: argparse.Namespace, variant: str) -> dict:
    code = _PLAIN_RCLPY.format(root=str(ROOT), warmup=args.warmup, cycles=args.cycles,
                               forget=variant == 'rclpy-forget')
    with tempfile.TemporaryDirectory() as log_dir:
        isolate_ros(log_dir)
        out = subprocess.run([sys.executable, '-c', code, code], capture_output=True, text=True)
    line = next((line for line in out.stdout.splitlines() if line.startswith('SOAK ')), None)
    if line is None:
        sys.exit(f'{variant} failed:\n{out.stderr}')
    before, after, per_cycle_s = (float(v) for v in line.split()[1:])
    return _growth(args, before, after, per_cycle_s * args.cycles)


def _growth(args: argparse.Namespace, before: float, after: float, took: float) -> dict:
    return dict(rss=(after - before) / args.cycles, rss_end_kb=after,
                ms=took / args.cycles * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cycles', type=int, default=1000, help='measured cycles')
    parser.add_argument('--warmup', type=int, default=300, help='cycles before measuring')
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--entity', default=str(CAR), help='the scene file to spawn from')
    parser.add_argument('--entity-name', default='car', help='the entity in that file')
    parser.add_argument('--variants', nargs='+', choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args()
    results: dict[str, list[dict]] = {variant: [] for variant in args.variants}
    for _ in range(args.runs):
        for variant in args.variants:
            run = run_rclpy if variant.startswith('rclpy') else run_node
            results[variant].append(run(args, variant))
    print(f'{Path(args.entity).name}#{args.entity_name}, {args.cycles} cycles measured after '
          f'{args.warmup}, {args.runs} runs; RSS growth per cycle in KB, median [min, max]')
    print('| variant | RSS growth | RSS at end (MB) | time per cycle (ms) |')
    print('|---|---|---|---|')
    for variant, rows in results.items():
        print(f'| {variant} | {median_range([r["rss"] for r in rows])} | '
              f'{statistics.median(r["rss_end_kb"] for r in rows) / 1024:.0f} | '
              f'{statistics.median(r["ms"] for r in rows):.1f} |')
    print(json.dumps(dict(entity=args.entity, cycles=args.cycles, warmup=args.warmup,
                          results=results)))


if __name__ == '__main__':
    main()
