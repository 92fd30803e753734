"""GIL-free writes of serialized messages (scene_sim_ros.ros.runtime.native_publish) on real rclpy and
Fast DDS: the bytes arrive unchanged, another Python thread runs while DDS takes a message (it
never does during rclpy's own publish), a destroyed publisher raises as in rclpy, and without the
rcl functions it is rclpy's publish."""

from __future__ import annotations

import pytest
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from scene_sim_ros.ros.runtime import native_publish
from support.gil import other_thread_runs
from support.ros import spin_until

pytestmark = pytest.mark.skipif(not native_publish.available(),
                                reason="rcl's functions are not reachable through rclpy here")


def joint_state(k: int) -> bytes:
    return serialize_message(JointState(name=[f'joint{i}' for i in range(26)],
                                        position=[0.001 * k * i for i in range(26)]))


def test_serialized_messages_arrive_byte_for_byte(ros_node):
    publisher = ros_node.create_publisher(JointState, '/native_publish/joints', 100)
    got: list[bytes] = []
    ros_node.create_subscription(JointState, '/native_publish/joints', got.append, 100, raw=True)
    assert spin_until(ros_node, lambda: publisher.get_subscription_count() == 1, 10.0)
    sent = [joint_state(k) for k in range(20)]
    for data in sent:
        native_publish.publish_serialized(publisher, data)
    assert spin_until(ros_node, lambda: len(got) == len(sent), 10.0), f'{len(got)} arrived'
    assert got == sent


def test_other_threads_run_while_dds_takes_the_message(ros_node):
    """With a switch interval of 10 s, the spinning thread gets the GIL only where the
    publishing thread releases it: never during rclpy's publish, always during the GIL-free
    writes."""
    publisher = ros_node.create_publisher(String, '/native_publish/text', 10)
    ros_node.create_subscription(String, '/native_publish/text', lambda msg: None, 10)
    assert spin_until(ros_node, lambda: publisher.get_subscription_count() == 1, 10.0)
    # A megabyte keeps DDS busy for tens of microseconds a write (a kilobyte: about 5), so the
    # waiting thread has a window it can win (a CI run once saw 0 runs in 3,000 kilobyte writes).
    data = serialize_message(String(data='x' * 1_000_000))
    assert other_thread_runs(lambda: publisher.publish(data)) == 0
    # Whether the waiting thread wins the GIL in that window is still up to the OS scheduler
    # (other threads of the test process compete for it too): the GIL-free write must let it
    # run at least once in a few rounds; rclpy's publish never does (above).
    assert any(other_thread_runs(lambda: native_publish.publish_serialized(publisher, data)) > 0
               for _ in range(10))


def test_a_destroyed_publisher_raises(ros_node):
    publisher = ros_node.create_publisher(String, '/native_publish/gone', 10)
    ros_node.destroy_publisher(publisher)
    with pytest.raises(Exception, match='destr'):
        native_publish.publish_serialized(publisher, serialize_message(String(data='late')))


def test_without_the_rcl_functions_it_is_rclpys_publish(ros_node, monkeypatch):
    monkeypatch.setattr(native_publish, '_rcl', lambda: None)
    assert not native_publish.available()
    publisher = ros_node.create_publisher(String, '/native_publish/fallback', 10)
    got: list[String] = []
    ros_node.create_subscription(String, '/native_publish/fallback', got.append, 10)
    assert spin_until(ros_node, lambda: publisher.get_subscription_count() == 1, 10.0)
    native_publish.publish_serialized(publisher, serialize_message(String(data='plain')))
    assert spin_until(ros_node, lambda: len(got) == 1, 10.0)
    assert got[0].data == 'plain'
