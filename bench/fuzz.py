"""Mutation fuzzing of the loaders and the builder at scale: escapes by exception class.

Every mutant (see ``test/support/fuzz.py``) must either load, build and step with finite poses,
or raise SceneLoadError. Mutants run in worker processes, ``--chunk`` per process, each input
under a time limit (``--limit`` s; over it counts as ``Hang``); a worker that dies (segfault) or
hangs in C code counts that mutant as ``Crash(rc=..)``/``Hang(worker)`` and a new worker goes
on after it. Prints a table per format, the inputs over half the limit, one example per escape
class named ``file (seed S #N)`` (mutant N of chunk seed S: ``Fuzzer.mutants(fmt, N + 1, S)``;
``--save`` keeps the escaping files), and one JSON line: inputs, escapes by class, the slowest
input, the workers' peak RSS.

    python bench/fuzz.py                        # 20,000 per format (100,000 in all)
    python bench/fuzz.py --count 200 --jobs 2   # a quick look
    python bench/fuzz.py --code /tmp/old        # fuzz another checkout's scene_sim_ros
    python bench/fuzz.py --jobs 1 --save /tmp/escapes   # keep every escaping mutant

``SCENE_SIM_ROS_FUZZ_N`` (in the test suite) is the small version of this.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ('simrobot', 'webots', 'simox', 'raisim', 'urdf')
FINE = ('loaded', 'error', 'unstable')

_WORKER = r"""
import json, resource, signal, sys, tempfile, time
from pathlib import Path
sys.path[:0] = [{code!r}, {tests!r}]
from support.fuzz import Fuzzer, check
fmt, count, seed, first, limit, save = {fmt!r}, {count}, {seed}, {first}, {limit}, {save!r}
report = open({report!r}, 'a', buffering=1)  # not stdout: PyBullet's C code writes there too
def hang(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, hang)
with tempfile.TemporaryDirectory() as work:
    fuzzer = Fuzzer(Path(work))
    for number, path in enumerate(fuzzer.mutants(fmt, count, seed)):
        if number < first:
            continue
        print('AT', number, file=report, flush=True)  # a crash names the mutant it died on
        start = time.perf_counter()
        signal.alarm(limit)
        try:
            outcome, detail = check(path, fuzzer.mesh_dir)
        except TimeoutError:
            outcome, detail = 'Hang', ''
        finally:
            signal.alarm(0)
        took = time.perf_counter() - start
        if outcome not in ('loaded', 'error', 'unstable') and save:
            kept = Path(save) / fmt / outcome / f'{{seed}}-{{number}}-{{path.name}}'
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_bytes(path.read_bytes())
        print('R', json.dumps([number, path.name, outcome, took, detail]), file=report,
              flush=True)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print('RSS', rss, file=report, flush=True)
"""


def run_chunk(code: Path, fmt: str, count: int, seed: int, limit: int,
              save: str | None = None) -> dict:
    """Counts, an example per escape class, the slowest inputs and peak RSS of one chunk; a
    worker that dies (segfault, hang in C code) counts its mutant as ``Crash``/``Hang(worker)``
    and a new worker goes on after it."""
    result: dict = dict(counts=Counter(), examples={}, slowest=[0.0, ''], slow=[], rss_mb=0.0)
    first = 0
    while first < count:
        lines, died, where = _run_worker(code, fmt, count, seed, first, limit, save)
        at = first
        for line in lines:
            kind, _, rest = line.partition(' ')
            if kind == 'AT':
                at = int(rest)
            elif kind == 'R':
                number, name, outcome, took, detail = json.loads(rest)
                _count(result, f'{name} (seed {seed} #{number})', outcome, took, detail, limit)
                at = number + 1
            elif kind == 'RSS':
                result['rss_mb'] = max(result['rss_mb'], float(rest))
        if died is None:
            break
        took = float(limit) if died.startswith('Hang') else 0.0
        _count(result, f'{fmt} (seed {seed} #{at})', died, took, where, limit)
        if save:
            _replay(fmt, seed, at, Path(save) / fmt / died)
        first = at + 1
    return result


def _run_worker(code: Path, fmt: str, count: int, seed: int, first: int, limit: int,
                save: str | None) -> tuple[list[str], str | None, str]:
    """The lines of the worker's report file, how it died (None: it did not) and where (its
    innermost Python frame as faulthandler printed it)."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / 'report.txt'
        script = _WORKER.format(code=str(code), tests=str(ROOT / 'test'), fmt=fmt, count=count,
                                seed=seed, first=first, limit=limit, save=save,
                                report=str(report))
        env = {**os.environ, 'PYTHONWARNINGS': 'ignore', 'PYTHONFAULTHANDLER': '1'}
        try:
            out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                                 timeout=(count - first) * limit + 120, env=env, cwd=str(code))
        except subprocess.TimeoutExpired:
            return _lines(report), 'Hang(worker)', ''
        lines = _lines(report)
    if out.returncode != 0 or not any(line.startswith('RSS ') for line in lines):
        frames = [line.strip() for line in out.stderr.splitlines() if line.startswith('  File')]
        return lines, f'Crash(rc={out.returncode})', (frames or ['?'])[0]
    return lines, None, ''


def _lines(report: Path) -> list[str]:
    return report.read_text().splitlines() if report.is_file() else []


def _count(result: dict, name: str, outcome: str, took: float, detail: str, limit: int) -> None:
    result['counts'][outcome] += 1
    if took > result['slowest'][0]:
        result['slowest'] = [took, f'{outcome} {name}']
    if took > limit / 2:
        result['slow'].append([round(took, 2), f'{outcome} {name}'])
    if outcome not in FINE:
        result['examples'].setdefault(outcome, f'{name}: {detail}')


def _replay(fmt: str, seed: int, number: int, folder: Path) -> None:
    """Write mutant ``number`` of chunk ``seed`` into ``folder`` (after a worker died on it)."""
    sys.path.insert(0, str(ROOT / 'test'))
    from support.fuzz import Fuzzer
    with tempfile.TemporaryDirectory() as work:
        for n, path in enumerate(Fuzzer(Path(work)).mutants(fmt, number + 1, seed)):
            if n == number:
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f'{seed}-{number}-{path.name}').write_bytes(path.read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=20000, help='mutants per format')
    parser.add_argument('--chunk', type=int, default=500, help='mutants per worker process')
    parser.add_argument('--jobs', type=int, default=2)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--limit', type=int, default=10, help='seconds per input')
    parser.add_argument('--formats', default=','.join(FORMATS))
    parser.add_argument('--save', default=None,
                        help='folder to copy escaping mutants into (format/class/seed-n-name)')
    parser.add_argument('--code', type=Path, default=ROOT,
                        help='folder holding the scene_sim_ros package to fuzz')
    args = parser.parse_args()
    jobs = []
    for fmt in args.formats.split(','):
        for i, start in enumerate(range(0, args.count, args.chunk)):
            jobs.append((fmt, min(args.chunk, args.count - start), args.seed * 1000 + i))
    started = time.monotonic()

    def run(job: tuple[str, int, int]) -> tuple[str, dict]:
        result = run_chunk(args.code, *job, args.limit, args.save)
        print(f'{time.monotonic() - started:7.0f} s  {job[0]} seed {job[2]}: '
              f'{dict(result["counts"])} slowest {result["slowest"][0]:.2f} s', flush=True,
              file=sys.stderr)
        return job[0], result

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, jobs))
    report: dict[str, dict] = {}
    for fmt, result in results:
        entry = report.setdefault(fmt, dict(counts=Counter(), examples={}, slowest=[0.0, ''],
                                            slow=[], rss_mb=0.0))
        entry['slow'] += result['slow']
        entry['counts'].update(result['counts'])
        for key, value in result['examples'].items():
            entry['examples'].setdefault(key, value)
        entry['slowest'] = max(entry['slowest'], result['slowest'])
        entry['rss_mb'] = max(entry['rss_mb'], result['rss_mb'])
    print('| format | inputs | loaded | SceneLoadError | unstable | escapes | by class '
          '| slowest (s) | peak RSS (MB) |')
    print('|---|---|---|---|---|---|---|---|---|')
    total: Counter[str] = Counter()
    for fmt, entry in report.items():
        counts = entry['counts']
        escapes = {k: v for k, v in counts.items() if k not in FINE}
        total.update(counts)
        print(f'| {fmt} | {sum(counts.values())} | {counts["loaded"]} | {counts["error"]} | '
              f'{counts["unstable"]} | '
              f'{sum(escapes.values())} | {escapes or "-"} | {entry["slowest"][0]:.2f} | '
              f'{entry["rss_mb"]:.0f} |')
    for fmt, entry in report.items():
        print(f'- {fmt} slowest: {entry["slowest"][0]:.2f} s {entry["slowest"][1]}')
        for took, name in sorted(entry['slow'], reverse=True)[:10]:
            print(f'- {fmt} over {args.limit / 2:g} s: {took:.2f} s {name}')
        for key, example in entry['examples'].items():
            print(f'- {fmt} {key}: {example}')
    print(json.dumps(dict(inputs=sum(total.values()),
                          escapes={k: v for k, v in total.items() if k not in FINE},
                          formats={f: dict(e['counts']) for f, e in report.items()},
                          slowest=max(e['slowest'] for e in report.values()),
                          peak_rss_mb=max(e['rss_mb'] for e in report.values()))))


if __name__ == '__main__':
    main()
