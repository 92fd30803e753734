"""Camera pipeline cost: ``sim.read`` of colour, depth and segmentation images vs bare PyBullet.

For 160x120, 320x240 and 640x480, each sensor type is read through ``Simulation.read`` (render
cache invalidated before every frame, so each read renders) and, interleaved in the same run,
the same view is rendered by a bare ``pybullet.getCameraImage`` with the flags the reader uses.
Each run averages ``--frames`` frames; the table shows medians over ``--runs`` runs (ms/frame,
frames/s) and the overhead ratio sim.read / bare as the median of the runs' own ratios (each run
times both back to back, so the machine's drift between runs cancels).

    python bench/camera_pipeline.py [--renderer tiny|gl] [--runs 9] [--frames 10]

The bare column is always TinyRenderer (with ``--renderer gl`` the ratio is gl / TinyRenderer).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

import pybullet as p

from scene_sim_ros import Simulation
from scene_sim_ros.scene import Box, Collision, Entity, Inertial, Link, Pose, Scene, Sphere, Visual
from scene_sim_ros.scene.sensors import Camera, DepthCamera, SegmentationCamera
from scene_sim_ros.sim.sensors import invalidate_renders
from scene_sim_ros.sim.sensors.rendering import projection_matrix, view_matrix

RESOLUTIONS = ((160, 120), (320, 240), (640, 480))
FOV_X, FOV_Y = math.radians(60), math.radians(47)
CAMERA_POSE = Pose.from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.35, 0.0))
HOST_POSE = Pose((-2.0, 0.0, 1.2))


def static(name: str, shape, position, color) -> Entity:
    link = Link('base', collisions=(Collision(shape),), visuals=(Visual(shape, color=color),))
    return Entity(name, 'static', (link,), pose=Pose(position), fixed_base=True)


def bench_scene() -> Scene:
    sensors = []
    for w, h in RESOLUTIONS:
        sensors += [Camera(f'color{w}', 'base', w, h, FOV_X, FOV_Y, pose=CAMERA_POSE),
                    DepthCamera(f'depth{w}', 'base', w, h, FOV_X, FOV_Y, 0.05, 20.0,
                                pose=CAMERA_POSE),
                    SegmentationCamera(f'segmentation{w}', 'base', w, h, FOV_X, FOV_Y,
                                       pose=CAMERA_POSE)]
    host = Entity('host', 'robot', (Link('base', Inertial(mass=1.0)),), sensors=tuple(sensors),
                  pose=HOST_POSE, fixed_base=True)
    entities = [host, static('floor', Box((10.0, 10.0, 0.1)), (0.0, 0.0, -0.05),
                             (0.2, 0.6, 0.2, 1.0))]
    for i in range(12):
        angle = i * math.pi / 6
        position = (1.5 * math.cos(angle), 1.5 * math.sin(angle), 0.25)
        shape = Sphere(0.25) if i % 2 else Box((0.4, 0.4, 0.5))
        entities.append(static(f'thing{i}', shape, position, (i / 12, 0.3, 1 - i / 12, 1.0)))
    return Scene('camera bench', tuple(entities), background=(0.5, 0.6, 0.8, 1.0))


def build(renderer: str) -> Simulation:
    scene = bench_scene()
    sim = Simulation(Scene('empty', ()), renderer=renderer)
    used = sim.rendering.policy  # the simulation holds the renderer it was made with
    sim.scene = scene
    for entity in scene.entities:
        sim.add_entity(entity)
    print(f'renderer: {used}')
    return sim


def per_frame(action: Callable[[], object], frames: int) -> float:
    start = time.perf_counter()
    for _ in range(frames):
        action()
    return (time.perf_counter() - start) / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--renderer', default='tiny', choices=('tiny', 'gl'))
    parser.add_argument('--runs', type=int, default=9)
    parser.add_argument('--frames', type=int, default=10)
    args = parser.parse_args()
    sim = build(args.renderer)
    flag = p.ER_TINY_RENDERER
    pose = sim.link_world_pose('host', 'base') * CAMERA_POSE
    print(f'{"sensor":<18}{"sim.read ms":>12}{"fps":>8}{"bare ms":>10}{"fps":>8}{"ratio":>8}')
    for w, h in RESOLUTIONS:
        for kind, near, far, mask in (('color', 0.01, 100.0, False), ('depth', 0.01, 20.0, False),
                                      ('segmentation', 0.01, 100.0, True)):
            name = f'{kind}{w}'
            flags = (p.ER_SEGMENTATION_MASK_OBJECT_AND_LINKINDEX if mask
                     else p.ER_NO_SEGMENTATION_MASK)
            view, proj = view_matrix(pose), projection_matrix(FOV_X, FOV_Y, near, far)

            def read(name: str = name) -> object:
                invalidate_renders(sim)
                return sim.read('host', name)

            def bare(flags: int = flags, view=view, proj=proj, w: int = w, h: int = h) -> object:
                return p.getCameraImage(w, h, view, proj, renderer=flag, flags=flags,
                                        physicsClientId=sim.client)

            read(), bare()  # warm up
            ours, theirs = [], []
            for _ in range(args.runs):  # interleaved A/B
                ours.append(per_frame(read, args.frames))
                theirs.append(per_frame(bare, args.frames))
            a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
            ratio = statistics.median(x / y for x, y in zip(ours, theirs))
            print(f'{f"{kind} {w}x{h}":<18}{a:>12.2f}{1e3 / a:>8.1f}{b:>10.2f}{1e3 / b:>8.1f}'
                  f'{ratio:>8.2f}')
    sim.close()


if __name__ == '__main__':
    main()
