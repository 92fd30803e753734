"""Where a round of the B-Human game's 28 NAO camera frames goes (issue 47, item 1).

One round: every NAO's CameraTop (640x480) and CameraBottom (320x240) of Game.ros2 read as the
node's camera adapter reads them (colour only, renderer 'gl', engine pybullet), each turned into
a ``sensor_msgs/Image`` (``fill_image``) and serialized as a DDS write serializes it
(``rclpy.serialization.serialize_message``, no node). Before each round the render cache is
invalidated as after a physics step.

Ways of running the same round, interleaved within each run:

- **plain**: one view at a time (``CameraReader.read`` -> ``fill_image`` ->
  ``serialize_message``), no timers inside: the honest total.
- **batched**: what the node does with the cameras due in a step: ``render_together`` draws
  all 28 views as one batch (viewports of one framebuffer), then each is read from the cache,
  filled and serialized.
- **instrumented**: the renderer's steps (``GlRenderer._render`` / ``_draw``, ``_read_rgb``,
  ``CameraReader.read``) called one by one with a timer around each. GL is asynchronous (Mesa
  llvmpipe: vertex shading, clipping and binning run in the calling thread inside each draw
  call, rasterisation and fragment shading in its worker threads at the flush), so every phase
  that issues GL work ends with ``ctx.finish()`` and is charged with what the GPU did for it;
  the readback then measures the copy, not the stall. Its total next to the plain one shows
  what the finishes and timers cost. Its images are checked byte for byte against the
  production path's before timing.
- **instrumented, 1x1 viewport**: the same draws (same matrices, culling, levels) into a 1x1
  framebuffer: what is left of the draw phases is vertex work; the difference to the full size
  is pixel fill.

Also counted per round: draw calls, instances and triangles drawn per level of detail, NAO
geometry against the rest (field, goals). Medians of ``--runs`` runs of ``--rounds`` rounds.

    python bench/vision_round.py [--runs 5] [--rounds 5] [--scene PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
from game_scene import GAME, NAO_CAMERAS, naos, skipped_without_gl  # noqa: E402

from scene_sim_ros import Simulation  # noqa: E402
from scene_sim_ros.formats import load_scene  # noqa: E402
from scene_sim_ros.sim.render.context import gl_current  # noqa: E402
from scene_sim_ros.sim.sensors.cameras import render_together  # noqa: E402
from scene_sim_ros.sim.sensors.noise import add_color_noise  # noqa: E402
from scene_sim_ros.sim.sensors.rendering import (  # noqa: E402
    View,
    projection_matrix,
    view_matrix,
)

ISSUE_BASELINE_MS = 134.0
"""A round of the 28 frames one at a time when issue 47 was filed (its "today")."""
PHASES = (
    ('poses', 'scene poses from the engine (once per round)'),
    ('camera', 'camera pose, view/projection matrices (CPU)'),
    ('cull', 'culling, LOD choice, instance rows (CPU)'),
    ('state', 'GL state changes + uniform uploads'),
    ('clear', 'clear of colour, depth, id, z attachments (fill)'),
    ('background', 'background pass, full-screen triangle (fill)'),
    ('upload', 'instance uploads (per shape and level)'),
    ('submit', 'draw calls (llvmpipe: vertex shading, binning)'),
    ('raster', 'rasterisation + fragment shading (finish)'),
    ('readback', 'readback (fbo.read RGB)'),
    ('numpy', 'to the published array (flip, copy)'),
    ('image', 'sensor_msgs/Image (fill_image)'),
    ('serialize', 'serialize_message (DDS write)'),
)


class Phases:
    """Seconds per phase; :meth:`lap` charges the time since the last lap to ``phase``,
    after finishing the GL work issued in it where ``gl`` is true."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.seconds: dict[str, float] = defaultdict(float)
        self.last = time.perf_counter()

    def lap(self, phase: str, gl: bool = False) -> None:
        if gl:
            self.ctx.finish()
        now = time.perf_counter()
        self.seconds[phase] += now - self.last
        self.last = now


class Counts:
    """Draw calls, instances and triangles per level of detail, NAO geometry or the rest."""

    def __init__(self, nao_bodies: set[int]) -> None:
        self.nao_bodies = nao_bodies
        self.calls = 0
        self.triangles: dict[tuple[str, int], int] = defaultdict(int)
        self.instances: dict[tuple[str, int], int] = defaultdict(int)

    def add(self, rows: np.ndarray, level: int, triangles_each: int) -> None:
        self.calls += 1
        bodies = (rows['id'] - 1) & 0xFFFFFF
        nao = int(np.isin(bodies, list(self.nao_bodies)).sum())
        for kind, count in (('NAO', nao), ('rest', len(rows) - nao)):
            self.instances[(kind, level)] += count
            self.triangles[(kind, level)] += count * triangles_each


def serializer() -> Any:
    from rclpy.serialization import serialize_message
    return serialize_message


def plain_round(readers: list[Any], messages: list[Any]) -> float:
    from scene_sim_ros.ros.bridge.conversions import fill_image
    serialize = serializer()
    start = time.perf_counter()
    readers[0].cache.invalidate()
    for reader, message in zip(readers, messages):
        fill_image(message, reader.read())
        serialize(message)
    return time.perf_counter() - start


def batched_round(readers: list[Any], messages: list[Any]) -> float:
    """The same round with the frames rendered as one batch first (``render_together``, what
    the node does with every camera due in a step), then read, filled and serialized."""
    from scene_sim_ros.ros.bridge.conversions import fill_image
    serialize = serializer()
    start = time.perf_counter()
    readers[0].cache.invalidate()
    render_together(readers)
    for reader, message in zip(readers, messages):
        fill_image(message, reader.read())
        serialize(message)
    return time.perf_counter() - start


def instrumented_round(readers: list[Any], messages: list[Any], counts: Counts | None = None,
                       tiny_viewport: bool = False) -> tuple[dict[str, float], list[Any]]:
    """One round through the renderer's steps, timed (see the module docstring)."""
    from scene_sim_ros.ros.bridge.conversions import fill_image
    serialize = serializer()
    gl = readers[0].cache.gl
    readers[0].cache.invalidate()
    phases = Phases(gl.ctx)
    images = []
    for reader, message in zip(readers, messages):
        with gl_current():
            s = reader.sensor
            pose = reader.sensor_pose()
            view = View.of(pose, s.width, s.height, s.fov_x, s.fov_y)
            pose_view = view_matrix(pose)
            projection = projection_matrix(s.fov_x, s.fov_y, s.near, s.far)
            eye = np.asarray(view.pose[:3])
            phases.lap('camera')
            draw_list, world = gl._world_matrices()
            phases.lap('poses')
            fbo = gl._framebuffer(*((1, 1) if tiny_viewport else (s.width, s.height)))
            draws = gl.visible_draws(draw_list, world, pose_view, projection, eye, s.height,
                                 s.fov_y)
            phases.lap('cull')
            fbo.use()
            phases.lap('state', gl=True)
            fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
            phases.lap('clear', gl=True)
            gl.ctx.disable(gl.ctx.DEPTH_TEST | gl.ctx.CULL_FACE)
            gl._background['background'].value = tuple(
                float(min(1.0, max(0.0, c))) for c in gl._sim.scene.background[:3])
            phases.lap('state', gl=True)
            gl._background_vao.render()
            phases.lap('background', gl=True)
            gl.ctx.enable(gl.ctx.DEPTH_TEST | gl.ctx.CULL_FACE)
            uniforms = gl.pass_uniforms()
            uniforms.set_camera(pose_view, projection, eye, s.width, s.height)
            phases.lap('state', gl=True)
            draw(gl, draws, uniforms, phases, counts)
            if tiny_viewport:
                continue
            pixels = _read_rgb_bytes(fbo)
            phases.lap('readback')
            rgb = np.ascontiguousarray(
                np.frombuffer(pixels, dtype=np.uint8).reshape(s.height, s.width, 3)[::-1])
            image = add_color_noise(reader.sim.rng, rgb.copy(), s.noise)  # CameraReader.read
            phases.lap('numpy')
        fill_image(message, image)
        phases.lap('image')
        serialize(message)
        phases.lap('serialize')
        images.append(image)
    return phases.seconds, images


def _read_rgb_bytes(fbo: Any) -> Any:
    """What :func:`renderer._read_rgb` reads, before its conversion to an array."""
    return fbo.read(components=3, attachment=0, alignment=1)


def draw(gl: Any, draws: list[Any], uniforms: Any, phases: Phases,
         counts: Counts | None) -> None:
    """``GlRenderer._draw``'s loop, uploads and draw calls (with their programs' uniforms)
    timed apart, then the finish."""
    upload = 0.0
    for d in draws:
        started = time.perf_counter()
        gl.upload(d)
        upload += time.perf_counter() - started
        gl.submit(d, uniforms)
        if counts is not None:
            counts.add(d.rows, d.level, len(d.shape.levels[d.level].triangles.indices))
    phases.lap('submit')
    phases.seconds['submit'] -= upload
    phases.seconds['upload'] += upload
    phases.lap('raster', gl=True)


def check_instrumented(readers: list[Any], messages: list[Any]) -> None:
    """The instrumented round must draw what the production path draws, byte for byte."""
    readers[0].cache.invalidate()
    expected = [reader.read().copy() for reader in readers]
    _, images = instrumented_round(readers, messages)
    for reader, want, got in zip(readers, expected, images):
        if not np.array_equal(want, got):
            raise SystemExit(f'instrumented image of {reader.entity}/{reader.sensor.name} '
                             'differs from the production path')


def median_phases(samples: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(s.get(key, 0.0) for s in samples) for key, _ in PHASES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--scene', type=Path, default=GAME)
    args = parser.parse_args()
    if skipped_without_gl(args.scene):
        return
    from sensor_msgs.msg import Image

    scene = load_scene(args.scene)
    sim = Simulation(scene, renderer='gl')  # the PyBullet engine
    robots = naos(scene)
    readers = [sim.reader(robot, camera) for robot in robots for camera in NAO_CAMERAS]
    messages = [Image() for _ in readers]
    nao_bodies = {b for b in range(4096) if sim.entity_of_body(b) in set(robots)}
    start = time.perf_counter()
    check_instrumented(readers, messages)  # also the first frame: uploads, levels of detail
    print(f'first round + check: {time.perf_counter() - start:.2f} s', file=sys.stderr)
    counts = Counts(nao_bodies)
    instrumented_round(readers, messages, counts)
    plain, batched, instrumented, tiny = [], [], [], []
    for _ in range(args.runs):
        plain.append(statistics.mean(plain_round(readers, messages)
                                     for _ in range(args.rounds)))
        batched.append(statistics.mean(batched_round(readers, messages)
                                       for _ in range(args.rounds)))
        rounds = [instrumented_round(readers, messages)[0] for _ in range(args.rounds)]
        instrumented.append(median_phases(rounds))
        rounds = [instrumented_round(readers, messages, tiny_viewport=True)[0]
                  for _ in range(args.rounds)]
        tiny.append(median_phases(rounds))
    sim.close()
    report(len(readers), plain, batched, median_phases(instrumented), median_phases(tiny),
           counts)


def report(frames: int, plain: list[float], batched: list[float], phases: dict[str, float],
           tiny: dict[str, float], counts: Counts) -> None:
    total = sum(phases.values())
    plain_ms = statistics.median(plain) * 1e3
    batched_ms = statistics.median(batched) * 1e3
    print(f'One round of {frames} frames (14 NAOs x CameraTop 640x480 + CameraBottom 320x240, '
          f'RGB, gl, pybullet); medians; load average {os.getloadavg()[0]:.1f} on '
          f'{os.cpu_count()} cores. 1x1: the same draws into a 1x1 framebuffer (vertex work '
          'only).')
    print()
    print('| phase | ms / round | ms / frame | share | 1x1 ms / round |')
    print('|---|---:|---:|---:|---:|')
    for key, title in PHASES:
        ms = phases[key] * 1e3
        small = f'{tiny[key] * 1e3:.1f}' if key not in ('readback', 'numpy', 'image',
                                                        'serialize') else ''
        print(f'| {title} | {ms:.1f} | {ms / frames:.2f} | {100 * ms / (total * 1e3):.0f} % '
              f'| {small} |')
    print(f'| **instrumented total** | {total * 1e3:.1f} | {total * 1e3 / frames:.2f} | 100 % '
          f'| {sum(tiny.values()) * 1e3:.1f} |')
    print(f'| **plain total (one view at a time, no timers)** | {plain_ms:.1f} | '
          f'{plain_ms / frames:.2f} | | |')
    print(f'| **batched round (render_together, what the node does)** | {batched_ms:.1f} | '
          f'{batched_ms / frames:.2f} | {batched_ms / plain_ms:.2f} of one at a time | |')
    print()
    print(f'Batched round: {batched_ms:.1f} ms = {batched_ms / ISSUE_BASELINE_MS:.0%} of the '
          f'{ISSUE_BASELINE_MS:.0f} ms that issue 47 measured one at a time (target <= 40 %), '
          f"{batched_ms / plain_ms:.0%} of this run's one at a time.")
    print()
    print(f'Per round: {counts.calls} draw calls. Instances / triangles drawn per level of '
          'detail (0: full):')
    print()
    levels = sorted({level for _, level in counts.triangles})
    print('| geometry | ' + ' | '.join(f'level {lv}' for lv in levels) + ' | triangles |')
    print('|---|' + '---:|' * (len(levels) + 1))
    for kind in ('NAO', 'rest'):
        cells = [f'{counts.instances[(kind, lv)]} / {counts.triangles[(kind, lv)]:,}'
                 for lv in levels]
        triangles = sum(counts.triangles[(kind, lv)] for lv in levels)
        print(f'| {kind} | ' + ' | '.join(cells) + f' | {triangles:,} |')
    result = {
        'frames': frames,
        'plain_ms': round(plain_ms, 2),
        'plain_min_max': [round(min(plain) * 1e3, 2), round(max(plain) * 1e3, 2)],
        'batched_ms': round(batched_ms, 2),
        'batched_min_max': [round(min(batched) * 1e3, 2), round(max(batched) * 1e3, 2)],
        'batched_over_plain': round(batched_ms / plain_ms, 3),
        'batched_over_issue_baseline': round(batched_ms / ISSUE_BASELINE_MS, 3),
        'instrumented_ms': round(total * 1e3, 2),
        'phases_ms': {key: round(phases[key] * 1e3, 2) for key, _ in PHASES},
        'phases_1x1_ms': {key: round(tiny[key] * 1e3, 2) for key, _ in PHASES},
        'draw_calls': counts.calls,
        'triangles': {f'{kind}_level{lv}': counts.triangles[(kind, lv)]
                      for kind, lv in sorted(counts.triangles)},
        'triangles_total': sum(counts.triangles.values()),
    }
    print(json.dumps(result))


if __name__ == '__main__':
    main()
