"""Publishing (scene_sim_ros.ros.runtime.publishing) on fake publishers: what a step publishes between
``hold`` and ``send`` goes out in order, on the outbox thread inside publishing windows and on
the caller's thread at ``settle``; other threads publish at once; a failing publisher is
counted without stopping the outbox. No DDS needed."""

from __future__ import annotations

import threading
import time

import pytest

from scene_sim_ros.ros.runtime.publishing import Outbox, Publishing


class FakePublisher:
    def __init__(self, topic: str = '/fake', fail: bool = False):
        self.topic_name = topic
        self.fail = fail
        self.got: list = []
        self.threads: set[int] = set()
        self.delay: float | None = None  # seconds a publish takes (None: none, no thread switch)

    def publish(self, msg) -> None:
        if self.fail:
            raise RuntimeError('DDS said no')
        if self.delay is not None:
            time.sleep(self.delay)
        self.got.append(msg)
        self.threads.add(threading.get_ident())


class FakeContext:
    def ok(self) -> bool:
        return True


class FakeLogger:
    def __init__(self):
        self.warnings: list[str] = []

    def warning(self, text: str) -> None:
        self.warnings.append(text)


class FakeNode:
    def __init__(self):
        self.context = FakeContext()
        self.logger = FakeLogger()
        self.publishers: dict[str, FakePublisher] = {}

    def create_publisher(self, msg_type, topic, qos) -> FakePublisher:
        self.publishers[topic] = FakePublisher(topic)
        return self.publishers[topic]

    def get_logger(self) -> FakeLogger:
        return self.logger


def wait(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.001)


@pytest.fixture
def publishing():
    out = Publishing(FakeNode())
    yield out
    out.close()


def test_held_messages_go_out_in_order_on_the_outbox_thread(publishing):
    publisher = FakePublisher()
    publishing.hold()
    for k in range(5):
        publishing.publish(publisher, k)
    assert publisher.got == []
    publishing.send()
    publishing.open_window(5.0)
    wait(lambda: len(publisher.got) == 5)
    assert publisher.got == [0, 1, 2, 3, 4]
    assert threading.get_ident() not in publisher.threads
    publishing.publish(publisher, 5)  # not held: at once, on this thread
    assert publisher.got[-1] == 5 and threading.get_ident() in publisher.threads


def test_other_threads_publish_at_once_while_one_holds(publishing):
    held, direct = FakePublisher(), FakePublisher()
    publishing.hold()
    publishing.publish(held, 'step')
    other = threading.Thread(target=publishing.publish, args=(direct, 'command'))
    other.start()
    other.join()
    assert direct.got == ['command'] and held.got == []
    publishing.send()
    publishing.settle()
    assert held.got == ['step']


def test_outside_a_window_nothing_goes_out_until_settle_publishes_it_here(publishing):
    publisher = FakePublisher()
    publishing.hold()
    publishing.publish(publisher, 'a')
    publishing.publish_built(publisher, str.upper, 'b')
    publishing.send()
    time.sleep(0.05)
    assert publisher.got == []  # no window: the outbox leaves the GIL to the physics thread
    publishing.settle()
    assert publisher.got == ['a', 'B']
    assert publisher.threads == {threading.get_ident()}


def test_a_window_that_closes_leaves_the_rest_to_settle_in_order():
    publisher = FakePublisher()

    def slow(target, msg):
        time.sleep(0.02)
        target.publish(msg)
    outbox = Outbox(slow)
    try:
        outbox.post([(publisher, k) for k in range(10)])
        outbox.open_window(1.0)
        wait(lambda: len(publisher.got) >= 2)
        outbox.drain()  # closes the window early
        assert publisher.got == list(range(10))
        assert len(publisher.threads) == 2  # the outbox's, then this one
    finally:
        outbox.close()


def test_a_window_builds_every_message_first_and_leaves_drain_only_the_publishing():
    publisher = FakePublisher()
    built_on: list[int] = []

    def prepare(target, msg):
        built_on.append(threading.get_ident())
        return ('built', msg)

    def slow(target, msg):
        time.sleep(0.02)
        target.publish(msg)
    outbox = Outbox(slow, prepare)
    try:
        outbox.post([(publisher, k) for k in range(10)])
        outbox.open_window(1.0)
        wait(lambda: len(publisher.got) >= 2)
        outbox.drain()
        assert publisher.got == [('built', k) for k in range(10)]
        assert len(built_on) == 10 and threading.get_ident() not in built_on
        assert len(publisher.threads) == 2  # the outbox's, then this one
    finally:
        outbox.close()


def test_the_next_hold_waits_for_the_previous_batch(publishing):
    publisher = FakePublisher()
    for step in range(20):
        publishing.hold()
        publishing.publish(publisher, (step, 'a'))
        publishing.publish(publisher, (step, 'b'))
        publishing.send()
    publishing.settle()
    assert publisher.got == [(s, p) for s in range(20) for p in 'ab']


def test_a_failing_publisher_is_counted_and_the_outbox_goes_on(publishing):
    bad, good = FakePublisher('/bad', fail=True), FakePublisher('/good')
    publishing.hold()
    publishing.publish(bad, 1)
    publishing.publish(good, 2)
    publishing.send()
    publishing.settle()
    assert publishing.publish_errors == 1
    assert good.got == [2]
    assert any('/bad' in w for w in publishing._node.logger.warnings)
    publishing.hold()
    publishing.publish(good, 3)
    publishing.send()
    publishing.settle()
    assert good.got == [2, 3]


def test_close_publishes_what_is_left_and_ends_the_thread():
    publisher = FakePublisher()
    slow = []

    def publish(target, msg):
        time.sleep(0.01)
        slow.append(msg)
        target.publish(msg)
    outbox = Outbox(publish)
    outbox.post([(publisher, k) for k in range(5)])
    outbox.close()  # no window was opened: close publishes everything
    assert publisher.got == [0, 1, 2, 3, 4]
    assert not outbox._thread.is_alive()
    with pytest.raises(RuntimeError, match='closed'):
        outbox.post([(publisher, 5)])


def test_built_messages_are_built_on_the_outbox_thread_from_what_was_read(publishing):
    publisher = FakePublisher()
    builders = []

    def build(t, values):
        builders.append(threading.get_ident())
        return (t, sum(values))
    publishing.hold()
    publishing.publish_built(publisher, build, 1.0, (1, 2, 3))
    assert builders == []  # nothing built yet: the physics thread only read
    publishing.send()
    publishing.open_window(5.0)
    wait(lambda: publisher.got == [(1.0, 6)])
    assert builders and threading.get_ident() not in builders
    publishing.publish_built(publisher, build, 2.0, (4,))  # not held: built and sent at once
    assert publisher.got[-1] == (2.0, 4) and builders[-1] == threading.get_ident()


def test_a_failing_build_is_counted_like_a_failing_publisher(publishing):
    publisher = FakePublisher()
    publishing.hold()
    publishing.publish_built(publisher, lambda: 1 / 0)
    publishing.publish(publisher, 'next')
    publishing.send()
    publishing.settle()
    assert publishing.publish_errors == 1
    assert publisher.got == ['next']


def test_the_counters_are_published_in_count_order_from_any_thread():
    """The executor thread and the physics thread both reject commands: the latched counter
    must end at the total, never at a value a thread that counted first published last."""
    node = FakeNode()
    publishing = Publishing(node)
    rejected = node.publishers['~/rejected_commands']
    rejected.delay = 0.0  # a publish lets other threads run, as rclpy's may
    threads = [threading.Thread(target=lambda: [publishing.reject(f'source{k}', 'bad')
                                                for k in range(50)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    values = [msg.data for msg in rejected.got]
    assert values == list(range(201))  # the initial 0, then every count once, in order


def test_frames_are_built_and_published_in_order_on_the_lane_without_windows(publishing):
    """Camera frames go through the frame lane: built and published on its thread, in the
    order posted, with no window opened and no settle; a failing build is counted and the
    lane goes on."""
    publisher = FakePublisher()
    builders = []

    def build(k):
        builders.append(threading.get_ident())
        if k == 2:
            raise ValueError('no pixels')
        return k
    for k in range(5):
        publishing.publish_frame(publisher, build, k)
    wait(lambda: publisher.got == [0, 1, 3, 4])
    assert publishing.publish_errors == 1
    assert threading.get_ident() not in builders


def test_a_lane_that_falls_behind_makes_the_poster_wait(monkeypatch):
    """At most MAX_IN_FLIGHT frames wait in the lane: the next post waits for room (the
    simulation slows down rather than frames piling up), and close publishes what is left."""
    from scene_sim_ros.ros.runtime import frame_lane
    monkeypatch.setattr(frame_lane, 'MAX_IN_FLIGHT', 2)
    publisher = FakePublisher()
    release = threading.Event()

    def publish(target, k):
        release.wait(5.0)
        target.publish(k)
    lane = frame_lane.FrameLane(publish)
    lane.post(publisher, 0)
    lane.post(publisher, 1)
    posted = threading.Event()
    threading.Thread(target=lambda: (lane.post(publisher, 2), posted.set())).start()
    assert not posted.wait(0.3)  # two in flight: the third waits
    release.set()
    assert posted.wait(5.0)
    lane.close()
    assert publisher.got == [0, 1, 2]
    assert not lane._thread.is_alive()


def test_drain_frames_returns_once_every_posted_frame_is_out(publishing):
    """Before a removed entity's publishers go, its last frames must be out."""
    publisher = FakePublisher()
    publisher.delay = 0.02
    for k in range(5):
        publishing.publish_frame(publisher, lambda k=k: k)
    publishing.drain_frames()
    assert publisher.got == [0, 1, 2, 3, 4]
