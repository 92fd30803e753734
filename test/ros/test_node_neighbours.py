"""Two simulations on one domain without isolation: the second one says so at start-up, naming
the other and the remedies; isolated instances stay quiet."""

from support.processes import scene_sim_run

WARNING = 'another simulation is running on ROS_DOMAIN_ID='


def test_a_second_simulation_on_the_domain_warns_naming_the_first(tmp_path):
    with scene_sim_run(tmp_path, '--namespace', 'first') as first, \
            scene_sim_run(tmp_path, '--namespace', 'second') as second:
        line = second.wait_for_output(WARNING + r'.*', timeout=20.0).group(0)
        assert '/first/scene_sim' in line and '--isolate' in line and 'ROS_DOMAIN_ID' in line
        first.wait_for_output(WARNING, timeout=20.0)  # the first one is told too


def test_isolated_instances_do_not_warn(tmp_path):
    import time
    with scene_sim_run(tmp_path, '--namespace', 'a', '--isolate') as a, \
            scene_sim_run(tmp_path, '--namespace', 'b', '--isolate') as b:
        from scene_sim_ros.ros.runtime.node import NEIGHBOUR_CHECK_DELAY, NEIGHBOUR_CHECKS
        time.sleep(NEIGHBOUR_CHECK_DELAY * NEIGHBOUR_CHECKS + 1.0)  # past the last look
        assert WARNING not in a.output() and WARNING not in b.output()
