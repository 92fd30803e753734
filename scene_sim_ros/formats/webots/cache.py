"""The user cache of downloaded Webots files (PROTOs, meshes, textures), keyed by URL.

A file lives at ``<root>/<first 32 hex digits of sha256(url)>/<last URL segment>``: one folder
per URL (no two URLs collide, nothing in a URL can name a path outside the root) that keeps the
file's own name, so that mesh and image readers still see its suffix. Files are written beside
their final name and renamed into place only when complete (:meth:`UrlCache.writer`), so an
interrupted download never leaves a file that a later load would use.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

import platformdirs

CACHE_ENV = 'SCENE_SIM_ROS_CACHE_DIR'
PART_SUFFIX = '.part'


def default_cache_dir() -> Path:
    """``$SCENE_SIM_ROS_CACHE_DIR``, else the platform's user cache (``~/.cache/scene_sim_ros/
    webots`` on Linux)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_cache_path('scene_sim_ros') / 'webots'


def _file_name(url: str) -> str:
    try:
        path = urlsplit(url).path
    except ValueError:  # 'https://[x/a.proto', an invalid IPv6 host: the name is still its end
        path = url
    name = unquote(path.rsplit('/', 1)[-1])
    name = re.sub(r'[^A-Za-z0-9._-]', '_', name).lstrip('.')
    return name or 'index'


class UrlCache:
    """Files downloaded from URLs, one folder per URL under ``root``."""

    def __init__(self, root: Path):
        self.root = root

    def path_for(self, url: str) -> Path:
        key = hashlib.sha256(url.encode('utf-8')).hexdigest()[:32]
        return self.root / key / _file_name(url)

    def get(self, url: str) -> Path | None:
        path = self.path_for(url)
        return path if path.is_file() else None

    @contextmanager
    def writer(self, url: str) -> Iterator[BinaryIO]:
        """A stream for the content of ``url``; the file appears only if the block completes."""
        final = self.path_for(url)
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(f'{final.name}.{os.getpid()}.{secrets.token_hex(4)}'
                                  f'{PART_SUFFIX}')
        try:
            with open(partial, 'wb') as stream:
                yield stream
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)
