"""The batch loop: skip finished runs, keep the executor's slots busy, record every attempt,
retry failures, and on Ctrl-C stop the running attempts and keep what finished."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from scene_sim_ros.batch.executors import Executor, make_executor
from scene_sim_ros.batch.progress import Progress
from scene_sim_ros.batch.results import ResultStore
from scene_sim_ros.batch.runs import RunTask, plan_runs
from scene_sim_ros.batch.spec import BatchSpec

WAIT_S = 0.5


@dataclass(frozen=True, slots=True)
class BatchReport:
    """How a batch went. ``done`` counts the runs with results (skipped ones included)."""

    total: int
    skipped: int
    done: int
    failed: int
    interrupted: bool
    output: Path
    summary: Path

    @property
    def ok(self) -> bool:
        return not self.interrupted and self.done == self.total


def run_batch(spec: BatchSpec, *, workers: int | None = None, ray: str | None = None,
              retries: int | None = None, progress: bool = True) -> BatchReport:
    """Run every run of ``spec`` not finished yet in ``spec.output``; the Python API of
    ``scene-sim-ros batch``. ``ray`` ('auto' or an address) picks the Ray executor."""
    tasks = plan_runs(spec)
    store = ResultStore(spec.output)
    # scene files of equal bytes give equal keys: such runs would give the same results, so
    # the first of them runs and the summary shows its results for each
    unique = {t.key: t for t in reversed(tasks)}
    pending = deque(t for t in tasks if unique[t.key] is t and not store.finished(t.key))
    meter = Progress(len(unique), len(unique) - len(pending), enabled=progress)
    tries = dict.fromkeys((t.key for t in pending), 1 + (spec.retries if retries is None
                                                        else retries))
    interrupted = False
    executor = make_executor(workers, ray) if pending else None
    try:
        if executor is not None:
            _drive(executor, pending, tries, store, meter)
    except KeyboardInterrupt:
        interrupted = True
        if executor is not None:
            executor.cancel()
    finally:
        if executor is not None:
            executor.close()
        summary = store.write_summary(tasks)
    meter.running = 0
    meter.show(final=True)
    done = sum(store.finished(key) for key in unique)
    return BatchReport(len(unique), meter.skipped, done, meter.failed, interrupted, spec.output,
                       summary)


def _drive(executor: Executor, pending: deque[RunTask], tries: dict[str, int], store: ResultStore,
           meter: Progress) -> None:
    by_key = {t.key: t for t in pending}
    running = 0
    while pending or running:
        while pending and running < executor.slots:
            task = pending.popleft()
            tries[task.key] -= 1
            executor.submit(task)
            running += 1
        meter.running = running
        meter.show()
        for outcome in executor.wait(WAIT_S):
            running -= 1
            store.save(outcome)
            if outcome.ok:
                meter.done += 1
            elif tries[outcome.key] > 0:
                meter.retried += 1
                pending.append(by_key[outcome.key])
            else:
                meter.failed += 1
