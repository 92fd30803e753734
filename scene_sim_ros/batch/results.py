"""The results folder: one folder per run, named by its key, and one summary table.

    OUTPUT/runs/<key>/result.json   identity, metrics, final poses, hook values (bit-identical
                                    on a re-run of the same scene, engine, seed and parameters)
    OUTPUT/runs/<key>/samples.npz   sensor samples, when the spec records any (bytes as stable
                                    as result.json: fixed zip timestamps)
    OUTPUT/runs/<key>/attempts.json every attempt: status, error, wall time (these vary)
    OUTPUT/summary.csv              one row per run of the spec, in spec order

A run is finished when its ``result.json`` exists; files are written to a temporary name and
renamed, so a batch killed at any moment leaves no half-written result.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scene_sim_ros.batch.runs import RunTask

NPZ_TIME = (1980, 1, 1, 0, 0, 0)  # the zip epoch: same bytes for the same arrays


@dataclass(frozen=True, slots=True)
class Outcome:
    """One attempt of one run, as an executor reports it. ``result_text``/``samples`` are the
    files' contents when it succeeded (they travel back from a Ray node as bytes)."""

    key: str
    ok: bool
    error: str = ''
    detail: str = ''
    wall_s: float = 0.0
    result_text: str | None = None
    samples: bytes | None = None


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` with fixed timestamps and sorted names, so equal arrays give equal bytes."""
    _atomic_write(path, npz_bytes(arrays))


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arrays[name]), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f'{name}.npy', date_time=NPZ_TIME),
                             member.getvalue())
    return buffer.getvalue()


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    temporary.write_bytes(data)
    os.replace(temporary, path)


class ResultStore:
    """The results folder of a batch."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.runs = self.root / 'runs'

    def folder(self, key: str) -> Path:
        return self.runs / key

    def finished(self, key: str) -> bool:
        return (self.folder(key) / 'result.json').is_file()

    def result(self, key: str) -> dict[str, Any] | None:
        path = self.folder(key) / 'result.json'
        return json.loads(path.read_text()) if path.is_file() else None

    def attempts(self, key: str) -> list[dict[str, Any]]:
        path = self.folder(key) / 'attempts.json'
        return json.loads(path.read_text()) if path.is_file() else []

    def save(self, outcome: Outcome) -> None:
        """Record an attempt; a successful one also leaves the run's result files."""
        folder = self.folder(outcome.key)
        folder.mkdir(parents=True, exist_ok=True)
        attempts = self.attempts(outcome.key)
        attempts.append({'ok': outcome.ok, 'error': outcome.error, 'detail': outcome.detail,
                         'wall_s': round(outcome.wall_s, 3)})
        _atomic_write(folder / 'attempts.json', json.dumps(attempts, indent=1).encode())
        if outcome.ok and outcome.result_text is not None:
            if outcome.samples is not None:
                _atomic_write(folder / 'samples.npz', outcome.samples)
            _atomic_write(folder / 'result.json', outcome.result_text.encode())

    def write_summary(self, tasks: list[RunTask]) -> Path:
        """``summary.csv``: identity, status, attempts, error and the scalar results per run."""
        rows = [self._row(task) for task in tasks]
        columns = list(SUMMARY_COLUMNS)
        for row in rows:
            columns += [c for c in row if c not in columns]
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator='\n')
        writer.writeheader()
        writer.writerows(rows)
        path = self.root / 'summary.csv'
        self.root.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, buffer.getvalue().encode())
        return path

    def _row(self, task: RunTask) -> dict[str, Any]:
        attempts = self.attempts(task.key)
        result = self.result(task.key)
        status = 'ok' if result is not None else ('failed' if attempts else 'not run')
        row: dict[str, Any] = {
            'index': task.index, 'key': task.key, 'scene': task.scene_name,
            'engine': task.engine, 'params': task.params_name, 'seed': task.seed, 'status': status,
            'attempts': len(attempts),
            'wall_s': attempts[-1]['wall_s'] if attempts else '',
            'error': '' if result is not None or not attempts else attempts[-1]['error']}
        if result is not None:
            row['sim_time'] = result['sim_time']
            row.update(_flatten('', result.get('metrics', {})))
            row.update(_flatten('hook.', result.get('hook', {})))
        return row


SUMMARY_COLUMNS = ('index', 'key', 'scene', 'engine', 'params', 'seed', 'status', 'attempts',
                   'wall_s', 'error', 'sim_time')


def _flatten(prefix: str, values: dict[str, Any]) -> dict[str, Any]:
    """Scalars as they are, nested mappings as ``a.b`` columns, lists joined with ``;``."""
    flat: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, dict):
            flat.update(_flatten(f'{prefix}{name}.', value))
        elif isinstance(value, list):
            flat[f'{prefix}{name}'] = ';'.join(map(str, value))
        else:
            flat[f'{prefix}{name}'] = value
    return flat
