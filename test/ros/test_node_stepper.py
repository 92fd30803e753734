"""The physics loop (scene_sim_ros.ros.runtime.stepper) on a fake simulation: pacing, pause, lock-step
stepping, tasks at step boundaries, errors that must not stop it. No ROS needed."""

import threading
import time

import pytest

from scene_sim_ros.ros.runtime.stepper import Stepper


class FakeSim:
    step_length = 0.01

    def __init__(self):
        self.steps = 0
        self.log = []

    @property
    def time(self):
        return self.steps * self.step_length

    def step(self, n=1):
        self.steps += n
        self.log.append(('step', self.steps))


@pytest.fixture
def make_stepper():
    stepper_list = []

    def make(**kwargs):
        sim = FakeSim()
        published = []
        stepper = Stepper(sim, published.append, **kwargs)
        stepper.published = published
        stepper_list.append(stepper)
        return stepper
    yield make
    for stepper in stepper_list:
        stepper.stop()


def wait(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


class VirtualClock:
    """Stands in for the stepper's ``time`` module: ``sleep`` advances the clock at once, so
    the pacing law is checked exactly, whatever else the machine is doing."""

    def __init__(self):
        self.now = 100.0
        self.slept = 0.0

    def perf_counter(self):
        return self.now

    monotonic = perf_counter

    def sleep(self, seconds):
        self.slept += seconds
        self.now += seconds


@pytest.fixture
def virtual_clock(monkeypatch):
    import scene_sim_ros.ros.runtime.stepper as stepper_module
    clock = VirtualClock()
    monkeypatch.setattr(stepper_module, 'time', clock)
    return clock


def paced_wall_time(stepper, clock, steps, step_cost=0.0):
    """Wall seconds ``steps`` paced steps take when each costs ``step_cost`` s of wall time."""
    stepper._pace()  # the first call anchors the schedule  # noqa: SLF001
    start = clock.now
    for _ in range(steps):
        stepper.sim.step()
        clock.now += step_cost
        stepper._pace()  # noqa: SLF001
    return clock.now - start


@pytest.mark.parametrize('real_time_factor', [1.0, 2.0, 0.5])
def test_real_time_factor_paces_sim_time_with_the_wall_clock(make_stepper, virtual_clock,
                                                            real_time_factor):
    stepper = make_stepper(real_time_factor=real_time_factor)
    wall = paced_wall_time(stepper, virtual_clock, 300, step_cost=0.002)
    assert wall == pytest.approx(300 * 0.01 / real_time_factor, abs=1e-9)


def test_a_slow_step_is_not_slept_for_and_the_lag_is_caught_up(make_stepper, virtual_clock):
    """Steps slower than real time: no sleeping at all; the wall time is the steps' own."""
    stepper = make_stepper(real_time_factor=1.0)
    wall = paced_wall_time(stepper, virtual_clock, 50, step_cost=0.015)
    assert virtual_clock.slept == 0.0 and wall == pytest.approx(50 * 0.015)


def test_zero_real_time_factor_does_not_sleep(make_stepper, virtual_clock):
    stepper = make_stepper(real_time_factor=0.0)
    paced_wall_time(stepper, virtual_clock, 500)
    assert virtual_clock.slept == 0.0


def test_an_unpaced_stepper_runs_steps_back_to_back(make_stepper):
    stepper = make_stepper(real_time_factor=0.0)
    stepper.start()
    assert wait(lambda: stepper.sim.time > 2.0)  # 200 fake steps without waiting for anything


def test_after_step_sees_the_time_of_every_step(make_stepper):
    stepper = make_stepper(real_time_factor=0.0)
    stepper.start()
    assert wait(lambda: len(stepper.published) >= 50)
    stepper.stop()
    times = stepper.published[:50]
    assert times == pytest.approx([0.01 * (k + 1) for k in range(50)])


def test_paused_loop_does_not_step_but_runs_tasks(make_stepper):
    stepper = make_stepper(real_time_factor=0.0, paused=True)
    stepper.start()
    time.sleep(0.1)
    assert stepper.sim.steps == 0
    assert stepper.submit(lambda: 'done').result(timeout=2.0) == 'done'
    assert stepper.sim.steps == 0


def test_request_steps_while_paused_runs_exactly_that_many(make_stepper):
    stepper = make_stepper(real_time_factor=1.0, paused=True)
    stepper.start()
    result = stepper.request_steps(10).result(timeout=5.0)
    assert result == pytest.approx(0.10)
    time.sleep(0.05)
    assert stepper.sim.steps == 10
    assert len(stepper.published) == 10


def test_request_steps_while_playing_fails(make_stepper):
    stepper = make_stepper(real_time_factor=1.0)
    stepper.start()
    with pytest.raises(RuntimeError, match='playing'):
        stepper.request_steps(1).result(timeout=1.0)


def test_play_after_pause_resumes_without_a_catch_up_burst(make_stepper, virtual_clock):
    """0.2 s paused, then playing: the schedule starts again from now (no burst of the missed
    steps)."""
    stepper = make_stepper(real_time_factor=1.0)
    paced_wall_time(stepper, virtual_clock, 10)
    stepper.pause()
    stepper._pace()  # noqa: SLF001 - a paused loop drops its anchor
    virtual_clock.now += 0.2  # less than MAX_LAG: only dropping the anchor avoids a burst
    stepper.play()
    wall = paced_wall_time(stepper, virtual_clock, 10)
    assert wall == pytest.approx(0.1, abs=1e-9)  # 10 steps, 10 ms each: paced, not rushed


def test_tasks_run_in_order_between_steps(make_stepper):
    stepper = make_stepper(real_time_factor=0.0)
    stepper.start()
    seen = []
    futures = [stepper.submit(lambda k=k: seen.append((k, stepper.sim.steps))) for k in range(5)]
    for future in futures:
        future.result(timeout=2.0)
    assert [k for k, _ in seen] == list(range(5))


def test_errors_in_tasks_hooks_and_publishing_do_not_stop_the_loop(make_stepper):
    reported = []
    sim = FakeSim()
    calls = []

    def after_step(t):
        calls.append(t)
        if len(calls) == 3:
            raise RuntimeError('publisher exploded')

    stepper = Stepper(sim, after_step, real_time_factor=0.0,
                      on_error=lambda where, err: reported.append((where, str(err))))
    stepper.add_before_step(lambda t: 1 / 0 if len(calls) == 5 else None)
    stepper.start()
    try:
        stepper.submit(lambda: int('x'), want_result=False)
        failing = stepper.submit(lambda: int('y'))
        with pytest.raises(ValueError):
            failing.result(timeout=2.0)
        assert wait(lambda: len(calls) > 20)
    finally:
        stepper.stop()
    wheres = [w for w, _ in reported]
    assert 'after_step' in wheres and 'before_step' in wheres and 'command' in wheres
    assert stepper.errors == len(reported)


def test_stop_cancels_what_was_still_queued(make_stepper):
    stepper = make_stepper(real_time_factor=0.0, paused=True)
    block = threading.Event()
    stepper.start()
    stepper.submit(block.wait)
    pending = stepper.submit(lambda: 'never')
    stopper = threading.Thread(target=stepper.stop, kwargs={'timeout': 2.0})
    stopper.start()
    time.sleep(0.05)
    block.set()
    stopper.join()
    assert pending.cancelled() or pending.done()


def test_while_paused_hook_repeats_the_paused_time():
    sim = FakeSim()
    ticks = []
    stepper = Stepper(sim, lambda t: None, real_time_factor=0.0, paused=True,
                      while_paused=ticks.append)
    stepper.start()
    try:
        assert wait(lambda: len(ticks) >= 3)
        stepper.request_steps(4).result(timeout=2.0)
        count = len(ticks)
        assert wait(lambda: len(ticks) > count)
    finally:
        stepper.stop()
    assert set(ticks[:3]) == {0.0}
    assert ticks[-1] == pytest.approx(0.04)


@pytest.mark.parametrize('with_finish', [False, True], ids=['settle-only', 'settle-and-finish'])
def test_what_a_step_left_in_flight_is_out_before_others_see_the_step_done(with_finish):
    """``settle`` (the node: wait for the outbox) runs before queued tasks; ``finish``
    (settle, and the camera frame lane drained; ``settle`` where none is given) runs after the
    last requested step's after_step and before its Future completes, and when the loop idles
    while paused. A queued task waits for ``settle`` only, so that commands streamed every
    step do not keep the frames from overlapping the physics."""
    events = []
    finish = (lambda: events.append('finish')) if with_finish else None
    finished = 'finish' if with_finish else 'settle'
    stepper = Stepper(FakeSim(), lambda t: events.append(('after_step', round(t, 3))),
                      real_time_factor=0.0, paused=True, settle=lambda: events.append('settle'),
                      finish=finish)
    stepper.start()
    try:
        assert wait(lambda: finished in events)  # idling while paused
        events.clear()
        stepper.request_steps(2).add_done_callback(lambda _: events.append('done'))
        assert wait(lambda: 'done' in events)
        steps = [k for k, e in enumerate(events) if e == ('after_step', 0.02)]
        assert steps and events[steps[0] + 1:steps[0] + 3] == [finished, 'done']
        events.clear()
        stepper.play()
        assert wait(lambda: any(isinstance(e, tuple) for e in events))  # stepping
        events.clear()
        stepper.submit(lambda: events.append('task')).result(timeout=2.0)
        before = events[:events.index('task')]
        assert before and before[-1] == 'settle'
        if with_finish:
            assert 'finish' not in before
    finally:
        stepper.stop()
