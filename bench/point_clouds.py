"""Cost of a published point cloud against the reading it is built from, on Game.ros2.

robot1 of the B-Human game (14 NAOs, the field, 770k triangles) gets the sensors of issue 46 on
its head, where its CameraTop is: depth cameras of 320x240 and 640x480 with CameraTop's opening
angles (a colour camera of each size beside them, at the same pose, makes an RGB-D pair), and a
16 x 1800 lidar (VLP-16: 360 x 30 degrees, 0.1-100 m) on its head. Per published cloud, as the
node builds it: the reading (a rendered depth frame; the lidar's ray cast), the points
(``sim.sensors.point_clouds``) and the message (``ros.bridge.point_cloud.fill_point_cloud``);
the colour frame of an RGB-D cloud is read too (rendered with the depth in one GL pass).
Medians of ``--runs`` runs of ``--frames`` frames each, cases interleaved within a run;
ratio = cloud / reading (issue 46's target: a 640x480 cloud costs less than rendering it).

    python bench/point_clouds.py [--runs 5] [--frames 10] [--engines pybullet mujoco]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
from game_scene import GAME, skipped_without_gl  # noqa: E402
from sensor_msgs.msg import PointCloud2  # noqa: E402

from scene_sim_ros.formats import load_scene  # noqa: E402
from scene_sim_ros.ros.bridge.conversions import to_rep117  # noqa: E402
from scene_sim_ros.ros.bridge.point_cloud import fill_point_cloud  # noqa: E402
from scene_sim_ros.scene.model import Scene  # noqa: E402
from scene_sim_ros.scene.sensors import Camera, DepthCamera  # noqa: E402
from scene_sim_ros.sim.engines import create_simulator  # noqa: E402
from scene_sim_ros.sim.sensors.point_clouds import (  # noqa: E402
    LidarCloud,
    Registration,
    registered_cloud,
    sensor_rays,
    unproject,
)
from scene_sim_ros.sim.sensors.rendering import render_cache  # noqa: E402

ROBOT = 'robot1'
SIZES = ((320, 240), (640, 480))
LIDAR = DepthCamera('lidar', '', 1800, 16, 2.0 * math.pi, math.radians(30.0), 0.1, 100.0,
                    'spherical')


def with_cloud_sensors(scene: Scene) -> Scene:
    """Game.ros2 with the benchmark's sensors on robot1's CameraTop link and pose."""
    entities = list(scene.entities)
    index = next(i for i, e in enumerate(entities) if e.name == ROBOT)
    robot = entities[index]
    top = robot.sensor('CameraTop')
    added: list[Camera | DepthCamera] = [replace(LIDAR, link=top.link)]
    for width, height in SIZES:
        added.append(DepthCamera(f'depth{width}', top.link, width, height, top.fov_x, top.fov_y,
                                 0.05, 10.0, pose=top.pose))
        added.append(Camera(f'rgb{width}', top.link, width, height, top.fov_x, top.fov_y,
                            pose=top.pose))
    entities[index] = replace(robot, sensors=robot.sensors + tuple(added))
    return replace(scene, entities=tuple(entities))


def timed(action: Callable[[], object], frames: int) -> float:
    start = time.perf_counter()
    for _ in range(frames):
        action()
    return (time.perf_counter() - start) / frames


def depth_cases(sim, width: int) -> dict[str, Callable[[], object]]:
    depth_reader = sim.reader(ROBOT, f'depth{width}')
    colour_reader = sim.reader(ROBOT, f'rgb{width}')
    s = depth_reader.sensor
    rays = sensor_rays(s)
    registration = Registration.of(s, colour_reader.sensor)
    cache = render_cache(sim)
    message = PointCloud2()
    buffers: dict[str, np.ndarray | None] = {'xyz': None, 'xyzrgb': None}  # as DepthPoints
    depth = to_rep117(np.asarray(depth_reader.read()), s.min_range, s.max_range)

    def render_depth() -> object:
        cache.invalidate()
        return depth_reader.read()

    def render_depth_and_colour() -> object:
        cache.invalidate()
        return depth_reader.read(), colour_reader.read()

    def xyz_cloud() -> object:
        buffers['xyz'] = unproject(depth, rays, buffers['xyz'])
        fill_point_cloud(message, buffers['xyz'], is_dense=False)
        return message

    colour = np.asarray(colour_reader.read())

    def xyzrgb_cloud() -> object:
        buffers['xyzrgb'] = registered_cloud(depth, rays, colour, registration,
                                             buffers['xyzrgb'])
        fill_point_cloud(message, buffers['xyzrgb'], is_dense=False)
        return message

    return {'render depth': render_depth, 'render depth + colour': render_depth_and_colour,
            'xyz cloud': xyz_cloud, 'xyzrgb cloud': xyzrgb_cloud}


def lidar_cases(sim) -> dict[str, Callable[[], object]]:
    reader = sim.reader(ROBOT, 'lidar')
    s = reader.sensor
    builder = LidarCloud(reader)
    message = PointCloud2()
    ranges = to_rep117(np.asarray(reader.read()), s.min_range, s.max_range)
    return {'ray cast': reader.read,
            'xyzirt cloud': lambda: fill_point_cloud(message, builder.points(ranges), True)}


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--frames', type=int, default=10)
    parser.add_argument('--engines', nargs='+', default=['pybullet', 'mujoco'])
    parser.add_argument('--scene', type=Path, default=GAME)
    args = parser.parse_args()
    if skipped_without_gl(args.scene):
        return
    scene = with_cloud_sensors(load_scene(args.scene))
    sims = {engine: create_simulator(scene, engine, renderer='gl') for engine in args.engines}
    for sim in sims.values():
        sim.step()
    first = sims[args.engines[0]]
    rows: list[tuple[str, dict[str, Callable[[], object]], str, str]] = []
    for w, h in SIZES:
        actions = depth_cases(first, w)
        rows.append((f'{w}x{h} depth camera', actions, 'render depth', 'xyz cloud'))
        rows.append((f'{w}x{h} RGB-D pair', actions, 'render depth + colour', 'xyzrgb cloud'))
    for engine, sim in sims.items():
        rows.append((f'16x1800 lidar ({engine})', lidar_cases(sim), 'ray cast', 'xyzirt cloud'))
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs):
        for title, actions, reading, cloud in rows:
            for name in (reading, cloud):
                times.setdefault((title, name), []).append(timed(actions[name], args.frames))
    print(f'Per published cloud, ms (median of {args.runs} runs of {args.frames} frames); '
          f'Game.ros2, renderer gl, load average {os.getloadavg()[0]:.1f} on '
          f'{os.cpu_count()} cores.')
    print()
    print('| sensor | reading | reading ms | cloud | cloud ms | cloud / reading |')
    print('|---|---|---:|---|---:|---:|')
    results: dict[str, object] = {}
    for title, _, reading, cloud in rows:
        reading_ms, cloud_ms = median_ms(times[title, reading]), median_ms(times[title, cloud])
        ratio = cloud_ms / reading_ms
        results[title] = {'reading_ms': round(reading_ms, 3), 'cloud_ms': round(cloud_ms, 3),
                          'ratio': round(ratio, 3)}
        print(f'| {title} | {reading} | {reading_ms:.2f} | {cloud} | {cloud_ms:.2f} | '
              f'{ratio:.2f} |', flush=True)
    for sim in sims.values():
        sim.close()
    print(json.dumps(results))


if __name__ == '__main__':
    main()
