"""``scene-sim-ros fetch WORLD...``: fill the user cache with everything the worlds need
(PROTOs, meshes, textures), for machines that will run offline, and say what came from where."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from ...errors import SceneLoadError
from .cache import default_cache_dir


def fetch_worlds(worlds: Sequence[str | Path], parameters: Mapping[str, str],
                 out: TextIO) -> int:
    """Load each world with downloads on; 0 when every world is complete, else 1."""
    from .. import load_scene
    logging.basicConfig(format='%(message)s', level=logging.INFO)  # progress of large files
    params = {**parameters, 'webots.download': 'true'}
    incomplete = 0
    for world in worlds:
        try:
            scene = load_scene(world, parameters=params)
        except SceneLoadError as err:
            incomplete += 1
            print(f'{world}: incomplete\n{err}', file=out)
            continue
        protos: dict[str, tuple[str, str]] = scene.metadata.get('webots_protos', {})
        downloads: list[str] = scene.metadata.get('webots_downloads', [])
        print(f'{world}: {len(protos)} PROTOs, {len(downloads)} files downloaded', file=out)
        for name, (source, location) in sorted(protos.items()):
            print(f'  {name}: {source} {location}', file=out)
        for url in downloads:
            print(f'  downloaded {url}', file=out)
    cache = Path(parameters.get('webots.cache_dir') or default_cache_dir())
    print(f'cache: {cache}', file=out)
    return 1 if incomplete else 0
