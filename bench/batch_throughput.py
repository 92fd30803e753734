"""Throughput of `scene-sim-ros batch`: --workers 2 against --workers 1, and --ray auto's
results against the local ones, bit for bit (issue 21).

Usage: ``python bench/batch_throughput.py [--duration 10] [--seeds 10] [--runs 1] [--no-ray]
[--workers 2] [--keep DIR]``

The spec: Game.ros2 (14 NAOs; SCENE_SIM_ROS_CORPUS or ../shared/corpus) and the bundled default
scene, ``--seeds`` seeds each, ``--duration`` simulated seconds per run, recording final poses,
the fallen and distance metrics and each scene's gyroscope at 10 Hz; 20 runs by default. Every
configuration writes into a fresh folder (a finished run would be skipped), times the whole batch
through the Python API (``run_batch``), and reports runs per wall-clock second and the cores its
worker processes got (their CPU seconds over the wall time: on a machine loaded by other work,
``--workers 2`` gets fewer than 2, which caps the ratio whatever the executor does). The throughput
ratio (``--workers N`` over 1) is measured inside one invocation; with ``--runs`` > 1 the
configurations alternate and medians are reported. ``--ray auto`` starts a local Ray instance
(its start-up is part of its time) and must give byte-identical result.json/samples.npz files.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scene_sim_ros.batch import plan_runs, run_batch, spec_from_mapping

CORPUS = Path(os.environ.get('SCENE_SIM_ROS_CORPUS')
              or Path(__file__).resolve().parents[2] / 'shared' / 'corpus')
GAME = CORPUS / 'simrobot' / 'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2'


def spec(output: Path, duration: float, seeds: int):
    return spec_from_mapping({
        'scenes': [{'path': str(GAME), 'name': 'game'}, 'default'],
        'seeds': seeds, 'duration': duration, 'output': str(output), 'retries': 0,
        'record': {'metrics': ['fallen', 'distance'],
                   'sensors': [{'entity': 'robot1', 'sensor': 'Gyroscope', 'rate': 10},
                               {'entity': 'rover', 'sensor': 'gyroscope', 'rate': 10}]}})


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_batch(output: Path, args: argparse.Namespace, workers: int,
                ray: str | None = None) -> tuple[float, float]:
    """Wall seconds of the batch, and the CPU seconds its local worker processes used."""
    cpu = children_cpu_s()
    started = time.perf_counter()
    report = run_batch(spec(output, args.duration, args.seeds), workers=workers, ray=ray,
                       progress=False)
    elapsed = time.perf_counter() - started
    if not report.ok:
        sys.exit(f'batch into {output} did not finish: {report}')
    return elapsed, children_cpu_s() - cpu


def result_files(output: Path, keys: list[str]) -> dict[str, bytes]:
    files = {}
    for key in keys:
        for name in ('result.json', 'samples.npz'):
            path = output / 'runs' / key / name
            files[f'{key}/{name}'] = path.read_bytes() if path.exists() else b''
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--duration', type=float, default=10.0, help='simulated s per run')
    parser.add_argument('--seeds', type=int, default=10, help='seeds per scene')
    parser.add_argument('--runs', type=int, default=1, help='repetitions of each configuration')
    parser.add_argument('--workers', type=int, default=2, help='compared with 1 worker')
    parser.add_argument('--no-ray', action='store_true', help='skip the --ray auto comparison')
    parser.add_argument('--keep', type=Path, default=None, help='keep the results folders here')
    args = parser.parse_args()
    if not GAME.is_file():
        sys.exit(f'{GAME}: not found (set SCENE_SIM_ROS_CORPUS)')
    root = args.keep or Path(tempfile.mkdtemp(prefix='bench-batch-'))
    total = 2 * args.seeds
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {'1': [], str(args.workers): []}
    cores: dict[str, list[float]] = {'1': [], str(args.workers): []}
    for repetition in range(args.runs):
        for workers in (1, args.workers):
            wall, cpu = timed_batch(root / f'w{workers}-{repetition}', args, workers)
            times[str(workers)].append(wall)
            cores[str(workers)].append(cpu / wall)
    ratios = [one / many for one, many in zip(times['1'], times[str(args.workers)])]
    rows = [(f'--workers {w}', statistics.median(t), total / statistics.median(t),
             f'{statistics.median(cores[w]):.2f}') for w, t in times.items()]
    identical = None
    if not args.no_ray:
        try:
            ray_s = timed_batch(root / 'ray', args, args.workers, ray='auto')
        except Exception as err:  # noqa: BLE001 - e.g. Ray not installed: say so, keep the rest
            print(f'--ray auto: {err}', file=sys.stderr)
        else:
            rows.append((f'--ray auto ({args.workers} CPUs)', ray_s[0], total / ray_s[0], '-'))
            keys = [t.key for t in plan_runs(spec(root / 'ray', args.duration, args.seeds))]
            identical = result_files(root / 'ray', keys) == result_files(root / 'w1-0', keys)
    print(f'{total} runs: Game.ros2 (14 NAOs) and the default scene x {args.seeds} seeds, '
          f'{args.duration:g} s simulated each; {os.cpu_count()} cores; load average '
          f'{load_before:.1f} before, {os.getloadavg()[0]:.1f} after')
    print()
    print('| executor | wall s (median) | runs/s | cores the workers got (CPU s / wall s) |')
    print('|---|---:|---:|---:|')
    for name, seconds, rate, used in rows:
        print(f'| {name} | {seconds:.1f} | {rate:.2f} | {used} |')
    print()
    print(f'throughput ratio --workers {args.workers} / --workers 1: median '
          f'{statistics.median(ratios):.2f} (each {", ".join(f"{r:.2f}" for r in ratios)}; '
          'target >= 1.8 on 2 cores)')
    if identical is not None:
        print(f'--ray auto results bit-identical to --workers 1: {identical}')
    print(json.dumps({'runs': total, 'duration_s': args.duration,
                      'wall_s': {name: round(s, 2) for name, s, _, _ in rows},
                      'cores_used': {name: used for name, _, _, used in rows},
                      'load_average_before': round(load_before, 2),
                      'throughput_ratio': round(statistics.median(ratios), 3),
                      'ratios': [round(r, 3) for r in ratios],
                      'ray_bit_identical': identical}))


if __name__ == '__main__':
    main()
