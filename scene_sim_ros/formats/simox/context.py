"""State shared by one Simox load (diagnostics, data directories, mesh reader, ``<File>``
resolution) and the reading of numeric attributes."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from scene_sim_ros import limits

from ...errors import SceneLoadError
from .. import paths
from .meshes import MeshReader
from .xml import Diagnostics

MM = 0.001


class LoadContext:
    """State shared by one load: diagnostics, file resolution, caches."""

    def __init__(self, diagnostics: Diagnostics, data_dirs: list[Path], meshes: MeshReader):
        self.diagnostics = diagnostics
        self.data_dirs = data_dirs
        self.meshes = meshes
        self.robots: dict[Path, object] = {}
        """Robot files read so far (``robot.RobotDef``, which imports this module), by path."""
        self.loading: list[Path] = []

    def resolve(self, name: str, base: Path) -> Path | None:
        """A ``<File>`` path as Simox finds it: absolute, relative to the including file's
        folder, or relative to a data directory."""
        name = name.strip()
        if not name:
            return None
        candidates = []
        raw = Path(name)
        if raw.is_absolute():
            candidates.append(raw)
        relative = name.lstrip('/\\')
        candidates.append(base / relative)
        candidates.extend(data / relative for data in self.data_dirs)
        for candidate in candidates:
            if paths.is_file(candidate):
                return paths.confine(candidate.resolve(), 'file', base)
        return None

    def warn(self, file: Path, element: etree._Element | None, message: str) -> None:
        self.diagnostics.warn(file, element.sourceline if element is not None else None, message)


def number(ctx: LoadContext | None, file: Path, element: etree._Element, name: str,
           default: float | None = None) -> float:
    value = element.get(name)
    if value is None:
        if default is None:
            raise SceneLoadError(f'<{element.tag}> needs attribute {name!r}', file,
                                 element.sourceline)
        return default
    try:
        return limits.number(value.strip().split()[0])
    except (ValueError, IndexError) as err:
        message = f'<{element.tag}> attribute {name}={value!r} is not a number'
        if isinstance(err, ValueError):
            message = limits.why_not(err, message)
        raise SceneLoadError(message, file, element.sourceline) from None
