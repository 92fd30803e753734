"""Memory over many spawn/delete cycles through the simulator API (no ROS).

A fresh process per run and variant loads a scene, then repeats: spawn an entity (loaded from its
file each cycle unless ``--reuse``), step ``--steps`` steps, delete it. Variants, interleaved
within each run so that they share the machine's load:

- ``sim``: the simulator as it is (a deleted spawned body is parked and revived by the next equal
  spawn, ``scene_sim_ros.sim.engines.pybullet.body_pool``);
- ``sim-removebody``: the same with every delete a PyBullet ``removeBody`` (the behaviour before
  the pool; the bench swaps the pool's ``park`` for ``removeBody``);
- ``pybullet``: plain PyBullet, ``createMultiBody`` of a body with as many links (one box shape,
  created once) and ``removeBody``: what PyBullet itself keeps per created body.

Memory is read after ``--warmup`` cycles and again after ``--cycles`` more; the growth per
measured cycle is reported (median of ``--runs`` runs, min and max) as: RSS after
``gc.collect()`` and malloc's bytes in use (``mallinfo2``: PyBullet's C++ heap, Python's large
objects). The warm-up is long because RSS keeps rising for a few hundred cycles
while malloc's bytes in use and Python's block count stay flat: the allocators touch pages of
memory they reserved already (measured with the rover: 2.2 KB/cycle RSS over cycles 100-500,
0.2 over 500-2,000, 0.004 over 2,000-3,000, malloc in use flat from cycle 100).

    python bench/spawn_soak.py [--cycles 1000] [--warmup 500] [--runs 3] [--entity FILE --index N]
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
VARIANTS = ('sim', 'sim-removebody', 'pybullet')

_MEMORY = """
import ctypes, gc, os, sys, time
sys.path.insert(0, {root!r})

class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                'arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost'.split()]

_libc = ctypes.CDLL('libc.so.6')
_libc.mallinfo2.restype = _MallInfo2

def memory_kb():
    gc.collect()
    with open('/proc/self/statm') as f:
        rss = int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024
    info = _libc.mallinfo2()
    return rss, (info.uordblks + info.hblkhd) // 1024

def soak(cycle):
    samples = []
    for _ in range({warmup}):
        cycle()
    samples.append(memory_kb())
    start = time.perf_counter()
    for _ in range({cycles}):
        cycle()
    took = time.perf_counter() - start
    samples.append(memory_kb())
    print('SOAK', *samples[0], *samples[-1], took / {cycles})
"""

_SIMULATOR = """
import dataclasses
import pybullet as pb
from scene_sim_ros import Simulation, load_scene
from scene_sim_ros.resources import default_scene_path

sim = Simulation(load_scene(default_scene_path()))
if {remove_body}:
    sim._pool.park = lambda key, body, fixed: pb.removeBody(body, physicsClientId=sim.client)

def entity():
    loaded = load_scene({entity!r}).entities[{index}]
    return dataclasses.replace(loaded, name='soak')

reused = entity()

def cycle():
    sim.add_entity(reused if {reuse} else entity())
    sim.step({steps})
    sim.remove_entity('soak')

soak(cycle)
"""

_PYBULLET = """
import pybullet as pb
from scene_sim_ros import load_scene

links = len(load_scene({entity!r}).entities[{index}].links) - 1
client = pb.connect(pb.DIRECT)
pb.setGravity(0, 0, -9.81, physicsClientId=client)
pb.createMultiBody(0, pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=client),
                   physicsClientId=client)
box = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[0.05] * 3, physicsClientId=client)

def cycle():
    body = pb.createMultiBody(
        1.0, box, -1, [0, 0, 0.5], linkMasses=[0.1] * links,
        linkCollisionShapeIndices=[box] * links, linkVisualShapeIndices=[-1] * links,
        linkPositions=[[0, 0.12, 0]] * links, linkOrientations=[[0, 0, 0, 1]] * links,
        linkInertialFramePositions=[[0, 0, 0]] * links,
        linkInertialFrameOrientations=[[0, 0, 0, 1]] * links,
        linkParentIndices=list(range(links)), linkJointTypes=[pb.JOINT_REVOLUTE] * links,
        linkJointAxis=[[1, 0, 0]] * links, physicsClientId=client)
    for _ in range({steps}):
        pb.stepSimulation(physicsClientId=client)
    pb.removeBody(body, physicsClientId=client)

soak(cycle)
"""


def entity_path(name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() or path.exists() else EXAMPLES / name


def run_once(args: argparse.Namespace, variant: str) -> dict:
    fields = dict(root=str(ROOT), entity=str(entity_path(args.entity)), index=args.index,
                  cycles=args.cycles, warmup=args.warmup, steps=args.steps, reuse=args.reuse,
                  remove_body=variant == 'sim-removebody')
    body = _PYBULLET if variant == 'pybullet' else _SIMULATOR
    code = (_MEMORY + body).format(**fields)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f'{variant} failed:\n{out.stderr}')
    line = next(line for line in out.stdout.splitlines() if line.startswith('SOAK '))
    values = [float(v) for v in line.split()[1:]]
    before, after, per_cycle_s = values[:2], values[2:4], values[4]
    growth = [(a - b) / args.cycles for a, b in zip(after, before)]
    return dict(rss=growth[0], heap=growth[1], rss_end_kb=after[0], ms=per_cycle_s * 1000)


def median_range(values: list[float]) -> str:
    """A table cell: median [min, max]."""
    return f'{statistics.median(values):.2f} [{min(values):.2f}, {max(values):.2f}]'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cycles', type=int, default=1000, help='measured cycles')
    parser.add_argument('--warmup', type=int, default=500, help='cycles before measuring')
    parser.add_argument('--steps', type=int, default=10)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--entity', default='raisim_rover.urdf',
                        help='scene file: a name in data/examples or a path')
    parser.add_argument('--index', type=int, default=0, help="the entity's index in the file")
    parser.add_argument('--reuse', action='store_true',
                        help='spawn one loaded entity again and again (the simulator alone)')
    parser.add_argument('--variants', nargs='+', choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args()
    results: dict[str, list[dict]] = {variant: [] for variant in args.variants}
    for _ in range(args.runs):
        for variant in args.variants:
            results[variant].append(run_once(args, variant))
    print(f'{Path(args.entity).name} entity {args.index}, {args.cycles} cycles measured after '
          f'{args.warmup}, {args.steps} steps per cycle, '
          f'{"one loaded entity" if args.reuse else "loaded each cycle"}, {args.runs} runs; '
          'growth per cycle in KB, median [min, max]')
    print('| variant | RSS | malloc in use | RSS at end (MB) | time per cycle (ms) |')
    print('|---|---|---|---|---|')
    for variant, rows in results.items():
        print(f'| {variant} | {median_range([r["rss"] for r in rows])} | '
              f'{median_range([r["heap"] for r in rows])} | '
              f'{statistics.median(r["rss_end_kb"] for r in rows) / 1024:.0f} | '
              f'{statistics.median(r["ms"] for r in rows):.1f} |')
    print(json.dumps(dict(entity=args.entity, index=args.index, cycles=args.cycles,
                          reuse=args.reuse, results=results)))


if __name__ == '__main__':
    main()
