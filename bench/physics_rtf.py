"""Real-time factor of Game.ros2 physics alone (no rendering, no ROS) for 1, 7 and 14 NAOs.

Usage: ``python bench/physics_rtf.py [SCENE] [--seconds 2] [--runs 5] [--iterations 50]``

For each robot count the scene keeps the first N NAOs plus every non-robot entity (field, ball,
referee), builds a :class:`~scene_sim_ros.Simulation`, steps 0.5 s to settle, then times
``--seconds`` of simulated time ``--runs`` times. The real-time factor is simulated seconds per
wall-clock second (> 1: faster than real time); the median of the runs is reported, with the
per-NAO cost. Motors (servos holding their initial positions) are part of the step, as in use.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from scene_sim_ros import Simulation, load_scene

GAME = (Path(__file__).resolve().parents[2] / 'shared' / 'corpus' / 'simrobot' /
        'BHumanCodeRelease' / 'Config' / 'Scenes' / 'Game.ros2')


def rtf(scene, seconds: float, runs: int, iterations: int) -> list[float]:
    sim = Simulation(scene, solver_iterations=iterations)
    sim.step(round(0.5 / sim.step_length))
    steps = round(seconds / sim.step_length)
    factors = []
    for _ in range(runs):
        started = time.perf_counter()
        sim.step(steps)
        factors.append(steps * sim.step_length / (time.perf_counter() - started))
    sim.close()
    return factors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=GAME)
    parser.add_argument('--seconds', type=float, default=2.0)
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--iterations', type=int, default=None,
                        help='solver iterations (default: the Simulation default)')
    parser.add_argument('--counts', type=int, nargs='+', default=[1, 7, 14])
    args = parser.parse_args()
    scene = load_scene(args.scene)
    naos = [e for e in scene.entities if e.kind == 'robot']
    others = [e for e in scene.entities if e.kind != 'robot']
    from scene_sim_ros.sim.engines.pybullet.simulation import DEFAULT_SOLVER_ITERATIONS
    iterations = args.iterations or DEFAULT_SOLVER_ITERATIONS
    print(f'{args.scene.name}: step {scene.step_length * 1000:.1f} ms, {iterations} solver '
          f'iterations, median of {args.runs} runs of {args.seconds} s')
    print(f'{"NAOs":>5} {"RTF median":>11} {"min":>7} {"max":>7} {"ms/step":>8} {"ms/step/NAO":>12}')
    for count in args.counts:
        chosen = replace(scene, entities=tuple(naos[:count] + others))
        factors = rtf(chosen, args.seconds, args.runs, iterations)
        median = statistics.median(factors)
        ms = scene.step_length / median * 1000.0
        print(f'{count:>5} {median:>11.2f} {min(factors):>7.2f} {max(factors):>7.2f} '
              f'{ms:>8.2f} {ms / count:>12.2f}')


if __name__ == '__main__':
    main()
