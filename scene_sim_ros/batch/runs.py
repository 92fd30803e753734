"""The runs of a spec: one per scene x engine x parameter set x seed, each with a key that names
its results. The key hashes what the results depend on (the scene file's bytes, engine, seed,
parameters, duration, what is recorded), so that a changed scene runs again and an unchanged one
is skipped.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scene_sim_ros.batch.spec import BatchSpec, Recording

KEY_LENGTH = 16  # hex digits; 64 bits keep collisions out of reach for any batch size


@dataclass(frozen=True, slots=True)
class RunTask:
    """Everything a worker needs for one run, plain data (it crosses process boundaries)."""

    key: str
    index: int
    scene_name: str
    scene_path: str
    scene_sha256: str
    engine: str
    seed: int
    params_name: str
    params: dict[str, Any]
    duration: float
    record: dict[str, Any]
    hook_dir: str
    time_limit: float | None

    def identity(self) -> dict[str, Any]:
        """What the result files say about the run (the same for every attempt and executor)."""
        return {'key': self.key, 'scene': self.scene_name, 'scene_file': Path(self.scene_path).name,
                'scene_sha256': self.scene_sha256, 'engine': self.engine, 'seed': self.seed,
                'params_name': self.params_name, 'params': self.params,
                'duration': self.duration}

    def recording(self) -> Recording:
        from scene_sim_ros.batch.spec import SensorSampling
        record = dict(self.record)
        record['metrics'] = tuple(record['metrics'])
        record['sensors'] = tuple(SensorSampling(**s) for s in record['sensors'])
        record['hooks'] = tuple(tuple(h) for h in record['hooks'])
        return Recording(**record)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open('rb') as stream:
        for block in iter(lambda: stream.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def run_key(scene_sha256: str, engine: str, seed: int, params: dict[str, Any], duration: float,
            record: dict[str, Any]) -> str:
    canonical = json.dumps({'scene': scene_sha256, 'engine': engine, 'seed': seed,
                            'params': params, 'duration': duration, 'record': record},
                           sort_keys=True, separators=(',', ':'), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:KEY_LENGTH]


def plan_runs(spec: BatchSpec) -> list[RunTask]:
    """Every run of ``spec`` in summary order: scenes, then engines, then parameter sets, then
    seeds."""
    record = asdict(spec.record)
    hashes = {entry.path: file_sha256(entry.path) for entry in spec.scenes}
    tasks: list[RunTask] = []
    for entry in spec.scenes:
        for engine in spec.engines:
            for params_name, params in spec.param_sets:
                for seed in spec.seeds:
                    tasks.append(RunTask(
                        key=run_key(hashes[entry.path], engine, seed, params, spec.duration,
                                    record),
                        index=len(tasks), scene_name=entry.name, scene_path=str(entry.path),
                        scene_sha256=hashes[entry.path], engine=engine, seed=seed,
                        params_name=params_name, params=params, duration=spec.duration,
                        record=record, hook_dir=str(spec.base_dir), time_limit=spec.time_limit))
    return tasks
