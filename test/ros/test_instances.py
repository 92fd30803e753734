"""Two simulations on one ROS domain: with ``--isolate`` each keeps /clock, /tf and /tf_static in
its namespace and prefixes its frames, so neither sees the other (the Nav2 multi-robot pattern,
beside ROS_DOMAIN_ID isolation)."""

import pytest

from support.processes import scene_sim_run
from support.ros import client_node, spin_until

INSTANCES = ('sim_a', 'sim_b')


@pytest.fixture(scope='module')
def two_instances(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp('instances')
    with scene_sim_run(log_dir, '--namespace', 'sim_a', '--isolate') as a, \
            scene_sim_run(log_dir, '--namespace', 'sim_b', '--isolate') as b:
        yield a, b


@pytest.fixture(scope='module')
def received(two_instances):
    """Everything both instances published on the shared and the namespaced topics in 4 s."""
    from rosgraph_msgs.msg import Clock
    from tf2_msgs.msg import TFMessage

    from support.ros import qos

    topics = {f'/{ns}/{name}': [] for ns in INSTANCES for name in ('clock', 'tf', 'tf_static')}
    topics.update({'/clock': [], '/tf': [], '/tf_static': []})
    for node in client_node('instances_test_client'):
        for topic, messages in topics.items():
            msg_type = Clock if topic.endswith('clock') else TFMessage
            node.create_subscription(msg_type, topic, messages.append,
                                     qos(100, latched=topic.endswith('static')))
        spin_until(node, lambda: False, 4.0)
    return topics


def test_shared_topics_stay_silent(received):
    assert (len(received['/clock']), len(received['/tf']), len(received['/tf_static'])) == (0, 0, 0)


@pytest.mark.parametrize('namespace', INSTANCES)
def test_each_instance_has_its_own_monotonic_clock(received, namespace):
    stamps = [m.clock.sec + m.clock.nanosec * 1e-9 for m in received[f'/{namespace}/clock']]
    assert len(stamps) > 20
    assert all(b >= a for a, b in zip(stamps, stamps[1:]))


@pytest.mark.parametrize('namespace', INSTANCES)
def test_each_instance_sees_only_its_own_prefixed_frames(received, namespace):
    frames = {(t.header.frame_id, t.child_frame_id)
              for topic in (f'/{namespace}/tf', f'/{namespace}/tf_static')
              for msg in received[topic] for t in msg.transforms}
    assert frames
    assert all(p.startswith(f'{namespace}/') and c.startswith(f'{namespace}/')
               for p, c in frames), sorted(frames)[:5]
    children = {c for _, c in frames}
    assert f'{namespace}/rover/camera_optical_frame' in children
    # one parent per frame, and every chain ends at this instance's world frame
    parents = dict((c, p) for p, c in frames)
    assert len(parents) == len(frames)
    for child in children:
        frame, hops = child, 0
        while frame in parents and hops < 50:
            frame, hops = parents[frame], hops + 1
        assert frame == f'{namespace}/world'
