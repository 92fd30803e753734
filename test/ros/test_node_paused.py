"""A simulation started paused still shows its frozen world: TF and joint states at a low rate,
/clock repeated, nothing advancing."""

from support.processes import scene_sim_run
from support.ros import stamp, wait_for_messages


def test_paused_simulation_publishes_tf_and_joint_states(ros_node, tmp_path):
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage

    with scene_sim_run(tmp_path, '--paused'):
        states = wait_for_messages(ros_node, JointState, '/rover/joint_states', count=2,
                                   timeout=20.0)
        tf = wait_for_messages(ros_node, TFMessage, '/tf', count=2, timeout=20.0)
        clocks = wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=20.0)
    assert 'pan_joint' in states[0].name and len(states[0].position) == len(states[0].name)
    children = {t.child_frame_id for msg in tf for t in msg.transforms}
    assert 'rover/rover' in children or any(c.startswith('rover/') for c in children)
    assert {stamp(m.header) for m in states} == {0.0}
    assert {c.clock.sec + c.clock.nanosec * 1e-9 for c in clocks} == {0.0}
