"""Test-wide set-up: every test process gets its own isolated ROS 2 environment.

This runs when pytest loads this file, before any test module (or a deeper conftest) can import
rclpy: ROS_DOMAIN_ID (one per test process, never shared with another live one),
ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST, RMW_IMPLEMENTATION=rmw_fastrtps_cpp and ROS_LOG_DIR
under ``.test-logs/ros``. Processes started from the tests inherit them.

Fixtures:
    ros_env          the ROS variables set for this test process (dict).
    ros_context      an initialised rclpy Context of its own, shut down afterwards.
    ros_node         an rclpy Node in ``ros_context``, destroyed afterwards.
    managed_process  a factory: ``managed_process(argv, ready=..., name=..., env=...)`` starts a
                     :class:`support.ManagedProcess` (log in the test's tmp_path) and stops it
                     (and its whole process group) when the test ends.
Helpers to import: ``support.processes`` (ManagedProcess, python_argv), ``support.ros``
(wait_for_messages, call_service, spin_until, wait_for_topic).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hypothesis
import pytest

from support import ros_env
from support.processes import ManagedProcess

REPO_ROOT = Path(__file__).resolve().parents[1]
ROS_LOG_DIR = REPO_ROOT / '.test-logs' / 'ros'

ROS_ENV = ros_env.isolate(ROS_LOG_DIR)
# Webots worlds must never reach the internet from a test (remote PROTOs would download into
# the user's cache): tests that want downloads serve them from localhost and say so.
os.environ['SCENE_SIM_ROS_OFFLINE'] = '1'
os.environ['SCENE_SIM_ROS_CACHE_DIR'] = str(REPO_ROOT / '.test-logs' / f'webots-cache-{os.getpid()}')
# Hypothesis' 200 ms per-example deadline is a timing check, and timings belong in bench/: on a
# loaded machine it failed correct property tests with DeadlineExceeded (issue 19).
hypothesis.settings.register_profile('scene_sim_ros', deadline=None)
hypothesis.settings.load_profile('scene_sim_ros')

if TYPE_CHECKING:
    from rclpy.context import Context
    from rclpy.node import Node

_node_ids = itertools.count()


def pytest_report_header(config: pytest.Config) -> str:
    return (f"ROS: ROS_DOMAIN_ID={ROS_ENV['ROS_DOMAIN_ID']} "
            f"ROS_AUTOMATIC_DISCOVERY_RANGE={ROS_ENV['ROS_AUTOMATIC_DISCOVERY_RANGE']} "
            f"ROS_LOG_DIR={os.path.relpath(ROS_ENV['ROS_LOG_DIR'], REPO_ROOT)}")


@pytest.fixture(scope='session')
def ros_env() -> dict[str, str]:
    """The ROS 2 environment variables this test process runs with (children inherit them)."""
    return dict(ROS_ENV)


@pytest.fixture
def ros_context() -> Iterator[Context]:
    """An rclpy Context initialised for this test only."""
    import rclpy
    from rclpy.context import Context

    context = Context()
    rclpy.init(context=context)
    try:
        yield context
    finally:
        context.try_shutdown()


@pytest.fixture
def ros_node(ros_context: Context, request: pytest.FixtureRequest) -> Iterator[Node]:
    """A node named after the test, in a context of its own."""
    from rclpy.node import Node

    name = 'test_' + ''.join(c if c.isalnum() else '_' for c in request.node.name)[:40]
    node = Node(f'{name}_{next(_node_ids)}', context=ros_context)
    try:
        yield node
    finally:
        node.destroy_node()


@pytest.fixture
def managed_process(tmp_path: Path) -> Iterator[Callable[..., ManagedProcess]]:
    """Start processes for this test; all of them are stopped (whole process groups) afterwards.

    ``managed_process(argv, *, ready=None, name=None, env=None, cwd=None, ready_timeout=30,
    stop_timeout=5)`` returns the started :class:`ManagedProcess`. Logs go to ``tmp_path``.
    """
    started: list[ManagedProcess] = []

    def start(argv: list[str], **kwargs: Any) -> ManagedProcess:
        kwargs.setdefault('log_dir', tmp_path)
        proc = ManagedProcess(argv, **kwargs)
        started.append(proc)
        return proc.start()

    yield start
    for proc in reversed(started):
        proc.stop()
