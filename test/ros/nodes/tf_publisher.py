"""Child process for the smoke tests: publishes tf2_msgs/TFMessage like tf2_ros does.

/tf: reliable, volatile, depth 100, a moving transform at --rate Hz (its x is the message count).
/tf_static: reliable, transient-local, depth 1, one static transform, published once.
Prints READY once both publishers exist; stops on SIGINT.
"""

import argparse

import rclpy
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from tf2_msgs.msg import TFMessage
from tf_node import TF_QOS, TF_STATIC_QOS, spin


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
    spin(node)
    print(f'published {count}', flush=True)


if __name__ == '__main__':
    main()
