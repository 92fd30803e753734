"""GL depth against the exact geometry of the physics (issue 17: depth within 1 mm over 0.2-5 m).

Every pixel's ray (as the GL renderer samples it: the pixel corner, see
``renderer._corner_sampled``) is cast with PyBullet's ``rayTestBatch``, which names the body and
link it hits, and intersected in closed form with the collision primitives PyBullet holds
(``getCollisionShapeData``: boxes, spheres, cylinders, capsules, posed by PyBullet's link
states). Bullet's own hit distance on round shapes is not exact (its convex cast stops within a
few millimetres: up to 5.6 mm on round shapes, measured below), hence the closed form. A pixel is
compared where the ray test, the closed form and the GL mask name the same link, that link's
visuals are its collision shapes (same shapes, same poses), the 3x3 neighbourhood of the mask
shows that link only (edges are where a tessellated outline and the true one differ) and the
depth lies within 0.2-5 m. Skipped, saying why, where no EGL context can be made.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pybullet as p
import pytest

import scene_sim_ros
from scene_sim_ros import Simulation
from scene_sim_ros.formats import load_scene
from scene_sim_ros.scene import (
    Box,
    Capsule,
    Collision,
    Cylinder,
    Entity,
    Link,
    Pose,
    Scene,
    Sphere,
    Visual,
)
from scene_sim_ros.scene.transforms import matrix_from_quat
from scene_sim_ros.sim.render import egl_problem
from scene_sim_ros.sim.sensors.rendering import View, render_cache
from support.images import interior

pytestmark = pytest.mark.skipif(egl_problem() is not None,
                                reason=f'no GL renderer here: {egl_problem()}')

TOLERANCE = 1e-3  # metres: the criterion
SHARE = 0.999  # of the compared pixels within TOLERANCE
NEAR, FAR = 0.2, 5.0
SIZE, FOV = (160, 120), (1.0, 0.78)
OVERVIEW = Pose.from_xyz_rpy((-3.0, -2.0, 2.0), (0.0, 0.4, math.atan2(2.0, 3.0)))
ALONG_Y = (math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4))  # a cylinder's axis along y
TILTED = (0.0, math.sin(0.3), 0.0, math.cos(0.3))
PRIMITIVES = {p.GEOM_BOX, p.GEOM_SPHERE, p.GEOM_CYLINDER, p.GEOM_CAPSULE}
RAY_BATCH = 10_000  # rays per rayTestBatch call (PyBullet takes at most 16384)


def solid(name: str, shape, position, orientation=(0.0, 0.0, 0.0, 1.0)) -> Entity:
    return Entity(name, 'static', (Link('base', collisions=(Collision(shape),),
                                        visuals=(Visual(shape),)),),
                  pose=Pose(position, orientation), fixed_base=True)


ROUND_SCENE = Scene('round', (
    solid('small_ball', Sphere(0.05), (0.35, 0.05, 0.0)),
    solid('ball', Sphere(0.3), (1.5, -0.45, 0.1)),
    solid('big_ball', Sphere(1.0), (4.6, 1.2, 0.0)),
    solid('wheel', Cylinder(0.1, 0.3), (0.8, 0.25, -0.15), ALONG_Y),
    solid('drum', Cylinder(0.5, 1.0), (3.0, -1.2, -0.6), TILTED),
    solid('post', Cylinder(0.3, 0.8), (1.6, 0.4, -0.7)),
    solid('capsule', Capsule(0.2, 0.6), (2.2, 0.6, 0.4), TILTED),
    solid('crate', Box((0.3, 0.3, 0.3)), (2.6, -0.2, 0.9), TILTED)))


def pixel_rays(width: int, height: int, fov_x: float, fov_y: float) -> np.ndarray:
    """(H, W, 3) ray directions in the sensor frame (x forward, y left, z up) with forward
    component 1, so that a hit at ``t`` has the camera z-depth ``t``. Row 0 is the top row;
    column j, row r are sampled at their corner (left, bottom), as the GL renderer samples."""
    right = (2.0 * np.arange(width) / width - 1.0) * math.tan(fov_x / 2.0)
    up = (1.0 - 2.0 * (np.arange(height) + 1.0) / height) * math.tan(fov_y / 2.0)
    a, b = np.meshgrid(right, up)
    return np.stack([np.ones_like(a), -a, b], -1)


def primitive_shapes(client: int) -> list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
    """(mask id, PyBullet geometry type, dimensions, world rotation, world position) of every
    collision primitive, from PyBullet's own shape data and link states."""
    shapes = []
    for i in range(p.getNumBodies(physicsClientId=client)):
        body = p.getBodyUniqueId(i, physicsClientId=client)
        for link in range(-1, p.getNumJoints(body, physicsClientId=client)):
            if link < 0:
                position, orientation = p.getBasePositionAndOrientation(
                    body, physicsClientId=client)
            else:
                position, orientation = p.getLinkState(body, link, physicsClientId=client)[:2]
            for data in p.getCollisionShapeData(body, link, physicsClientId=client):
                if data[2] not in PRIMITIVES:
                    continue
                where, turn = p.multiplyTransforms(position, orientation, data[5], data[6])
                rotation = np.array(p.getMatrixFromQuaternion(turn)).reshape(3, 3)
                shapes.append((body + ((link + 1) << 24), data[2], np.array(data[3]), rotation,
                               np.array(where)))
    return shapes


def _first_root(a: np.ndarray, half_b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Smallest positive t of a t^2 + 2 half_b t + c = 0 (inf where none)."""
    disc = half_b * half_b - a * c
    real = (disc >= 0.0) & (a > 0.0)
    root = np.sqrt(np.where(real, disc, 0.0))
    a = np.where(real, a, 1.0)
    near, far = (-half_b - root) / a, (-half_b + root) / a
    return np.where(real & (near > 0.0), near, np.where(real & (far > 0.0), far, np.inf))


@np.errstate(divide='ignore', invalid='ignore')  # rays parallel to a face or axis, misses
def ray_hits(kind: int, dims: np.ndarray, o: np.ndarray, d: np.ndarray) -> np.ndarray:
    """First t > 0 where o + t d (shape frame, (N, 3) each) meets the primitive's surface."""
    if kind == p.GEOM_BOX:
        half = dims / 2.0
        t1, t2 = (-half - o) / d, (half - o) / d
        enter = np.nanmax(np.minimum(t1, t2), axis=1)
        leave = np.nanmin(np.maximum(t1, t2), axis=1)
        return np.where((enter <= leave) & (enter > 0.0), enter, np.inf)
    if kind == p.GEOM_SPHERE:
        return _first_root((d * d).sum(1), (o * d).sum(1), (o * o).sum(1) - dims[0] ** 2)
    half, radius = dims[0] / 2.0, dims[1]  # cylinder and capsule: (length, radius), axis z
    side = _first_root((d[:, :2] ** 2).sum(1), (o[:, :2] * d[:, :2]).sum(1),
                       (o[:, :2] ** 2).sum(1) - radius ** 2)
    side = np.where(np.abs(o[:, 2] + side * d[:, 2]) <= half, side, np.inf)
    ends = []
    for z in (half, -half):
        if kind == p.GEOM_CAPSULE:
            centre = o - np.array([0.0, 0.0, z])
            ends.append(_first_root((d * d).sum(1), (centre * d).sum(1),
                                    (centre * centre).sum(1) - radius ** 2))
            continue
        t = (z - o[:, 2]) / d[:, 2]
        inside = ((o[:, :2] + t[:, None] * d[:, :2]) ** 2).sum(1) <= radius ** 2
        ends.append(np.where((t > 0.0) & inside, t, np.inf))
    return np.minimum(side, np.minimum(*ends))


def exact_depth(client: int, origin: np.ndarray, rays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Camera z-depth of the nearest primitive along world ``rays`` (N, 3) from ``origin``, and
    the mask id of the link it belongs to (-1: none)."""
    best = np.full(len(rays), np.inf)
    owner = np.full(len(rays), -1, dtype=np.int64)
    for link_id, kind, dims, rotation, position in primitive_shapes(client):
        start = np.broadcast_to((origin - position) @ rotation, rays.shape)
        t = ray_hits(kind, dims, start, rays @ rotation)
        closer = t < best
        best[closer], owner[closer] = t[closer], link_id
    return best, owner


def bullet_rays(client: int, origin: np.ndarray, rays: np.ndarray, reach: float):
    """PyBullet's ray test along ``rays`` up to z-depth ``reach``: (z-depth, mask id)."""
    depth, owner = np.full(len(rays), np.inf), np.full(len(rays), -1, dtype=np.int64)
    ends = origin + rays * reach
    for start in range(0, len(rays), RAY_BATCH):
        stop = start + RAY_BATCH
        hits = p.rayTestBatch([origin.tolist()] * len(ends[start:stop]),
                              ends[start:stop].tolist(), physicsClientId=client)
        for i, hit in enumerate(hits, start):
            if hit[0] >= 0:
                depth[i], owner[i] = hit[2] * reach, hit[0] + ((hit[1] + 1) << 24)
    return depth, owner


def exact_links(sim: Simulation) -> set[int]:
    """Mask ids of the links whose visuals are their collision shapes."""
    ids = set()
    for built in sim.built_entities():
        for link in built.entity.links:
            drawn = [(v.shape, v.pose) for v in link.visuals]
            if drawn and drawn == [(c.shape, c.pose) for c in link.collisions]:
                body, local = built.locate(built.link_index[link.name])
                ids.add(body + ((local + 1) << 24))
    return ids


@dataclass
class Comparison:
    """Over the compared pixels: |rendered depth - exact|, |PyBullet ray test - exact| and how
    many pixels show each PyBullet geometry type."""

    rendered: np.ndarray
    bullet: np.ndarray
    pixels: dict[int, int]


def depth_against_exact(scene: Scene, pose: Pose, renderer: str = 'gl') -> Comparison:
    sim = Simulation(scene, renderer=renderer)
    try:
        frame = render_cache(sim).frame(View.of(pose, *SIZE, *FOV), 0.01, 50.0, True)
        assert frame.mask is not None
        depth, mask = frame.depth().ravel(), frame.mask.copy()
        rays = pixel_rays(*SIZE, *FOV).reshape(-1, 3) @ np.array(
            matrix_from_quat(pose.orientation)).T
        origin = np.array(pose.position)
        exact, owner = exact_depth(sim.client, origin, rays)
        bullet, bullet_owner = bullet_rays(sim.client, origin, rays, 2.0 * FAR)
        compared = (interior(mask).ravel() & (mask.ravel() == owner) & (owner == bullet_owner)
                    & np.isin(owner, list(exact_links(sim))) & (depth >= NEAR) & (depth <= FAR))
        kind_of = {link: kind for link, kind, *_ in primitive_shapes(sim.client)}
        kinds = np.array([kind_of[link] for link in owner[compared]])
        return Comparison(np.abs(depth[compared] - exact[compared]),
                          np.abs(bullet[compared] - exact[compared]),
                          {kind: int((kinds == kind).sum()) for kind in PRIMITIVES})
    finally:
        sim.close()


def test_depth_of_the_default_scene_is_the_exact_primitives_within_a_millimetre():
    scene = load_scene(Path(scene_sim_ros.__file__).parent / 'data' / 'scenes' / 'default.ros2')
    result = depth_against_exact(scene, OVERVIEW)
    difference = result.rendered
    # measured: 9,132 pixels (boxes 8,661, the pillar and wheels 462, the far ball 9), 100 %
    # within 1 mm, median 2e-7 m, largest 0.42 mm; TinyRenderer on the same view: 96.3 %,
    # largest 12.8 mm
    assert difference.size > 8000
    assert result.pixels[p.GEOM_CYLINDER] > 50 and result.pixels[p.GEOM_SPHERE] > 5
    assert (difference <= TOLERANCE).mean() >= SHARE
    assert np.median(difference) <= 1e-5  # flat faces: exact up to float32


def test_depth_of_spheres_cylinders_and_capsules_at_0_2_to_5_m_is_exact_within_a_millimetre():
    result = depth_against_exact(ROUND_SCENE, Pose())
    difference = result.rendered
    # measured: 10,296 pixels (spheres 4,418, cylinders 4,524, the capsule 1,050, a box 304),
    # 100 % within 1 mm, median 0.18 mm (a tessellated round surface lies up to 0.25 mm inside
    # the true one, more along a slanted ray), largest 0.77 mm. TinyRenderer on this view:
    # 19 % within 1 mm, median 4.7 mm, largest 0.21 m; the GL renderer's former 64 segments
    # on every radius: 92 % (with 1-pixel levels of detail on spheres: 51 %)
    assert difference.size > 8000
    assert min(result.pixels.values()) > 100  # every kind of primitive is compared
    assert (difference <= TOLERANCE).mean() >= SHARE
    assert np.median(difference) <= 0.25e-3


def test_the_closed_form_reference_agrees_with_pybullets_ray_test():
    """The reference is the physics' own geometry: PyBullet's ray test names the same links and
    lands within its convex cast's few millimetres of the closed form (exact on boxes)."""
    result = depth_against_exact(ROUND_SCENE, Pose())
    # measured: median 0.07 mm, 99th percentile 1.9 mm, largest 5.6 mm (93 % within 1 mm)
    assert np.median(result.bullet) <= 1e-3
    assert result.bullet.max() <= 1e-2
