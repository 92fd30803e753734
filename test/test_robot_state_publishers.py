"""What each robot's robot_state_publisher gets, for `run --robot-state-publisher` and the launch
file's robot_state_publisher:=true alike (scene_sim_ros/ros/robot_state_publishers.py)."""

from scene_sim_ros.resources import example_path
from scene_sim_ros.ros.robot_state_publishers import robot_state_publishers


def test_one_per_robot_in_the_namespace_of_its_joint_states():
    publisher, = robot_state_publishers(None, namespace='/sim/', isolate=False, use_sim_time=True)
    assert (publisher.entity, publisher.namespace, publisher.frame_prefix) == \
        ('rover', 'sim/rover', 'rover/')
    assert publisher.remappings == () and publisher.urdf.lstrip().startswith('<?xml')
    assert publisher.ros_arguments() == ['-r', '__ns:=/sim/rover', '-p', 'frame_prefix:=rover/',
                                         '-p', 'use_sim_time:=true']
    assert publisher.parameters() == {'robot_description': publisher.urdf,
                                      'frame_prefix': 'rover/', 'use_sim_time': True}


def test_an_isolated_instance_prefixes_frames_and_remaps_clock_and_tf():
    publishers = robot_state_publishers(str(example_path('car')), namespace='sim_a', isolate=True,
                                        use_sim_time=False)
    assert [p.entity for p in publishers] == ['car']
    car, = publishers
    assert car.frame_prefix == 'sim_a/car/'
    assert dict(car.remappings) == {'/clock': '/sim_a/clock', '/tf': '/sim_a/tf',
                                    '/tf_static': '/sim_a/tf_static'}
    assert car.ros_arguments()[2:4] == ['-r', '/clock:=/sim_a/clock']
    assert car.ros_arguments()[-1] == 'use_sim_time:=false'
