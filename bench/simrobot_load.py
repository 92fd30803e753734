"""Load time of B-Human's Game.ros2 (14 NAOs from a 2.6 MB include) with the SimRobot loader.

cold: a fresh Python process per run (imports excluded, file cache empty);
warm: the same process loading the scene a second time (parsed files and meshes cached).
Prints a table and one JSON line; medians of ``--runs`` runs (default 5).

    python bench/simrobot_load.py [SCENE] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCENE = ROOT.parent / 'shared/corpus/simrobot/BHumanCodeRelease/Config/Scenes/Game.ros2'

_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from scene_sim_ros.formats import load_scene
start = time.perf_counter()
scene = load_scene({scene!r})
first = time.perf_counter() - start
start = time.perf_counter()
load_scene({scene!r})
second = time.perf_counter() - start
print(first, second, len(scene.entities))
"""


def measure_once(scene: Path) -> tuple[float, float, int]:
    code = _CHILD.format(root=str(ROOT), scene=str(scene))
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, text=True)
    first, second, entities = out.stdout.split()
    return float(first), float(second), int(entities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('scene', nargs='?', type=Path, default=DEFAULT_SCENE)
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    if not args.scene.is_file():
        sys.exit(f'scene not found: {args.scene}')
    cold, warm = [], []
    entities = 0
    for _ in range(max(1, args.runs)):
        first, second, entities = measure_once(args.scene)
        cold.append(first)
        warm.append(second)
    result = {'scene': str(args.scene), 'runs': len(cold), 'entities': entities,
              'cold_median_s': statistics.median(cold), 'warm_median_s': statistics.median(warm),
              'cold_min_s': min(cold), 'warm_min_s': min(warm),
              'warm_over_cold': statistics.median(warm) / statistics.median(cold)}
    print(f'{"load":6} {"median s":>9} {"min s":>8}   ({result["runs"]} runs, '
          f'{entities} entities, {args.scene.name})')
    print(f'{"cold":6} {result["cold_median_s"]:9.3f} {result["cold_min_s"]:8.3f}')
    print(f'{"warm":6} {result["warm_median_s"]:9.3f} {result["warm_min_s"]:8.3f}')
    print(json.dumps(result))


if __name__ == '__main__':
    main()
