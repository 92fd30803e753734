"""Child process for the smoke tests: publishes tf2_msgs/TFMessage like tf2_ros does.

/tf: reliable, volatile, depth 100, a moving transform at --rate Hz (its x is the message count).
/tf_static: reliable, transient-local, depth 1, one static transform, published once.
Prints READY once both publishers exist; stops on SIGINT.
"""

import argparse

import rclpy
from geometry_msgs.msg import TransformStamped
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)
TF_STATIC_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                           reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)


def transform(node: Node, parent: str, child: str, x: float) -> TransformStamped:
    t = TransformStamped()
    t.header.stamp = node.get_clock().now().to_msg()
    t.header.frame_id = parent
    t.child_frame_id = child
    t.transform.translation.x = x
    t.transform.rotation.w = 1.0
    return t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--rate', type=float, default=20.0)
    args = parser.parse_args()

    rclpy.init()
    node = Node('smoke_tf_publisher')
    tf_pub = node.create_publisher(TFMessage, '/tf', TF_QOS)
    static_pub = node.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS)
    static_pub.publish(TFMessage(transforms=[transform(node, 'base_link', 'camera_link', 0.25)]))
    count = 0

    def tick() -> None:
        nonlocal count
        count += 1
        tf_pub.publish(TFMessage(transforms=[transform(node, 'odom', 'base_link', float(count))]))

    node.create_timer(1.0 / args.rate, tick)
    print('READY', flush=True)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    print(f'published {count}', flush=True)


if __name__ == '__main__':
    main()
