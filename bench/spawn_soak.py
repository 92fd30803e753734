"""Memory over many spawn/delete cycles through the simulator API (no ROS).

A fresh process per run loads a scene, then repeats: spawn an entity (the robot of an example,
loaded from its file each cycle unless ``--reuse``), step ``--steps`` steps, delete it. Resident
memory (current RSS, not the peak) is read after ``--warmup`` cycles and at the end; the growth
per cycle between the two is reported (median of ``--runs`` runs, min and max).

    python bench/spawn_soak.py [--cycles 1000] [--runs 3] [--entity raisim_rover.urdf]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / 'scene_sim_ros' / 'data' / 'examples'

_CHILD = """
import dataclasses, os, sys, time
sys.path.insert(0, {root!r})
from scene_sim_ros import Simulation, load_scene
from scene_sim_ros.resources import default_scene_path

def rss_kb():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024

sim = Simulation(load_scene(default_scene_path()))
def entity():
    loaded = load_scene({entity!r}).entities[0]
    return dataclasses.replace(loaded, name='soak')
reused = entity()
samples = []
start = time.perf_counter()
for cycle in range({cycles}):
    sim.add_entity(reused if {reuse} else entity())
    sim.step({steps})
    sim.remove_entity('soak')
    if cycle + 1 == {warmup}:
        samples.append(rss_kb())
samples.append(rss_kb())
took = time.perf_counter() - start
print('SOAK', samples[0], samples[-1], took / {cycles})
"""


def run_once(args: argparse.Namespace) -> tuple[float, float, float]:
    code = _CHILD.format(root=str(ROOT), entity=str(EXAMPLES / args.entity), cycles=args.cycles,
                         warmup=args.warmup, steps=args.steps, reuse=args.reuse)
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True)
    line = next(line for line in out.stdout.splitlines() if line.startswith('SOAK '))
    before, after, per_cycle_s = (float(v) for v in line.split()[1:])
    growth = (after - before) / (args.cycles - args.warmup)
    return growth, after, per_cycle_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cycles', type=int, default=1000)
    parser.add_argument('--warmup', type=int, default=100)
    parser.add_argument('--steps', type=int, default=10)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--entity', default='raisim_rover.urdf', help='file in data/examples')
    parser.add_argument('--reuse', action='store_true',
                        help='spawn one loaded entity again and again (the simulator alone)')
    args = parser.parse_args()
    results = [run_once(args) for _ in range(args.runs)]
    growth = [r[0] for r in results]
    print('| entity | cycles | steps/cycle | loaded each cycle | RSS growth per cycle (KB, '
          'median [min, max]) | RSS at end (MB) | time per cycle (ms) |')
    print('|---|---|---|---|---|---|---|')
    print(f'| {args.entity} | {args.cycles} | {args.steps} | {not args.reuse} | '
          f'{statistics.median(growth):.2f} [{min(growth):.2f}, {max(growth):.2f}] | '
          f'{statistics.median(r[1] for r in results) / 1024:.0f} | '
          f'{statistics.median(r[2] for r in results) * 1000:.1f} |')
    print(json.dumps(dict(entity=args.entity, cycles=args.cycles, reuse=args.reuse,
                          kb_per_cycle_median=statistics.median(growth),
                          kb_per_cycle=growth,
                          ms_per_cycle=statistics.median(r[2] for r in results) * 1000)))


if __name__ == '__main__':
    main()
