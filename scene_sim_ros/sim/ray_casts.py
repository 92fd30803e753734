"""Looking past the links a ray must not see, for engines that cannot exclude them natively.

A sensor never sees its own body (SimRobot's distance sensors; see
:mod:`scene_sim_ros.sim.sensors.rays`), so a ray that hits one of the excluded links is cast
again from just behind that hit. Bullet reports a hit at once for a ray that starts just inside
a shape's surface, so the restart steps grow (:data:`SELF_HIT_STEPS`); a ray still on an excluded
link after the last one has no hit. MuJoCo's ``mj_multiRay`` excludes a body itself, which needs
no second cast (:mod:`scene_sim_ros.sim.engines.mujoco.sensing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from scene_sim_ros.sim.simulator import LinkHandle

SELF_HIT_STEPS = (1e-3, 1e-2, 5e-2, 2e-1)
"""How far (m) behind a hit on an excluded link a continued ray starts, per retry."""
NO_HIT = (-1.0, -1.0, 1.0)
"""The row of a ray that hits nothing: body -1, link -1, the whole segment."""

RayCast = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""An engine's plain ray cast: (N, 3) origins and ends -> (N, 3) rows of body, link, fraction."""


def first_hits_past(cast: RayCast, origins: np.ndarray, ends: np.ndarray,
                    exclude: Sequence[LinkHandle]) -> np.ndarray:
    """(N, 3) rows of body, link and fraction of the whole segment ``origins[i] -> ends[i]`` of
    the first hit on a link not in ``exclude``, casting again past excluded hits."""
    origins = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    ends = np.asarray(ends, dtype=np.float64).reshape(-1, 3)
    rows = np.array(cast(origins, ends), dtype=np.float64).reshape(-1, 3)
    if not exclude or not len(rows):
        return rows
    excluded = np.array(sorted(set(exclude)), dtype=np.float64).reshape(-1, 2)
    lengths = np.linalg.norm(ends - origins, axis=1)
    pending = np.flatnonzero(_on(rows, excluded))
    for step in SELF_HIT_STEPS:
        starts = rows[pending, 2] * lengths[pending] + step
        beyond = starts >= lengths[pending]
        rows[pending[beyond]] = NO_HIT
        pending, starts = pending[~beyond], starts[~beyond]
        if pending.size == 0:
            return rows
        fraction = (starts / lengths[pending])[:, np.newaxis]
        froms = origins[pending] + (ends[pending] - origins[pending]) * fraction
        again = np.array(cast(froms, ends[pending]), dtype=np.float64).reshape(-1, 3)
        hit = again[:, 0] >= 0
        rows[pending] = NO_HIT
        rows[pending[hit], :2] = again[hit, :2]
        remaining = lengths[pending[hit]] - starts[hit]
        rows[pending[hit], 2] = (starts[hit] + again[hit, 2] * remaining) / lengths[pending[hit]]
        pending = pending[hit & _on(again, excluded)]
    rows[pending] = NO_HIT
    return rows


def _on(rows: np.ndarray, excluded: np.ndarray) -> np.ndarray:
    """Whether each row's (body, link) is one of ``excluded``."""
    return np.asarray((rows[:, np.newaxis, :2] == excluded[np.newaxis]).all(axis=-1).any(axis=-1))
