"""Digests of simulated trajectories, to show that a refactoring changed no number.

Usage: ``python bench/trajectories.py [--seconds 2] [--engine pybullet] [--save FILE | --compare FILE]``

For Game.ros2 (14 NAOs) and every example scene, builds a simulation in ``--engine`` (seed 0),
commands every joint of every entity to a fixed sine-shaped target (so that servos, wheels and
contacts all move), steps ``--seconds`` of simulated time and hashes, after every step, the world
pose of every link and the state of every joint as raw float64 bytes (SHA-256).
The same digest before and after a change means bit-identical trajectories. ``--save`` writes
the digests as JSON; ``--compare`` reads such a file and exits 1 naming each scene that differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import struct
import sys
from pathlib import Path

from game_scene import GAME

from scene_sim_ros import load_scene
from scene_sim_ros.errors import CommandError
from scene_sim_ros.resources import example_names, example_path
from scene_sim_ros.sim.engines import ENGINES, create_simulator
from scene_sim_ros.sim.simulator import Simulator


def scenes() -> dict[str, Path]:
    found = {'Game.ros2': GAME} if GAME.is_file() else {}
    found.update((name, example_path(name)) for name in example_names())
    return found


def command(sim: Simulator, entity: str, joint: str, target: float) -> None:
    """A position target where the joint has a servo, else an effort; neither for a passive one."""
    for value in ({'position': target}, {'effort': target}):
        try:
            sim.command(entity, joint, **value)
            return
        except CommandError:
            continue


def digest(path: Path, seconds: float, engine: str = ENGINES[0]) -> str:
    sim = create_simulator(load_scene(path), engine, seed=0)
    sha = hashlib.sha256()
    joints = {name: list(sim.joint_states(name)) for name in sim.entity_names()}
    for step in range(round(seconds / sim.step_length)):
        target = 0.3 * math.sin(2 * math.pi * step * sim.step_length)
        for entity, names in joints.items():
            for joint in names:
                command(sim, entity, joint, target)
        sim.step()
        for entity in sim.entity_names():
            for link, pose in sorted(sim.link_poses(entity).items()):
                sha.update(link.encode())
                sha.update(struct.pack('<7d', *pose.position, *pose.orientation))
            for joint, state in sorted(sim.joint_states(entity).items()):
                sha.update(joint.encode())
                sha.update(struct.pack('<3d', *state))
    sim.close()
    return sha.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=2.0)
    parser.add_argument('--engine', choices=ENGINES, default=ENGINES[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument('--save', type=Path)
    group.add_argument('--compare', type=Path)
    args = parser.parse_args()
    digests = {}
    for name, path in scenes().items():
        digests[name] = digest(path, args.seconds, args.engine)
        print(f'{name:28s} {digests[name]}', flush=True)
    if args.save:
        args.save.write_text(json.dumps(digests, indent=1) + '\n')
    if args.compare:
        before = json.loads(args.compare.read_text())
        differing = [name for name in before if digests.get(name) != before[name]]
        for name in differing:
            print(f'DIFFERS: {name}')
        print('identical' if not differing else f'{len(differing)} scene(s) differ')
        return 1 if differing else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
