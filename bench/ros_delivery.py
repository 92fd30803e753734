"""What a ROS client in another process gets from the node: command latency and camera frames.

1. **Command latency** (lock-step, exact): the default scene is paused; a position command for
   the rover's ``pan_joint`` is published and, once the node has it, the simulation is stepped
   one step at a time (``step_simulation``) until ``joint_states`` shows the joint moving. The
   figure is the number of steps from the command's arrival to the first step with motion.
2. **Camera delivery**: the default scene runs at real-time factor 1; a subscriber receives
   ``/rover/camera/image_raw`` (320x240, published at 30 Hz of sim time) for ``--window`` s.
   Expected frames = 30 Hz slots between the first and last stamp; delivered = distinct stamps
   received. Reported per run: delivered / expected and frames per second.

    python bench/ros_delivery.py [--runs 5] [--window 10]
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

from node_rtf import isolate_ros, stop_node  # bench/ is on sys.path when a benchmark runs as a script

REPO = Path(__file__).resolve().parents[1]
CAMERA_TOPIC = '/rover/camera/image_raw'
CAMERA_RATE = 30.0


def start_node(log_dir: str, *args: str) -> subprocess.Popen:
    argv = [sys.executable, '-m', 'scene_sim_ros.cli', 'run', *args]
    with open(Path(log_dir) / 'node.log', 'ab') as log:
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=REPO,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def spin_until(node, predicate, timeout: float) -> bool:
    import rclpy
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        rclpy.spin_once(node, timeout_sec=0.02)
    return True


def command_latency_steps(node, attempt: int) -> int:
    """Steps from a command's arrival (paused) to the first step in which the joint moves."""
    from sensor_msgs.msg import JointState
    from simulation_interfaces.srv import StepSimulation
    states: list[JointState] = []
    subscription = node.create_subscription(JointState, '/rover/joint_states', states.append, 50)
    publisher = node.create_publisher(JointState, '/rover/joint_commands', 10)
    stepper = node.create_client(StepSimulation, '/step_simulation')
    try:
        assert spin_until(node, stepper.service_is_ready, 60.0), 'no step_simulation service'
        assert spin_until(node, lambda: publisher.get_subscription_count() > 0, 30.0)
        target = 0.5 if attempt % 2 == 0 else -0.5
        publisher.publish(JointState(name=['pan_joint'], position=[target]))
        spin_until(node, lambda: False, 0.3)  # the command arrives while paused
        for steps in range(1, 50):
            states.clear()
            future = stepper.call_async(StepSimulation.Request(steps=1))
            assert spin_until(node, future.done, 10.0), 'step_simulation did not answer'
            assert spin_until(node, lambda: bool(states), 5.0), 'no joint_states after a step'
            msg = states[-1]
            velocity = msg.velocity[list(msg.name).index('pan_joint')]
            if abs(velocity) > 1e-6:
                return steps
        raise RuntimeError('the joint never moved')
    finally:
        node.destroy_subscription(subscription)
        node.destroy_publisher(publisher)
        node.destroy_client(stepper)


def camera_delivery(node, window: float) -> tuple[float, float]:
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import Image
    stamps: set[float] = set()
    subscription = node.create_subscription(
        Image, CAMERA_TOPIC,
        lambda m: stamps.add(m.header.stamp.sec + m.header.stamp.nanosec * 1e-9),
        QoSProfile(depth=5))
    try:
        assert spin_until(node, lambda: len(stamps) >= 3, 60.0), 'no camera frames'
        stamps.clear()
        started = time.monotonic()
        spin_until(node, lambda: False, window)
        elapsed = time.monotonic() - started
    finally:
        node.destroy_subscription(subscription)
    expected = round((max(stamps) - min(stamps)) * CAMERA_RATE) + 1
    return len(stamps) / expected, len(stamps) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--window', type=float, default=10.0)
    args = parser.parse_args()
    log_dir = tempfile.mkdtemp(prefix='scene_sim_ros_bench_')
    isolate_ros(log_dir)
    import rclpy
    rclpy.init()
    node = rclpy.create_node('ros_delivery_bench')
    latencies, ratios, rates = [], [], []
    try:
        proc = start_node(log_dir, '--paused')
        try:
            for attempt in range(args.runs):
                latencies.append(command_latency_steps(node, attempt))
        finally:
            stop_node(proc)
        proc = start_node(log_dir)
        try:
            for _ in range(args.runs):
                ratio, rate = camera_delivery(node, args.window)
                ratios.append(ratio)
                rates.append(rate)
        finally:
            stop_node(proc)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    print('| measure | median | min | max |')
    print('|---|---|---|---|')
    print(f'| command latency (steps, paused lock-step) | {statistics.median(latencies):g} | '
          f'{min(latencies)} | {max(latencies)} |')
    print(f'| camera 320x240 @30 Hz: delivered / published | {statistics.median(ratios):.1%} | '
          f'{min(ratios):.1%} | {max(ratios):.1%} |')
    print(f'| camera 320x240: frames/s received in another process | '
          f'{statistics.median(rates):.1f} | {min(rates):.1f} | {max(rates):.1f} |')
    print(json.dumps({'benchmark': 'ros_delivery', 'runs': args.runs,
                      'command_latency_steps': latencies, 'camera_delivered_ratio': ratios,
                      'camera_fps': rates}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
