"""The files the published robot descriptions refer to (meshes, textures): what the live view
serves to a viewer that asks for them (Foxglove ``fetchAsset``), and nothing else.

A URI is served when the file it names, resolved (``..``, symlinks, percent-encoding), is one of
the files a published URDF names; ``file://`` URIs as the URDFs write them, and ``package://``
URIs through the package's share folder."""

from __future__ import annotations

import os
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urlparse

from scene_sim_ros.resources import package_share_directory


class DescribedFiles:
    """Thread-safe: descriptions are added from the node, read from the viewer's thread."""

    def __init__(self) -> None:
        self._files: set[str] = set()
        self._lock = threading.Lock()

    def add_urdf(self, urdf: str) -> None:
        """Every ``filename`` of ``urdf`` (meshes, and textures where a material has one)."""
        try:
            root = ET.fromstring(urdf)
        except ET.ParseError:
            return
        found = {_real(path) for element in root.iter()
                 if (path := local_file(element.get('filename', ''))) is not None}
        with self._lock:
            self._files |= found

    def read(self, uri: str) -> bytes | None:
        """The bytes of the file ``uri`` names if a description names it; None otherwise."""
        path = local_file(uri)
        if path is None:
            return None
        real = _real(path)
        with self._lock:
            if real not in self._files:
                return None
        try:
            return Path(real).read_bytes()
        except OSError:
            return None

    def __len__(self) -> int:
        return len(self._files)


def local_file(uri: str) -> Path | None:
    """The file a ``file://`` or ``package://`` URI names (not yet resolved); None for others."""
    parsed = urlparse(uri)
    if parsed.scheme == 'file' and parsed.netloc in ('', 'localhost'):
        return Path(unquote(parsed.path))
    if parsed.scheme == 'package' and parsed.netloc:
        share = package_share_directory(parsed.netloc)
        return None if share is None else share / unquote(parsed.path).lstrip('/')
    return None


def _real(path: Path) -> str:
    return os.path.realpath(path)
