"""``scene-sim-ros fetch WORLD...``: fill the user cache with everything the worlds need
(PROTOs, meshes, textures), for machines that will run offline, and say what came from where.
Files found in a Webots installation are copied into the cache too, so that a machine with
Webots can fill the cache of one without."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from ...errors import SceneLoadError
from .cache import UrlCache, default_cache_dir


def fetch_worlds(worlds: Sequence[str | Path], parameters: Mapping[str, str],
                 out: TextIO) -> int:
    """Load each world with downloads on; 0 when every world is complete, else 1."""
    from .. import load_scene
    logging.basicConfig(format='%(message)s', level=logging.INFO)  # progress of large files
    params = {**parameters, 'webots.download': 'true'}
    cache = Path(parameters.get('webots.cache_dir') or default_cache_dir())
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
        for url, path in _cache_installed(scene.metadata.get('webots_remote_files', []), cache):
            print(f'  cached {url} (from {path})', file=out)
    print(f'cache: {cache}', file=out)
    return 1 if incomplete else 0


def _cache_installed(files: list[tuple[str, str, Path]], root: Path) -> list[tuple[str, Path]]:
    cache = UrlCache(root)
    copied = []
    for url, source, path in files:
        if source == 'installation' and cache.get(url) is None:
            with cache.writer(url) as out, open(path, 'rb') as stream:
                shutil.copyfileobj(stream, out)
            copied.append((url, path))
    return copied
