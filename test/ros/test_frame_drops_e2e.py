"""Bad input of issue 47: a scene with 200 cameras. At real_time_factor 1 with all 200 image
topics subscribed from another process, the node cannot render 200 x 30 frames a second here; it
drops frames by its policy (scene_sim_ros/ros/runtime/frame_budget.py), warns that the cameras
cannot all keep their rates, keeps /clock at >= MIN_CLOCK_RATE of real time, and starves no
camera."""

from __future__ import annotations

import re
import time

import pytest

pytest.importorskip('rclpy')

from support.processes import scene_sim_run  # noqa: E402
from support.ros import client_node, spin_until  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CAMERAS = 200
WIDTH, HEIGHT = 160, 120
"""200 x 30 Hz of 160x120 frames: ~1 ms each on llvmpipe = 6 s of rendering a simulated second."""

MIN_CLOCK_RATE = 0.85
"""Measured 0.95..1.07 here (2 cores, this process spinning 200 subscriptions beside the node);
the policy holds the loop within 50 ms of its schedule, the margin is for a loaded machine."""

MEASURED_WALL = 6.0
"""Wall seconds over which /clock's rate and the frames per camera are measured."""


def world() -> str:
    cameras = ',\n  '.join(
        f'Camera {{ name "cam{i}" translation 0 0 {0.01 * i:.2f} rotation 0 0 1 {0.0314 * i:.4f} '
        f'width {WIDTH} height {HEIGHT} }}' for i in range(CAMERAS))
    return ('#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 10 }\n'
            'Solid { translation 2 0 0.5 children [ Shape { geometry Box { size 1 1 1 } } ] }\n'
            f'Robot {{ name "rig" translation 0 0 0.5 children [\n  {cameras}\n] }}\n')


@pytest.fixture(scope='module')
def sim_node(tmp_path_factory):
    folder = tmp_path_factory.mktemp('cameras')
    (folder / 'cameras.wbt').write_text(world())
    with scene_sim_run(folder, str(folder / 'cameras.wbt'), '--real-time-factor', '1',
                       ready_timeout=90.0) as proc:
        yield proc


@pytest.fixture(scope='module')
def client(sim_node):
    yield from client_node('frame_drops_test_client')


def seconds(time_msg) -> float:
    return time_msg.sec + 1e-9 * time_msg.nanosec


def clock_rate(samples: list[tuple[float, float]]) -> float:
    """Sim seconds per wall second: the least-squares slope of (wall, sim) pairs, so that a few
    /clock messages this busy process takes late do not decide it."""
    n = len(samples)
    mean_wall = sum(w for w, _ in samples) / n
    mean_sim = sum(s for _, s in samples) / n
    covariance = sum((w - mean_wall) * (s - mean_sim) for w, s in samples)
    return covariance / sum((w - mean_wall) ** 2 for w, _ in samples)


def test_200_cameras_drop_frames_fairly_warn_and_keep_the_clock(sim_node, client):
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Image

    from support.ros import qos
    frames = [0] * CAMERAS
    clock: list[tuple[float, float]] = []  # (wall, sim) of each /clock message

    def counter(i: int):
        def count(_msg: bytes) -> None:
            frames[i] += 1
        return count

    # raw: this process counts ~1500 frames a second without deserializing 57 kB each
    subscriptions = [client.create_subscription(Image, f'/rig/cam{i}/image_raw', counter(i),
                                                qos(depth=2), raw=True) for i in range(CAMERAS)]
    subscriptions.append(client.create_subscription(
        Clock, '/clock', lambda m: clock.append((time.monotonic(), seconds(m.clock))), qos(depth=100)))
    try:
        assert spin_until(client, lambda: min(frames) > 0, 60.0), (
            f'{sum(1 for n in frames if n == 0)} of {CAMERAS} cameras sent no frame in 60 s')
        clock.clear()
        started = time.monotonic()
        spin_until(client, lambda: time.monotonic() - started >= MEASURED_WALL,
                   MEASURED_WALL + 1.0)
        rate = clock_rate(clock)
        assert rate >= MIN_CLOCK_RATE, f'/clock advanced {rate:.2f} s a second over {MEASURED_WALL:g} s'
        # the node's own counts over 10 s of all 200 subscribed (this process, spinning 200
        # subscriptions in one thread, takes some topics more often than others): round-robin
        # gives every camera about the same number; bound: the fewest >= 3/4 of the most (measured
        # 112..126; 68..153 while cameras iterated first could jump the queue)
        match = sim_node.wait_for_output(re.compile(
            r'cameras cannot all keep their rates at real_time_factor 1: (\d+) cameras dropped '
            r'(\d+) of (\d+) frames in the last 10 s \(200 cameras at 30 Hz; each published '
            r'(\d+) to (\d+)\)'), timeout=30.0)
        dropped, due, fewest, most = (int(match.group(i)) for i in (2, 3, 4, 5))
        assert 0 < dropped < due
        assert fewest >= 1 and fewest >= 0.75 * most, match.group(0)
        assert sim_node.is_running()
        print(f'/clock {rate:.2f} x real time; received per camera {min(frames)}..{max(frames)} '
              f'in all; node: {match.group(0)}')
    finally:
        for subscription in subscriptions:
            client.destroy_subscription(subscription)
