"""README command 1 end to end: ``scene-sim-ros run`` (the bundled default scene, headless)
started as a user starts it, seen from another process over ROS 2."""

import pytest

from support.processes import console_script
from support.ros import wait_for_messages, wait_for_topic


def test_run_with_no_scene_publishes_an_increasing_clock(ros_node, managed_process):
    from rosgraph_msgs.msg import Clock

    managed_process([console_script('scene-sim-ros'), 'run'], name='scene-sim-ros-run')
    assert wait_for_topic(ros_node, '/clock', timeout=60.0) == ['rosgraph_msgs/msg/Clock']
    stamps = [m.clock.sec + m.clock.nanosec * 1e-9
              for m in wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0]


def test_run_logs_a_summary_and_the_first_five_minutes_work(ros_node, managed_process, tmp_path):
    """The README's tour: start the default scene, move a joint and grab an image with the
    CLI helpers from other processes."""
    import subprocess

    from sensor_msgs.msg import JointState

    node = managed_process([console_script('scene-sim-ros'), 'run'], name='tour',
                           ready=r'services: get_simulator_features')
    log = node.output()
    assert 'robot  rover: 6 links' in log and 'camera (camera)' in log
    assert 'topics: 26 published, 6 subscribed, under /rover/' in log
    assert ('rover/position_controller/commands: data = [left_wheel_joint, right_wheel_joint, '
            'mast_joint, pan_joint, tilt_joint]') in log  # the forward controller's layout

    cli = console_script('scene-sim-ros')
    sent = subprocess.run([cli, 'send', 'rover', 'pan_joint=0.8'], capture_output=True,
                          text=True, timeout=60)
    assert sent.returncode == 0, sent.stderr
    states = wait_for_messages(ros_node, JointState, '/rover/joint_states', count=150,
                               timeout=30.0)
    pan = [m.position[list(m.name).index('pan_joint')] for m in states]
    assert pan[-1] == pytest.approx(0.8, abs=0.05)

    png = tmp_path / 'camera.png'
    shot = subprocess.run([cli, 'snapshot', '/rover/camera/image_raw', str(png)],
                          capture_output=True, text=True, timeout=60)
    assert shot.returncode == 0, shot.stderr
    data = png.read_bytes()
    assert data.startswith(b'\x89PNG') and int.from_bytes(data[16:20], 'big') == 320
