"""GL renderer vs TinyRenderer per frame on Game.ros2 (770k triangles, 14 NAOs).

Both simulations live in one process and are measured interleaved (A/B per run). Each frame
forgets the rendered images (as a physics step does) and renders again: colour, depth and
segmentation of robot1's CameraTop (640x480) and CameraBottom (320x240), colour + depth +
segmentation of one view together, a spectator's view of the whole field, robot1's 2 cameras,
14 cameras (every NAO's CameraTop) and 28 (both cameras of every NAO). Medians over ``--runs``
runs of ``--frames`` frames (TinyRenderer gets one frame per run for 14 and 28 cameras);
ratio = tiny / gl.

    python bench/gl_cameras.py [--runs 5] [--frames 5] [--scene PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from game_scene import GAME, NAO_CAMERAS, naos, skipped_without_gl  # noqa: E402

from scene_sim_ros import Simulation  # noqa: E402
from scene_sim_ros.formats import load_scene  # noqa: E402
from scene_sim_ros.scene import Pose  # noqa: E402
from scene_sim_ros.sim.sensors.rendering import View, render_cache  # noqa: E402

OVERVIEW = View.of(Pose.from_xyz_rpy((-5.5, -3.5, 2.0), (0.0, 0.35, math.atan2(3.5, 5.5))),
                   640, 480, 1.2, 0.95)
"""A spectator's view over the whole field: all 14 NAOs, both goals (robot1's CameraTop sees
only sky in the scene's initial pose)."""


def cameras(sim: Simulation, names: list[tuple[str, str]]) -> list[tuple[View, float, float]]:
    if names == [('overview', '')]:
        return [(OVERVIEW, 0.01, 100.0)]
    views = []
    for entity, sensor in names:
        reader = sim.reader(entity, sensor)
        s = reader.sensor
        views.append((View.of(reader.sensor_pose(), s.width, s.height, s.fov_x, s.fov_y),
                      s.near, s.far))
    return views


def frame_time(sim: Simulation, views, what: str, frames: int) -> float:
    cache = render_cache(sim)
    start = time.perf_counter()
    for _ in range(frames):
        cache.invalidate()
        for view, near, far in views:
            frame = cache.frame(view, near, far, need_mask=what in ('seg', 'all'),
                                need_depth=what in ('depth', 'all'))
            if what in ('depth', 'all'):
                frame.depth()
    return (time.perf_counter() - start) / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--frames', type=int, default=5)
    parser.add_argument('--scene', type=Path, default=GAME)
    args = parser.parse_args()
    if skipped_without_gl(args.scene):
        return
    scene = load_scene(args.scene)
    sims = {name: Simulation(scene, renderer=name) for name in ('gl', 'tiny')}
    robots = naos(scene)
    cases = [('CameraTop 640x480 RGB', [('robot1', 'CameraTop')], 'rgb'),
             ('CameraTop 640x480 depth', [('robot1', 'CameraTop')], 'depth'),
             ('CameraTop 640x480 segmentation', [('robot1', 'CameraTop')], 'seg'),
             ('CameraTop RGB+depth+seg', [('robot1', 'CameraTop')], 'all'),
             ('CameraBottom 320x240 RGB', [('robot1', 'CameraBottom')], 'rgb'),
             ('CameraBottom 320x240 depth', [('robot1', 'CameraBottom')], 'depth'),
             ('CameraBottom 320x240 segmentation', [('robot1', 'CameraBottom')], 'seg'),
             ('field overview 640x480 RGB (14 NAOs in view)', [('overview', '')], 'rgb'),
             ('field overview RGB+depth+seg', [('overview', '')], 'all'),
             ('2 cameras (robot1) RGB', [('robot1', 'CameraTop'), ('robot1', 'CameraBottom')],
              'rgb'),
             (f'{len(robots)} cameras (CameraTop each) RGB', [(r, 'CameraTop') for r in robots],
              'rgb'),
             (f'{2 * len(robots)} cameras RGB',
              [(r, c) for r in robots for c in NAO_CAMERAS], 'rgb')]
    for sim in sims.values():  # first frame: shapes, levels of detail, uploads
        start = time.perf_counter()
        frame_time(sim, cameras(sim, [('robot1', 'CameraTop')]), 'all', 1)
        print(f'first frame {sim is sims["gl"] and "gl" or "tiny"}: '
              f'{time.perf_counter() - start:.2f} s', file=sys.stderr)
    results = {}
    print('Per frame, ms (median of runs); ratio = tiny / gl; load average '
          f'{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.')
    print()
    print('| case | gl ms | tiny ms | ratio |')
    print('|---|---:|---:|---:|')
    for title, names, what in cases:
        views = {name: cameras(sim, names) for name, sim in sims.items()}
        many = len(names) > 2
        times: dict[str, list[float]] = {'gl': [], 'tiny': []}
        for _ in range(args.runs):
            times['gl'].append(frame_time(sims['gl'], views['gl'], what, args.frames))
            times['tiny'].append(frame_time(sims['tiny'], views['tiny'], what,
                                            1 if many else args.frames))
        gl, tiny = (statistics.median(times[k]) * 1e3 for k in ('gl', 'tiny'))
        results[title] = {'gl_ms': round(gl, 2), 'tiny_ms': round(tiny, 2),
                          'ratio': round(tiny / gl, 2),
                          'gl_min_max': [round(min(times['gl']) * 1e3, 2),
                                         round(max(times['gl']) * 1e3, 2)]}
        print(f'| {title} | {gl:.1f} | {tiny:.1f} | {tiny / gl:.1f}x |', flush=True)
    for sim in sims.values():
        sim.close()
    print(json.dumps(results))


if __name__ == '__main__':
    main()
