"""Child process: a localisation-like TF broadcaster, as AMCL or robot_localization run beside
the simulation. Publishes ``--parent -> --child`` on /tf at ``--rate`` Hz of wall time, stamped
with the sim time (``use_sim_time``, as the real nodes) plus ``--future`` s (AMCL's
transform_tolerance post-dates map -> odom the same way). ``--nan`` publishes NaN translations
(a broken estimator); ``--static`` publishes once on /tf_static instead. Prints READY once the
clock runs; stops on SIGINT.
"""

import argparse
import math

import rclpy
from geometry_msgs.msg import TransformStamped
from rclpy.clock import Clock, ClockType
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter
from tf2_msgs.msg import TFMessage
from tf_node import TF_QOS, TF_STATIC_QOS, spin


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--parent', required=True)
    parser.add_argument('--child', required=True)
    parser.add_argument('--rate', type=float, default=20.0)
    parser.add_argument('--future', type=float, default=0.0)
    parser.add_argument('--x', type=float, default=0.0)
    parser.add_argument('--nan', action='store_true')
    parser.add_argument('--static', action='store_true')
    args = parser.parse_args()

    rclpy.init()
    node = Node('localization_broadcaster',
                parameter_overrides=[Parameter('use_sim_time', value=True)])
    publisher = node.create_publisher(TFMessage, '/tf_static' if args.static else '/tf',
                                      TF_STATIC_QOS if args.static else TF_QOS)
    count = 0
    ready = False

    def message() -> TFMessage:
        t = TransformStamped()
        t.header.stamp = (node.get_clock().now() + Duration(seconds=args.future)).to_msg()
        t.header.frame_id = args.parent
        t.child_frame_id = args.child
        t.transform.translation.x = math.nan if args.nan else args.x
        t.transform.rotation.w = 1.0
        return TFMessage(transforms=[t])

    def tick() -> None:
        nonlocal count, ready
        if node.get_clock().now().nanoseconds == 0:
            return  # no /clock yet
        if not ready:
            ready = True
            print('READY', flush=True)
        if args.static and count:
            return
        count += 1
        publisher.publish(message())

    node.create_timer(1.0 / args.rate, tick, clock=Clock(clock_type=ClockType.STEADY_TIME))
    spin(node)
    print(f'published {count}', flush=True)


if __name__ == '__main__':
    main()
