"""Mutation fuzzing of the loaders and the builder at scale: escapes by exception class.

Every mutant (see ``test/support/fuzz.py``) must either load, build and step with finite poses,
or raise SceneLoadError. Mutants run in worker processes, ``--chunk`` per process, each input
under a time limit (``--limit`` s; over it counts as ``Hang``). Prints a table per format and
one JSON line: inputs, escapes by class, the slowest input, the workers' peak RSS.

    python bench/fuzz.py                        # 20,000 per format (100,000 in all)
    python bench/fuzz.py --count 200 --jobs 2   # a quick look
    python bench/fuzz.py --code /tmp/old        # fuzz another checkout's scene_sim_ros

``SCENE_SIM_ROS_FUZZ_N`` (in the test suite) is the small version of this.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ('simrobot', 'webots', 'simox', 'raisim', 'urdf')
FINE = ('loaded', 'error', 'unstable')

_WORKER = r"""
import json, resource, signal, sys, tempfile, time
from collections import Counter
from pathlib import Path
sys.path[:0] = [{code!r}, {tests!r}]
from support.fuzz import Fuzzer, check
fmt, count, seed, limit = {fmt!r}, {count}, {seed}, {limit}
def hang(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, hang)
counts, examples, slowest = Counter(), {{}}, [0.0, '']
with tempfile.TemporaryDirectory() as work:
    fuzzer = Fuzzer(Path(work))
    for path in fuzzer.mutants(fmt, count, seed):
        start = time.perf_counter()
        signal.alarm(limit)
        try:
            outcome, detail = check(path, fuzzer.mesh_dir)
        except TimeoutError:
            outcome, detail = 'Hang', ''
        finally:
            signal.alarm(0)
        took = time.perf_counter() - start
        if took > slowest[0]:
            slowest = [took, outcome]
        counts[outcome] += 1
        if outcome not in ('loaded', 'error', 'unstable'):
            examples.setdefault(outcome, detail)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print('\nFUZZ-RESULT', json.dumps(dict(counts=counts, examples=examples, slowest=slowest, rss_mb=rss)))
"""


def run_chunk(code: Path, fmt: str, count: int, seed: int, limit: int) -> dict:
    script = _WORKER.format(code=str(code), tests=str(ROOT / 'test'), fmt=fmt, count=count,
                            seed=seed, limit=limit)
    env = {**os.environ, 'PYTHONWARNINGS': 'ignore'}
    try:
        out = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                             timeout=count * limit + 120, env=env, cwd=str(code))
    except subprocess.TimeoutExpired:
        return dict(counts={'Hang(worker)': count}, examples={}, slowest=[0.0, ''], rss_mb=0)
    lines = [line.split(' ', 1)[1] for line in out.stdout.splitlines()
             if line.startswith('FUZZ-RESULT ')]
    if out.returncode != 0 or not lines:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ['?']
        return dict(counts={f'Crash(worker rc={out.returncode})': count},
                    examples={'crash': tail[0]}, slowest=[0.0, ''], rss_mb=0)
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--count', type=int, default=20000, help='mutants per format')
    parser.add_argument('--chunk', type=int, default=500, help='mutants per worker process')
    parser.add_argument('--jobs', type=int, default=2)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--limit', type=int, default=10, help='seconds per input')
    parser.add_argument('--formats', default=','.join(FORMATS))
    parser.add_argument('--code', type=Path, default=ROOT,
                        help='folder holding the scene_sim_ros package to fuzz')
    args = parser.parse_args()
    jobs = []
    for fmt in args.formats.split(','):
        for i, start in enumerate(range(0, args.count, args.chunk)):
            jobs.append((fmt, min(args.chunk, args.count - start), args.seed * 1000 + i))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda j: (j[0], run_chunk(args.code, j[0], j[1], j[2], args.limit)), jobs))
    report: dict[str, dict] = {}
    for fmt, result in results:
        entry = report.setdefault(fmt, dict(counts=Counter(), examples={}, slowest=[0.0, ''],
                                            rss_mb=0.0))
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
        for key, example in entry['examples'].items():
            print(f'- {fmt} {key}: {example}')
    print(json.dumps(dict(inputs=sum(total.values()),
                          escapes={k: v for k, v in total.items() if k not in FINE},
                          formats={f: dict(e['counts']) for f, e in report.items()},
                          slowest_s=max(e['slowest'][0] for e in report.values()),
                          peak_rss_mb=max(e['rss_mb'] for e in report.values()))))


if __name__ == '__main__':
    main()
