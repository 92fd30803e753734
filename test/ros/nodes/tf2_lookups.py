"""Child process with the real tf2_ros (importable on a ROS 2 distribution or a tools
environment, not from PyPI): a Buffer with a TransformListener, using sim time, looks up
``--target -> --source`` at the latest time every 20 ms for ``--seconds`` and prints
``LOOKUPS <n> FAILED <m>`` with the first error, as Nav2's nodes would meet it."""

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


if __name__ == '__main__':
    main()
