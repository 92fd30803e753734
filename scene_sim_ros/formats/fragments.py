"""One entity from a description, as a spawn request gives one: fragment text, a fragment file,
or one entity of a scene file of any format. The format of a fragment is decided here: a
SimRobot ``<Body>``/``<Compound>`` (or a ``<Simulation>`` holding one plus the definitions it
uses), the format whose files describe a single body apart from a scene."""

from __future__ import annotations

from pathlib import Path

from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.scene import Entity

FRAGMENT_SUFFIXES = ('.ros2', '.rsi2', '.ros3', '.rsi3')
"""Files that may hold a fragment (and ``.xml``, whose root element tells)."""


def load_fragment(text: str, *, base_dir: Path | None = None,
                  source: str = '<fragment>') -> Entity:
    """The entity of fragment ``text`` (includes resolve against ``base_dir``); SceneLoadError
    with ``source:line``."""
    from scene_sim_ros.formats.simrobot import load_entity_fragment
    return load_entity_fragment(text, base_dir=base_dir, source=source)


def load_entity_file(path: Path, entity: str = '') -> Entity:
    """Entity ``entity`` of the scene file ``path`` (any format), or with no name the fragment
    that ``path`` holds. SceneLoadError, FileNotFoundError, or ValueError for a file that is no
    fragment."""
    if not path.is_file():
        raise FileNotFoundError(f'no such file: {path}')
    if entity:
        from scene_sim_ros.formats import load_scene
        scene = load_scene(path)
        for candidate in scene.entities:
            if candidate.name == entity:
                return candidate
        raise SceneLoadError(f'no entity {entity!r} in the scene; entities: '
                             + ', '.join(e.name for e in scene.entities), str(path), 0)
    if path.suffix.lower() not in FRAGMENT_SUFFIXES + ('.xml',):
        raise ValueError(f'{path.name}: a spawn file must be a SimRobot fragment '
                         f'({", ".join(FRAGMENT_SUFFIXES)}) or name an entity: file#entity')
    return load_fragment(path.read_text(encoding='utf-8'), base_dir=path.parent, source=str(path))
