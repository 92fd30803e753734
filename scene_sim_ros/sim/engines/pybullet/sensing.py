"""What the sensor readers and the renderers ask of PyBullet, in engine handles (see
:mod:`scene_sim_ros.sim.simulator`): ray casts, touching links, link frames and TinyRenderer (a
mixin of :class:`~.simulation.Simulation`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pybullet as pb

from scene_sim_ros.sim.engines.pybullet.entity_lookup import EntityLookup
from scene_sim_ros.sim.ray_casts import first_hits_past
from scene_sim_ros.sim.render.tiny_lighting import scene_light_arguments
from scene_sim_ros.sim.simulator import LinkHandle

MAX_RAY_BATCH = pb.MAX_RAY_INTERSECTION_BATCH_SIZE - 1
"""Rays per ``rayTestBatch``: a batch of MAX_RAY_INTERSECTION_BATCH_SIZE (16384, pybullet 3.2.7)
returns one result fewer than its rays, silently; one more ray is refused."""


class Sensing(EntityLookup):
    """Ray casts, contacts, frames and software rendering for the sensors."""

    def cast_rays(self, origins: np.ndarray, ends: np.ndarray,
                  exclude: Sequence[LinkHandle] = ()) -> np.ndarray:
        """(N, 3) rows of body, link, hit fraction (body -1: no hit); PyBullet cannot skip a
        link, so hits on ``exclude`` are looked past by casting again."""
        return first_hits_past(self._ray_test, origins, ends, exclude)

    def _ray_test(self, origins: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """``rayTestBatch`` in batches of PyBullet's largest."""
        rows: list[tuple[int, int, float]] = []
        for i in range(0, len(origins), MAX_RAY_BATCH):
            results = pb.rayTestBatch(origins[i:i + MAX_RAY_BATCH].tolist(),
                                      ends[i:i + MAX_RAY_BATCH].tolist(),
                                      physicsClientId=self.client)
            rows.extend((r[0], r[1], r[2]) for r in results)
        return np.array(rows, dtype=np.float64).reshape(-1, 3)

    def touching(self, handle: LinkHandle, max_distance: float) -> set[LinkHandle]:
        body, link = handle
        points = pb.getContactPoints(bodyA=body, linkIndexA=link, physicsClientId=self.client)
        return {(point[2], point[4]) for point in points if point[8] <= max_distance}

    def handle_frames(self, handles: Sequence[LinkHandle]) -> tuple[np.ndarray, np.ndarray]:
        """Centre-of-mass frames of ``handles``: one ``getLinkStates`` per body."""
        positions = np.zeros((len(handles), 3))
        quaternions = np.tile([0.0, 0.0, 0.0, 1.0], (len(handles), 1))
        by_body: dict[int, list[tuple[int, int]]] = {}
        for row, (body, link) in enumerate(handles):
            by_body.setdefault(body, []).append((row, link))
        client = self.client
        for body, entries in by_body.items():
            links = [link for _, link in entries if link >= 0]
            states = (pb.getLinkStates(body, links, computeForwardKinematics=1,
                                       physicsClientId=client) if links else [])
            state_of = dict(zip(links, states))
            for row, link in entries:
                if link < 0:
                    position, orientation = pb.getBasePositionAndOrientation(
                        body, physicsClientId=client)
                else:
                    position, orientation = state_of[link][0], state_of[link][1]
                positions[row], quaternions[row] = position, orientation
        return positions, quaternions

    def draw_software(self, width: int, height: int, view: list[float], projection: list[float],
                      need_mask: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """TinyRenderer (``getCameraImage``), lit by the scene's first light."""
        flags = (pb.ER_SEGMENTATION_MASK_OBJECT_AND_LINKINDEX if need_mask
                 else pb.ER_NO_SEGMENTATION_MASK)
        _, _, rgba, depth, mask = pb.getCameraImage(
            width, height, view, projection, renderer=pb.ER_TINY_RENDERER, flags=flags,
            physicsClientId=self.client, **scene_light_arguments(self.scene))
        shape = (height, width)
        return (np.reshape(np.asarray(rgba, dtype=np.uint8), (*shape, 4)),
                np.reshape(np.asarray(depth, dtype=np.float32), shape),
                np.reshape(np.asarray(mask, dtype=np.int32), shape) if need_mask else None)
