"""``SensorAdapter.claim_frame(t)`` of the camera adapter: decides, before the step loop renders a
step's frames together, whether ``step(t)`` publishes one (due, subscribed, admitted by the
node's frame budget); ``step(t)`` then follows that decision; a frame the budget does not admit
is dropped, counted, and the camera's schedule goes on."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip('rclpy')

from scene_sim_ros.ros.bridge.adapters.base import AdapterSettings  # noqa: E402
from scene_sim_ros.ros.bridge.adapters.camera import CameraAdapter  # noqa: E402
from scene_sim_ros.ros.runtime.frame_budget import FrameBudget  # noqa: E402

STEP = 0.01


class FakeNode:
    """What the camera adapter uses: a simulation that reads a black image, publishers whose
    subscriber count the test sets, and the step loop's frame budget on a settable pacing."""

    def __init__(self):
        self.sim = SimpleNamespace(step_length=STEP, read=self.read)
        self.reads = 0
        self.published: list[str] = []
        self.subscribers = 1
        self.stepper = SimpleNamespace(real_time_factor=1.0, lag=None)
        self.frame_budget = FrameBudget(print)
        self.frame_budget.pacing = self.stepper

    def read(self, entity, sensor):
        self.reads += 1
        return np.zeros((3, 4, 3), np.uint8)

    def sim_reader(self, entity, sensor):
        return SimpleNamespace()  # no batched render to read from later: reads now

    def create_publisher(self, msg_type, topic, qos):
        return SimpleNamespace(topic=topic, get_subscription_count=lambda: self.subscribers)

    def publish(self, publisher, msg):
        self.published.append(publisher.topic)

    def publish_built(self, publisher, build, *args):
        self.publish(publisher, build(*args))

    publish_frame = publish_built

    def get_logger(self):
        return SimpleNamespace(info=lambda text: None)


@pytest.fixture
def camera():
    node = FakeNode()
    sensor = SimpleNamespace(kind='camera', name='cam', width=4, height=3, fov_x=1.0, fov_y=0.8,
                             lens=None, projection='planar')
    adapter = CameraAdapter()
    adapter.init(node, SimpleNamespace(name='rig'), sensor,
                 AdapterSettings('rig/cam', 30.0, 'rig/cam_optical_frame', 'rig/cam'))
    return node, adapter


def test_a_claimed_frame_is_published_by_step_once(camera):
    node, adapter = camera
    assert adapter.claim_frame(0.0)
    assert node.published == [] and adapter.frame_slot.published == 1  # decided and counted
    adapter.step(0.0)
    assert node.published == ['rig/cam/image_raw', 'rig/cam/camera_info']
    assert node.reads == 1
    adapter.step(STEP)  # not due: 30 Hz, next frame 1/30 s on
    assert not adapter.claim_frame(2 * STEP)
    assert node.reads == 1 and adapter.frame_slot.published == 1


def test_a_step_without_a_claim_decides_itself(camera):
    node, adapter = camera
    adapter.step(0.0)
    assert node.reads == 1 and adapter.frame_slot.published == 1
    assert adapter.claim_frame(4 * STEP - 0.001)


def test_a_frame_the_budget_does_not_admit_is_dropped_counted_and_the_schedule_goes_on(camera):
    node, adapter = camera
    node.stepper.lag = 1.0  # a second behind schedule
    assert not adapter.claim_frame(0.0)
    adapter.step(0.0)
    assert node.reads == 0 and node.published == []
    assert (adapter.frame_slot.published, adapter.frame_slot.dropped) == (0, 1)
    node.stepper.lag = -0.005  # on schedule again: the next due frame, 1/30 s on
    assert not adapter.claim_frame(2 * STEP)
    assert adapter.claim_frame(3 * STEP)
    adapter.step(3 * STEP)
    assert (adapter.frame_slot.published, adapter.frame_slot.dropped) == (1, 1)
    assert node.reads == 1


def test_no_subscriber_no_frame(camera):
    node, adapter = camera
    node.subscribers = 0
    assert not adapter.claim_frame(0.0)
    adapter.step(0.0)
    assert node.reads == 0 and adapter.frame_slot.published == 0
    assert adapter.frame_reader() is None


def test_the_render_share_of_a_batch_counts_in_the_frame_cost(camera):
    node, adapter = camera
    assert adapter.claim_frame(0.0)
    adapter.charge_render(0.25)
    adapter.step(0.0)
    assert adapter.frame_slot.cost >= 0.25
