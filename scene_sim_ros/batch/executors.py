"""Where attempts run: local worker processes (a thread per slot waits on its process) or a Ray
cluster (one Ray task per attempt, each starting its own worker process). Both answer the same
three calls: ``submit(task)``, ``wait(timeout) -> outcomes`` and ``cancel()``.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Protocol

from scene_sim_ros.batch.attempt import attempt
from scene_sim_ros.batch.results import Outcome
from scene_sim_ros.batch.runs import RunTask
from scene_sim_ros.errors import SceneSimError

RAY_PIN = 'ray==2.60.0'


class Executor(Protocol):
    slots: int

    def submit(self, task: RunTask) -> None: ...

    def wait(self, timeout: float) -> list[Outcome]: ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class LocalExecutor:
    """``workers`` attempts at a time, each in its own process on this machine."""

    def __init__(self, workers: int | None = None):
        self.slots = workers or default_workers()
        self._pool = ThreadPoolExecutor(self.slots, thread_name_prefix='batch-run')
        self._cancel = threading.Event()
        self._futures: dict[Future[Outcome | None], RunTask] = {}

    def submit(self, task: RunTask) -> None:
        self._futures[self._pool.submit(attempt, task, self._cancel)] = task

    def wait(self, timeout: float) -> list[Outcome]:
        if not self._futures:
            return []
        done, _ = wait(self._futures, timeout=timeout, return_when=FIRST_COMPLETED)
        outcomes = []
        for future in done:
            task = self._futures.pop(future)
            try:
                outcome = future.result()
            except Exception as err:  # noqa: BLE001 - e.g. no temporary folder: the attempt failed
                outcome = Outcome(task.key, False, f'{type(err).__name__}: {err}')
            if outcome is not None:
                outcomes.append(outcome)
        return outcomes

    def cancel(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor:
    """One Ray task per attempt on the cluster at ``address`` ('auto': the running cluster
    RAY_ADDRESS or ``ray start`` names, else a new local instance with ``workers`` CPUs)."""

    def __init__(self, address: str = 'auto', workers: int | None = None):
        ray = import_ray()
        self._ray = ray
        self._started_here = not ray.is_initialized()
        if self._started_here:
            _connect(ray, address, workers)
        self.slots = workers or max(1, int(ray.cluster_resources().get('CPU', 1)))
        self._remote = ray.remote(num_cpus=1, max_retries=0)(attempt)
        self._refs: dict[Any, RunTask] = {}

    def submit(self, task: RunTask) -> None:
        self._refs[self._remote.remote(task)] = task

    def wait(self, timeout: float) -> list[Outcome]:
        if not self._refs:
            return []
        ready, _ = self._ray.wait(list(self._refs), num_returns=len(self._refs), timeout=timeout)
        outcomes = []
        for ref in ready:
            task = self._refs.pop(ref)
            try:
                outcome = self._ray.get(ref)
            except self._ray.exceptions.RayError as err:  # the Ray worker or its node died
                outcome = Outcome(task.key, False, f'Ray: {type(err).__name__}: {err}'[:500])
            outcomes.append(outcome)
        return outcomes

    def cancel(self) -> None:
        for ref in list(self._refs):
            self._ray.cancel(ref, force=True)  # its worker process notices and exits
        self._refs.clear()

    def close(self) -> None:
        if self._started_here:
            self._ray.shutdown()


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SceneSimError(f"--ray needs Ray: pip install 'scene_sim_ros[ray]' ({RAY_PIN})") \
            from None
    return ray


def _connect(ray: Any, address: str, workers: int | None) -> None:
    quiet = dict(log_to_driver=False, logging_level='warning')  # failures go to attempts.json
    if address != 'auto':
        try:
            ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise SceneSimError(
                f'--ray {address}: {err} (a cluster with token authentication also needs '
                'RAY_AUTH_MODE=token and its token: RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or '
                "~/.ray/auth_token; a ray:// address needs 'ray[client]')") from None
        return
    try:
        ray.init(address='auto', **quiet)
    except ConnectionError:  # no cluster running: a local instance, as many CPUs as workers
        ray.init(num_cpus=workers or default_workers(), include_dashboard=False, **quiet)


def make_executor(workers: int | None = None, ray: str | None = None) -> Executor:
    if ray is not None:
        return RayExecutor(ray, workers)
    return LocalExecutor(workers)
