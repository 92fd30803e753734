"""Peak resident memory (RSS) of a process that loads a scene and steps it, per robot count.

Each run is a fresh process: load the scene, build the Simulation, step one simulated second,
report ``ru_maxrss``. The baseline (imports only) is measured the same way, so the table shows
what the scene itself costs. NAO counts come from B-Human's Game.ros2 (robots beyond the count
are removed from the model before building).

    python bench/memory.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from game_scene import GAME

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import dataclasses, resource, sys
sys.path.insert(0, {root!r})
from scene_sim_ros import Simulation, load_scene
robots = {robots}
if robots:
    scene = load_scene({scene!r})
    kept, seen = [], 0
    for entity in scene.entities:
        if entity.kind == 'robot':
            seen += 1
            if seen > robots:
                continue
        kept.append(entity)
    sim = Simulation(dataclasses.replace(scene, entities=tuple(kept)))
    sim.step(int(round(1.0 / sim.step_length)))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
"""


def peak_rss_mb(robots: int) -> float:
    code = _CHILD.format(root=str(ROOT), scene=str(GAME), robots=robots)
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    if not GAME.exists():
        print(json.dumps({'skipped': f'{GAME} not found'}))
        return 0
    counts = (0, 1, 14)
    samples: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(args.runs):  # interleaved so that machine noise hits every count alike
        for n in counts:
            samples[n].append(peak_rss_mb(n))
    baseline = statistics.median(samples[0])
    print('| NAOs | peak RSS MB (median) | min | max | above imports MB |')
    print('|---|---|---|---|---|')
    rows = []
    for n in counts:
        median = statistics.median(samples[n])
        rows.append({'robots': n, 'peak_rss_mb': median, 'min': min(samples[n]),
                     'max': max(samples[n]), 'above_imports_mb': median - baseline})
        label = 'imports only' if n == 0 else str(n)
        print(f'| {label} | {median:.0f} | {min(samples[n]):.0f} | {max(samples[n]):.0f} | '
              f'{median - baseline:.0f} |')
    print(json.dumps({'benchmark': 'memory', 'runs': args.runs, 'rows': rows}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
