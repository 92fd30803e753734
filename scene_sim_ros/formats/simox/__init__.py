"""Simox (KIT VirtualRobot) robot, scene and object XML files.

``load(path)`` reads a file whose root element is ``<Robot>`` (one 'robot' entity), ``<Scene>``
(robots, obstacles and manipulation objects) or ``<ManipulationObject>``/``<Obstacle>`` (one
entity). Units are converted to SI (lengths default to mm, angles to rad, masses are given with
their unit). What each element means is documented in :mod:`.robot` (robot nodes, transforms,
joints, physics, meshes, includes, node sets, end effectors, sensors, and the default
``ServoMotor`` that holds every revolute/prismatic joint), :mod:`.scene` (scenes and objects),
:mod:`.meshes` (the Open Inventor / VRML subset) and :mod:`.xml` (lenient parsing).

``<File>`` paths are tried as given, relative to the including file, and relative to the data
directories: those in ``parameters['SIMOX_DATA_PATH']`` (``os.pathsep``-separated), then the
nearest ancestor folder named ``data`` that holds ``robots/`` (Simox's own layout).

Metadata (``Scene.metadata['simox']``): per robot entity its node sets, end effectors,
configurations; object grasp sets, scene object sets and trajectories.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import SceneLoadError
from ...scene.model import Scene
from .. import paths
from .context import LoadContext
from .meshes import DEFAULT_READER
from .robot import build_entity, load_robot_def, robot_metadata
from .scene import OBJECT_TAGS, _object_entity, read_scene
from .xml import Diagnostics, read_xml

DATA_PATH_PARAMETER = 'SIMOX_DATA_PATH'


def data_directories(path: Path, parameters: Mapping[str, str] | None) -> list[Path]:
    """Where ``<File>/robots/...</File>`` paths are looked up, in order."""
    found: list[Path] = []
    if parameters and parameters.get(DATA_PATH_PARAMETER):
        found.extend(Path(p) for p in str(parameters[DATA_PATH_PARAMETER]).split(os.pathsep) if p)
    for ancestor in path.resolve().parents:
        if ancestor.name == 'data' and (ancestor / 'robots').is_dir():
            found.append(ancestor)
            break
    return found


def load(path: str | Path, *, parameters: Mapping[str, str] | None = None,
         strict: bool = False) -> Scene:
    """Load a Simox robot, scene or object file (see the module docstring)."""
    path = Path(path)
    diagnostics = Diagnostics(strict=strict)
    ctx = LoadContext(diagnostics, data_directories(path, parameters), DEFAULT_READER)
    with paths.allow(ctx.data_dirs):
        return _load(ctx, path, diagnostics)


def _load(ctx: LoadContext, path: Path, diagnostics: Diagnostics) -> Scene:
    root = read_xml(path, diagnostics)
    metadata: dict[str, Any] = {}
    if root.tag in ('robot', 'model'):
        robot = load_robot_def(ctx, path)
        diagnostics.raise_if_errors()
        entities = [build_entity(robot)]
        metadata['robots'] = {robot.name: robot_metadata(robot)}
        name = robot.name
    elif root.tag == 'scene':
        name, entities = read_scene(ctx, path, root, metadata)
    elif root.tag in OBJECT_TAGS:
        entity = _object_entity(ctx, path, root, metadata)
        entities = [entity] if entity is not None else []
        name = entity.name if entity is not None else path.stem
    else:
        raise SceneLoadError(f'not a Simox file: root element <{root.tag}> is none of '
                             '<Robot>, <Scene>, <ManipulationObject>, <Obstacle>', path,
                             root.sourceline)
    diagnostics.raise_if_errors()
    return Scene(name, tuple(entities), format='simox', source=path,
                 warnings=tuple(diagnostics.warnings), metadata={'simox': metadata})


__all__ = ['DATA_PATH_PARAMETER', 'load']
