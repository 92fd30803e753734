"""RaiSim world XML files (``<raisim>``) and sensor sets.

``load(path, parameters=..., strict=...)`` reads a world; :mod:`.world` documents the supported
subset and reads the top level, :mod:`.objects` the objects, :mod:`.wires` the wires and
:mod:`.node` the elements; :mod:`.expressions` holds the ``@@parameter`` and ``{math}``
templates, :mod:`.terrain` the height maps and :mod:`.sensors` the ``<sensor_set>`` files.
Articulated systems are URDF robots (:mod:`scene_sim_ros.formats.urdf`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...scene import Scene
from .sensors import load_sensor_set
from .world import load_world


def load(path: str | Path, *, parameters: Mapping[str, str] | None = None,
         strict: bool = False) -> Scene:
    """Load a RaiSim world; ``parameters`` supply ``@@name`` template values (they win over the
    file's ``<params>``); missing ones raise :class:`SceneLoadError` naming them."""
    return load_world(Path(path).absolute(), parameters, strict, shown_as=Path(path))


__all__ = ['load', 'load_sensor_set']
