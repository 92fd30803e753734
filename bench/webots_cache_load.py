"""Load time of webots_ros2's turtlebot3_burger_example.wbt with its PROTOs from the user cache.

The cache is filled first by ``scene-sim-ros fetch`` from a Webots installation
(``SCENE_SIM_ROS_WEBOTS_HOME`` or ``WEBOTS_HOME``); then each run is a fresh Python process with
no installation and downloads off, so every PROTO comes from the cache (imports excluded).
The same world loaded from the installation is the reference: ``cache_over_installation`` is
the ratio of the medians. Prints a table and one JSON line; medians of ``--runs`` runs.

    SCENE_SIM_ROS_WEBOTS_HOME=/path/to/webots python bench/webots_cache_load.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT.parent / ('shared/corpus/webots/webots_ros2/webots_ros2_turtlebot/worlds/'
                       'turtlebot3_burger_example.wbt')
HOME_VARIABLES = ('SCENE_SIM_ROS_WEBOTS_HOME', 'WEBOTS_HOME')

_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from scene_sim_ros.formats import load_scene
start = time.perf_counter()
scene = load_scene({world!r})
first = time.perf_counter() - start
sources = sorted({{s for s, _ in scene.metadata['webots_protos'].values()}})
robots = sum(e.kind == 'robot' for e in scene.entities)
print(first, robots, ','.join(sources))
"""


def measure_once(env: dict[str, str]) -> tuple[float, int, str]:
    code = _CHILD.format(root=str(ROOT), world=str(WORLD))
    out = subprocess.run([sys.executable, '-c', code], check=True, capture_output=True,
                         text=True, env=env).stdout.split()
    return float(out[0]), int(out[1]), out[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    home = next((os.environ[v] for v in HOME_VARIABLES if os.environ.get(v)), None)
    if home is None or not WORLD.is_file():
        sys.exit('needs the corpus world and a Webots installation (SCENE_SIM_ROS_WEBOTS_HOME)')
    sys.path.insert(0, str(ROOT))
    from scene_sim_ros.formats.webots.fetch import fetch_worlds
    with tempfile.TemporaryDirectory() as cache:
        base = {k: v for k, v in os.environ.items() if k not in HOME_VARIABLES}
        base.update(SCENE_SIM_ROS_OFFLINE='1', SCENE_SIM_ROS_CACHE_DIR=cache)
        if fetch_worlds([WORLD], {'webots.cache_dir': cache, 'webots.home': home},
                        io.StringIO()) != 0:
            sys.exit(f'{WORLD.name} does not load from {home}')
        timings: dict[str, list[float]] = {'cache': [], 'installation': []}
        robots, sources = 0, {}
        for _ in range(max(1, args.runs)):
            for name, env in (('cache', base), ('installation', {**base, 'WEBOTS_HOME': home})):
                seconds, robots, sources[name] = measure_once(env)
                timings[name].append(seconds)
    result = {'world': WORLD.name, 'runs': len(timings['cache']), 'robots': robots,
              'sources': sources,
              'cache_median_s': statistics.median(timings['cache']),
              'cache_max_s': max(timings['cache']),
              'installation_median_s': statistics.median(timings['installation']),
              'cache_over_installation': (statistics.median(timings['cache'])
                                          / statistics.median(timings['installation']))}
    print(f'{"PROTOs from":14} {"median s":>9} {"max s":>8}   ({result["runs"]} runs, '
          f'{WORLD.name})')
    for name in ('cache', 'installation'):
        print(f'{name:14} {statistics.median(timings[name]):9.3f} {max(timings[name]):8.3f}')
    print(json.dumps(result))


if __name__ == '__main__':
    main()
