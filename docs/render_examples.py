"""Render a picture of each shipped example scene into docs/images/<example>.png (for README).

    ./dev.sh exec python docs/render_examples.py            # every example and the default scene
    ./dev.sh exec python docs/render_examples.py car arm    # some of them

Uses the project's own pipeline, no ROS: ``load_scene`` -> ``Simulation`` (PyBullet DIRECT) ->
the image sensors' render cache (:mod:`scene_sim_ros.sim.sensors.rendering`, the scene's light
and background colour). Each scene runs :data:`SETTLE_SECONDS` of sim time first, then a camera
looks at the first robot from the front-left and above, far enough away to show the robot whole.
Rendered with TinyRenderer (deterministic on every machine); PNGs are written with zlib alone.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pybullet as p

from scene_sim_ros import Simulation, load_scene
from scene_sim_ros.images import encode_png
from scene_sim_ros.resources import default_scene_path, example_names, example_path
from scene_sim_ros.scene.transforms import Pose, quat_from_rpy
from scene_sim_ros.sim.sensors.rendering import View, render_cache

OUT_DIR = Path(__file__).resolve().parent / 'images'
WIDTH, HEIGHT = 480, 320
FOV_Y = math.radians(40.0)
SETTLE_SECONDS = 0.5
AZIMUTH = math.radians(35.0)
"""Camera direction relative to the robot's heading (0: straight ahead of it)."""
ELEVATION = math.radians(28.0)


def scenes() -> dict[str, Path]:
    """name -> file of every shipped example, and the bundled default scene."""
    found = {name: example_path(name) for name in example_names()}
    found['default'] = default_scene_path()
    return found


def robot_bounds(sim: Simulation) -> tuple[np.ndarray, np.ndarray, float]:
    """(AABB min, AABB max, heading yaw) of the first robot (of all non-static entities without
    one; of everything as a last resort)."""
    entities = sim.scene.entities
    chosen = ([e for e in entities if e.kind == 'robot'][:1]
              or [e for e in entities if e.kind == 'object'] or list(entities))
    lows, highs = [], []
    for entity in chosen:
        body = sim.body_id(entity.name)
        for link in range(-1, p.getNumJoints(body, physicsClientId=sim.client)):
            low, high = p.getAABB(body, link, physicsClientId=sim.client)
            lows.append(low)
            highs.append(high)
    _, quat = sim.get_pose(chosen[0].name)
    x, y, z, w = quat
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return np.min(lows, axis=0), np.max(highs, axis=0), yaw


def camera_pose(low: np.ndarray, high: np.ndarray, yaw: float) -> Pose:
    """A camera (x forward) looking at the box centre from front-left, above, the box in view."""
    centre = (low + high) / 2.0
    radius = max(float(np.linalg.norm(high - low)) / 2.0, 0.15)
    distance = 1.25 * radius / math.sin(FOV_Y / 2.0)
    heading = yaw + AZIMUTH
    direction = np.array([math.cos(ELEVATION) * math.cos(heading),
                          math.cos(ELEVATION) * math.sin(heading), math.sin(ELEVATION)])
    eye = centre + distance * direction
    # look back at the centre: yaw opposite the direction, pitch down by the elevation
    orientation = quat_from_rpy(0.0, ELEVATION, heading + math.pi)
    return Pose(tuple(float(v) for v in eye), orientation)


def render(path: Path) -> np.ndarray:
    """HxWx3 uint8 picture of the scene at ``path``."""
    # the default renderer (gl where EGL works: Phong-lit surfaces, as SimRobot shows them)
    with Simulation(load_scene(path)) as sim:
        sim.step(max(1, round(SETTLE_SECONDS / sim.step_length)))
        pose = camera_pose(*robot_bounds(sim))
        fov_x = 2.0 * math.atan(math.tan(FOV_Y / 2.0) * WIDTH / HEIGHT)
        frame = render_cache(sim).frame(View.of(pose, WIDTH, HEIGHT, fov_x, FOV_Y), 0.02, 200.0)
        return frame.rgb.copy()


def main(argv: list[str]) -> int:
    available = scenes()
    names = argv or list(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        print(f'unknown: {", ".join(unknown)}; known: {", ".join(available)}', file=sys.stderr)
        return 2
    OUT_DIR.mkdir(exist_ok=True)
    for name in names:
        out = OUT_DIR / f'{name}.png'
        out.write_bytes(encode_png(render(available[name])))
        print(f'{out.relative_to(OUT_DIR.parent.parent)}: {out.stat().st_size // 1024} KB')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
