"""The B-Human game simulated with all 28 NAO cameras at 30 Hz, no ROS: the real-time factor of
the physics loop with every frame rendered and read (issue 47, item 4: the same code on a GPU).

Game.ros2, each NAO's CameraTop (640x480) and CameraBottom (320x240), colour, renderer 'gl'. The
loop steps the physics (the scene's step) and, after each step at which the cameras are due (30
Hz of sim time, all in the same step as in the node), renders them and reads each image into the
array a camera adapter publishes. Ways of running, interleaved within each run:

- **physics**: no camera read (the ceiling);
- **batched**: ``render_together`` (one batch of viewports), then each read: what the node does;
- **one at a time**: each read renders its own view.

RTF = simulated seconds / wall seconds, medians of ``--runs`` runs of ``--seconds`` simulated
seconds each; the frames read per second of wall time follow. ``GL_RENDERER`` names what drew:
Mesa llvmpipe on the CPU, the GPU's name on one. No rclpy: the same script runs where only the
engine, moderngl and EGL are installed (a GPU machine's own Python).

``--images OUT.npz`` saves the 28 images of the scene's start (before the first step, so the same
on every machine and engine); ``--compare-with OTHER.npz`` prints how far they are from another
machine's (a GPU's against llvmpipe's).

    python bench/vision_rtf.py [--runs 3] [--seconds 2] [--engine pybullet|mujoco] [--scene PATH]
                               [--images OUT.npz] [--compare-with OTHER.npz]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
from game_scene import GAME, NAO_CAMERAS, naos, skipped_without_gl  # noqa: E402

from scene_sim_ros import create_simulator, load_scene  # noqa: E402
from scene_sim_ros.sim.render.context import gl_current  # noqa: E402
from scene_sim_ros.sim.sensors.cameras import render_together  # noqa: E402

RATE = 30.0
"""Hz of sim time, each NAO camera's rate in the node."""


def batched(readers: list[Any]) -> None:
    render_together(readers)
    for reader in readers:
        reader.read()


def one_at_a_time(readers: list[Any]) -> None:
    for reader in readers:
        reader.read()


def no_cameras(readers: list[Any]) -> None:
    pass


WAYS: dict[str, Callable[[list[Any]], None]] = {
    'physics': no_cameras, 'batched': batched, 'one at a time': one_at_a_time}


def run(sim: Any, readers: list[Any], way: Callable[[list[Any]], None],
        seconds: float) -> tuple[float, float]:
    """Simulate ``seconds`` with the cameras read ``way`` when due: (RTF, frames read per wall
    second)."""
    start_time = sim.time
    next_due = start_time
    frames = 0
    started = time.perf_counter()
    while sim.time - start_time < seconds:
        sim.step()
        if sim.time >= next_due - 1e-9:
            way(readers)
            frames += len(readers) if way is not no_cameras else 0
            next_due += 1.0 / RATE
    wall = time.perf_counter() - started
    return (sim.time - start_time) / wall, frames / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--seconds', type=float, default=2.0)
    parser.add_argument('--engine', default='pybullet')
    parser.add_argument('--scene', type=Path, default=GAME)
    parser.add_argument('--images', type=Path, help='save the start images here (.npz)')
    parser.add_argument('--compare-with', type=Path, help="another machine's --images file")
    args = parser.parse_args()
    if skipped_without_gl(args.scene):
        return
    scene = load_scene(args.scene)
    sim = create_simulator(scene, args.engine, renderer='gl')
    readers = [sim.reader(robot, camera) for robot in naos(scene) for camera in NAO_CAMERAS]
    batched(readers)  # uploads, levels of detail, the framebuffer
    start_images = {f'{r.entity}_{r.sensor.name}': r.read().copy() for r in readers}
    if args.images:
        np.savez_compressed(args.images, **start_images)
    if args.compare_with:
        compare(start_images, args.compare_with)
    with gl_current() as ctx:  # moderngl caches ``info`` at its first read: only when current
        info = dict(ctx.info)
    sim.step()
    one_at_a_time(readers)
    rtf: dict[str, list[float]] = {name: [] for name in WAYS}
    fps: dict[str, list[float]] = {name: [] for name in WAYS}
    for _ in range(args.runs):
        for name, way in WAYS.items():
            factor, frame_rate = run(sim, readers, way, args.seconds)
            rtf[name].append(factor)
            fps[name].append(frame_rate)
    sim.close()
    report(args, info, len(readers), rtf, fps)


def compare(images: dict[str, np.ndarray], path: Path) -> None:
    """Per image: the mean over pixels of the largest channel difference, and the share of pixels
    differing by more than 16 of 255."""
    other = np.load(path)
    mean, share = [], []
    for name, image in images.items():
        diff = np.abs(image.astype(np.int16) - other[name].astype(np.int16)).max(axis=2)
        mean.append(float(diff.mean()))
        share.append(float((diff > 16).mean()))
    print(f'against {path.name}: {len(images)} images; mean difference median '
          f'{statistics.median(mean):.2f}, largest {max(mean):.2f} of 255; pixels off by more '
          f'than 16: median {statistics.median(share):.2%}, largest {max(share):.2%}')


def report(args: argparse.Namespace, info: dict[str, Any], cameras: int,
           rtf: dict[str, list[float]], fps: dict[str, list[float]]) -> None:
    renderer = f"{info.get('GL_RENDERER', '?')} ({info.get('GL_VENDOR', '?')})"
    print(f'Game.ros2, {cameras} cameras at {RATE:g} Hz of sim time, every frame rendered and '
          f'read; engine {args.engine}; GL_RENDERER {renderer}; medians of {args.runs} runs of '
          f'{args.seconds:g} simulated s; {os.cpu_count()} cores, load average '
          f'{os.getloadavg()[0]:.1f}.')
    print()
    print('| cameras | RTF (min-max) | frames read / wall s | of physics alone |')
    print('|---|---:|---:|---:|')
    physics = statistics.median(rtf['physics'])
    for name in WAYS:
        median = statistics.median(rtf[name])
        print(f'| {name} | {median:.2f} ({min(rtf[name]):.2f}-{max(rtf[name]):.2f}) | '
              f'{statistics.median(fps[name]):.0f} | {median / physics:.2f} |')
    print(json.dumps({
        'gl_renderer': info.get('GL_RENDERER'), 'gl_vendor': info.get('GL_VENDOR'),
        'engine': args.engine, 'cameras': cameras, 'cpu_count': os.cpu_count(),
        'rtf': {name: round(statistics.median(v), 3) for name, v in rtf.items()},
        'rtf_runs': {name: [round(x, 3) for x in v] for name, v in rtf.items()},
        'frames_per_wall_second': {name: round(statistics.median(v), 1)
                                   for name, v in fps.items()},
    }))


if __name__ == '__main__':
    main()
