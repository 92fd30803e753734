"""README command 1 end to end: ``scene-sim-ros run`` (the bundled default scene, headless)
started as a user starts it, seen from another process over ROS 2."""

from support.processes import console_script
from support.ros import wait_for_messages, wait_for_topic


def test_run_with_no_scene_publishes_an_increasing_clock(ros_node, managed_process):
    from rosgraph_msgs.msg import Clock

    managed_process([console_script('scene-sim-ros'), 'run'], name='scene-sim-ros-run')
    assert wait_for_topic(ros_node, '/clock', timeout=60.0) == ['rosgraph_msgs/msg/Clock']
    stamps = [m.clock.sec + m.clock.nanosec * 1e-9
              for m in wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0]
