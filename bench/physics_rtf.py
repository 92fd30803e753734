"""Real-time factor of Game.ros2 physics alone (no rendering, no ROS) for 1, 7 and 14 NAOs, on
every engine side by side.

Usage: ``python bench/physics_rtf.py [SCENE] [--seconds 2] [--runs 5] [--iterations 30]
[--counts 1 7 14] [--engines pybullet mujoco]``

For each robot count the scene keeps the first N NAOs plus every non-robot entity (field, ball,
referee), builds one simulation per engine (``create_simulator``), steps each 0.5 s to settle,
then times ``--seconds`` of simulated time ``--runs`` times, the engines taking turns within
each run (so a load on the machine falls on both). The real-time factor is simulated seconds per
wall-clock second (> 1: faster than real time); the median of the runs is reported, with the
per-NAO cost, and each engine's ratio to the first engine's RTF (median of the per-run ratios).
Motors (servos holding their initial positions) and the sensors' per-step work are part of the
step, as in use. ``--iterations`` sets PyBullet's solver iterations (MuJoCo's are Core3's 50).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from game_scene import GAME

from scene_sim_ros import load_scene
from scene_sim_ros.sim.engines import ENGINES, create_simulator
from scene_sim_ros.sim.simulator import Simulator


def build(scene, engine: str, iterations: int | None) -> Simulator:
    if engine == 'pybullet' and iterations is not None:
        from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
        return Simulation(scene, solver_iterations=iterations)
    return create_simulator(scene, engine)


def rtfs(scene, engines: list[str], seconds: float, runs: int,
         iterations: int | None) -> dict[str, list[float]]:
    """Per engine, the RTF of each run (the engines interleaved)."""
    sims = {engine: build(scene, engine, iterations) for engine in engines}
    factors: dict[str, list[float]] = {engine: [] for engine in engines}
    for sim in sims.values():
        sim.step(round(0.5 / sim.step_length))
    for _ in range(runs):
        for engine, sim in sims.items():
            steps = round(seconds / sim.step_length)
            started = time.perf_counter()
            sim.step(steps)
            factors[engine].append(steps * sim.step_length / (time.perf_counter() - started))
    for sim in sims.values():
        sim.close()
    return factors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=GAME)
    parser.add_argument('--seconds', type=float, default=2.0)
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--iterations', type=int, default=None,
                        help="PyBullet's solver iterations (default: the engine's)")
    parser.add_argument('--counts', type=int, nargs='+', default=[1, 7, 14])
    parser.add_argument('--engines', nargs='+', choices=ENGINES, default=list(ENGINES))
    args = parser.parse_args()
    scene = load_scene(args.scene)
    naos = [e for e in scene.entities if e.kind == 'robot']
    others = [e for e in scene.entities if e.kind != 'robot']
    first = args.engines[0]
    print(f'{args.scene.name}: step {scene.step_length * 1000:.1f} ms, median of {args.runs} '
          f"runs of {args.seconds} s, engines interleaved; ratio: RTF over {first}'s in the "
          'same run')
    print()
    print('| engine | NAOs | RTF median | min | max | ms/step | ms/step/NAO | ratio |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|')
    summary: dict[str, dict[str, object]] = {}
    for count in args.counts:
        chosen = replace(scene, entities=tuple(naos[:count] + others))
        factors = rtfs(chosen, args.engines, args.seconds, args.runs, args.iterations)
        for engine, values in factors.items():
            median = statistics.median(values)
            ms = scene.step_length / median * 1000.0
            ratio = statistics.median(v / b for v, b in zip(values, factors[first]))
            print(f'| {engine} | {count} | {median:.2f} | {min(values):.2f} | {max(values):.2f} '
                  f'| {ms:.3f} | {ms / count:.3f} | {ratio:.2f} |')
            summary[f'{engine}_{count}'] = {'rtf_median': round(median, 3),
                                            'ms_per_step': round(ms, 4),
                                            f'ratio_to_{first}': round(ratio, 3)}
    print(json.dumps(summary))


if __name__ == '__main__':
    main()
