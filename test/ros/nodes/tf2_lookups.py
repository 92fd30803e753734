"""Child process with the real tf2_ros (importable on a ROS 2 distribution or a tools
environment, not from PyPI): a Buffer with a TransformListener, using sim time, looks up
``--target -> --source`` at the latest time every 20 ms for ``--seconds`` and prints
``LOOKUPS <n> FAILED <m>`` with the first error, as Nav2's nodes would meet it.
With ``--scan TOPIC`` it instead asks, for every LaserScan, whether the scan's frame can be
transformed into ``--target`` at the scan's stamp within 0.1 s (what a tf2 MessageFilter waits
for before Nav2's costmap takes the scan) and prints ``SCANS <n> FAILED <m>``."""

import argparse
import time

import rclpy
import tf2_ros
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.time import Time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--target', default='map')
    parser.add_argument('--source', default='rover/rover')
    parser.add_argument('--seconds', type=float, default=10.0)
    parser.add_argument('--scan', default='')
    args = parser.parse_args()
    rclpy.init()
    node = Node('tf2_lookups', parameter_overrides=[Parameter('use_sim_time', value=True)])
    buffer = tf2_ros.Buffer()
    tf2_ros.TransformListener(buffer, node, spin_thread=True)
    deadline = time.monotonic() + 60.0
    while not buffer.can_transform(args.target, args.source, Time()):
        rclpy.spin_once(node, timeout_sec=0.05)
        if time.monotonic() > deadline:
            print('NEVER CONNECTED', buffer.all_frames_as_string(), flush=True)
            return
    if args.scan:
        scans(node, buffer, args)
        return
    lookups = failed = 0
    first_error = ''
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.02)
        lookups += 1
        try:
            buffer.lookup_transform(args.target, args.source, Time())
        except tf2_ros.TransformException as err:
            failed += 1
            first_error = first_error or f'{type(err).__name__}: {err}'
    print(f'LOOKUPS {lookups} FAILED {failed} {first_error}', flush=True)
    node.destroy_node()
    rclpy.try_shutdown()


def scans(node: Node, buffer: 'tf2_ros.Buffer', args: argparse.Namespace) -> None:
    """Each scan waits (at most 0.1 s of wall time) until the buffer can transform it, checked
    without blocking while the listener's thread fills the buffer, as a MessageFilter does."""
    from sensor_msgs.msg import LaserScan
    pending: list = []  # (arrival, stamp, frame)
    node.create_subscription(
        LaserScan, args.scan,
        lambda m: pending.append((time.monotonic(), Time.from_msg(m.header.stamp),
                                  m.header.frame_id)), 50)
    checked = failed = 0
    first_error = ''
    end = time.monotonic() + args.seconds
    while time.monotonic() < end or pending:
        rclpy.spin_once(node, timeout_sec=0.005)
        now = time.monotonic()
        for item in list(pending):
            arrived, stamp, frame = item
            if buffer.can_transform(args.target, frame, stamp):
                checked += 1
                pending.remove(item)
            elif now - arrived > 0.1:
                checked += 1
                failed += 1
                pending.remove(item)
                if not first_error:
                    try:
                        buffer.lookup_transform(args.target, frame, stamp)
                    except tf2_ros.TransformException as err:
                        first_error = str(err)
    print(f'SCANS {checked} FAILED {failed} {first_error}', flush=True)
    node.destroy_node()
    rclpy.try_shutdown()


if __name__ == '__main__':
    main()
