"""The worlds a ``LoadWorld`` may load: scene files of the shipped examples, the default scene
and the folders of the ``worlds.paths`` parameter, each with a name, a ``file://`` uri, a
one-line description and tags; where a request's uri may point (inside those folders only,
resolved through symbolic links) and how a ``resource_string`` becomes a file the loaders read.

Pure Python (no rclpy): :mod:`.world_services` translates messages. Describing a world means
parsing it (its robots and sensors become tags), which :func:`describe` does in the loader
process; :class:`WorldCatalog` keeps what it learnt per file version.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from scene_sim_ros import resources
from scene_sim_ros.errors import SceneLoadError
from scene_sim_ros.ros.supervisor.logic import rest_box
from scene_sim_ros.scene import Entity, Scene
from scene_sim_ros.scene.bounds import AABB

WORLD_SUFFIXES = ('.ros2', '.ros3', '.wbt', '.xml', '.urdf')
"""Files a world folder offers: SimRobot scenes (not the .rsi2/.rsi3 they include), Webots
worlds (not PROTOs), Simox / RaiSim / URDF XML (an .xml only where its root element names one
of the formats)."""

MAX_FILES_PER_FOLDER = 5000
"""A world folder is searched recursively up to this many files (a whole disk given by mistake
must not hold the service for minutes)."""

PACKAGE_URI = f'package://{resources.PACKAGE}/'


class OutsideWorldFolders(Exception):
    """A uri that resolves outside the folders worlds may come from (refused unread)."""


@dataclass(frozen=True, slots=True)
class World:
    name: str
    path: Path
    description: str = ''
    tags: tuple[str, ...] = ()
    resource_string: str = ''

    @property
    def uri(self) -> str:
        return '' if self.resource_string else self.path.as_uri()


@dataclass(frozen=True, slots=True)
class EntityFacts:
    """An entity of a world file, as GetSpawnables lists it."""

    name: str
    kind: str
    description: str
    box: AABB | None   # in the entity's frame; None: unbounded (a plane)


@dataclass(frozen=True, slots=True)
class Description:
    """What a world file holds, as :func:`describe` finds it."""

    text: str
    tags: tuple[str, ...]
    entities: tuple[EntityFacts, ...] = ()


def describe(path: Path) -> Description:
    """Parse ``path`` (in the loader process) for its description and tags (see
    :func:`scene_description`). A file that does not load is described by its error and tagged
    ``error``."""
    from scene_sim_ros.formats import format_of, load_scene
    try:
        scene = load_scene(path)
    except SceneLoadError as err:
        try:
            kind = format_of(path)
        except SceneLoadError:
            kind = 'unknown'
        return Description(f'does not load: {err}', (kind, 'error'))
    return scene_description(scene, path)


def scene_description(scene: Scene, path: Path | None) -> Description:
    """The file's own one-line description (Webots title, first XML comment) with the count of
    entities and robots; tags: the format, ``robot:<name>`` per robot, ``sensor:<kind>`` per
    kind of sensor on board."""
    robots = [e for e in scene.entities if e.kind == 'robot']
    sensors = sorted({s.kind for e in scene.entities for s in e.sensors})
    text = _file_description(path) if path is not None else ''
    counts = f'{len(scene.entities)} entities, {len(robots)} robots'
    description = f'{text} ({counts})' if text else f'{scene.format} scene {scene.name}: {counts}'
    tags = (scene.format, *(f'robot:{e.name}' for e in robots), *(f'sensor:{s}' for s in sensors))
    return Description(description, tags, tuple(_entity_facts(e) for e in scene.entities))


def _entity_facts(entity: Entity) -> EntityFacts:
    sensors = ', '.join(sorted({s.kind for s in entity.sensors}))
    text = (f'{entity.kind} {entity.name}: {len(entity.links)} links, '
            f'{len(entity.movable_joints)} movable joints, {entity.mass:g} kg'
            + (f', sensors: {sensors}' if sensors else ''))
    box = rest_box(entity)
    return EntityFacts(entity.name, entity.kind, text, box)


def describe_all(paths: Sequence[Path]) -> list[Description]:
    return [describe(p) for p in paths]


def _file_description(path: Path) -> str:
    try:
        return resources.example_description(path)
    except (OSError, ValueError):
        return ''


def is_world_file(path: Path) -> bool:
    """A scene file a world folder offers (see :data:`WORLD_SUFFIXES`)."""
    from scene_sim_ros.formats import format_of
    suffix = path.suffix.lower()
    if suffix not in WORLD_SUFFIXES:
        return False
    if suffix != '.xml':
        return True
    try:
        format_of(path)
    except SceneLoadError:
        return False
    return True


def world_files(folder: Path) -> list[Path]:
    """The world files under ``folder`` (recursively, sorted, at most
    :data:`MAX_FILES_PER_FOLDER` files looked at). Raises OSError for a folder that cannot be
    read."""
    if not folder.is_dir():
        raise NotADirectoryError(f'{folder}: not a folder')
    found = []
    looked = 0
    for root, dirs, files in os.walk(folder, onerror=_raise):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            if path.suffix.lower() in WORLD_SUFFIXES and is_world_file(path):
                found.append(path)
        looked += len(files)
        if looked > MAX_FILES_PER_FOLDER:
            break
    return found


def _raise(err: OSError) -> None:
    raise err


def source_folder(source: str) -> Path:
    """The folder a GetAvailableWorlds source names: a path or a ``file://`` URI. Raises
    ValueError for other schemes (this simulator has no online sources)."""
    parsed = urlparse(source)
    if parsed.scheme == 'file':
        return Path(unquote(parsed.netloc + parsed.path))
    if parsed.scheme and len(parsed.scheme) > 1:
        raise ValueError(f'{source}: only local folders (a path or file://) are world sources')
    return Path(source).expanduser()


def is_local_source(source: str) -> bool:
    try:
        source_folder(source)
    except ValueError:
        return False
    return True


class WorldCatalog:
    """The allowed world folders and what is known of the files in them.

    ``folders``: the ``worlds.paths`` parameter's folders (beside the package's own data).
    Files are described once per version: :meth:`unknown` names those to parse
    (:func:`describe_all`, which the node runs in its loader process), :meth:`learn` keeps the
    result.
    """

    def __init__(self, folders: Iterable[str | Path] = ()):
        self.folders = [Path(f).expanduser() for f in folders if str(f)]
        self._known: dict[tuple[Path, int, int], Description] = {}
        self._scratch = Path(tempfile.mkdtemp(prefix='scene_sim_worlds_'))

    @property
    def roots(self) -> list[Path]:
        """Where worlds may come from: the package's data and the configured folders."""
        return [resources.DATA_DIR.resolve(), *(f.resolve() for f in self.folders),
                self._scratch.resolve()]

    def shipped(self) -> list[tuple[str, Path, str]]:
        """(name, path, origin tag) of the default scene and the examples."""
        worlds = [('default', resources.default_scene_path(), 'default')]
        worlds += [(name, resources.example_path(name), 'example')
                   for name in resources.example_names()]
        return worlds

    def listed(self, sources: Sequence[str] = ()) -> tuple[list[tuple[str, Path, str]],
                                                           list[str], list[str]]:
        """(name, path, origin tag) of every world, then the errors of the configured folders
        and those of ``sources`` (each a line). A source must lie inside the allowed folders."""
        worlds = self.shipped()
        default_errors: list[str] = []
        source_errors: list[str] = []
        for folder in self.folders:
            try:
                worlds += [(p.stem, p, 'folder') for p in world_files(folder)]
            except OSError as err:
                default_errors.append(f'worlds.paths {folder}: {err.strerror or err}')
        for source in sources:
            try:
                folder = self.inside_roots(source_folder(source))
                worlds += [(p.stem, p, 'source') for p in world_files(folder)]
            except (OSError, ValueError, OutsideWorldFolders) as err:
                source_errors.append(f'{source}: {getattr(err, "strerror", None) or err}')
        return _unique_names(worlds), default_errors, source_errors

    def unknown(self, listed: Sequence[tuple[str, Path, str]]) -> list[Path]:
        """The files of ``listed`` not described yet (new or changed since)."""
        return sorted({path for _, path, _ in listed if _version(path) not in self._known})

    def learn(self, paths: Sequence[Path], descriptions: Sequence[Description]) -> None:
        for path, found in zip(paths, descriptions):
            self._known[_version(path)] = found

    def worlds(self, listed: Sequence[tuple[str, Path, str]]) -> list[World]:
        """``listed`` with descriptions and tags (undescribed files: none)."""
        worlds = []
        for name, path, origin in listed:
            facts = self.facts(path)
            worlds.append(World(name, path, facts.text, (*facts.tags, origin)))
        return worlds

    def facts(self, path: Path) -> Description:
        """What :meth:`learn` learnt of ``path`` (nothing where it did not)."""
        return self._known.get(_version(path), Description('', ()))

    def inside_roots(self, path: Path) -> Path:
        """``path`` resolved (symbolic links, ``..``), if inside an allowed folder."""
        resolved = path.resolve()
        if not any(resolved == root or root in resolved.parents for root in self.roots):
            raise OutsideWorldFolders(
                f"{path} is outside the folders worlds may come from (the package's own "
                "and the worlds.paths parameter's)")
        return resolved

    def resolve(self, uri: str) -> tuple[str, Path]:
        """(name, file) of a LoadWorld uri: ``file://`` URI, a path, ``package://scene_sim_ros/
        ...``, or the name of a listed world (``car``, ``default``). Raises ValueError (a scheme
        not served), OutsideWorldFolders, FileNotFoundError."""
        parsed = urlparse(uri)
        if uri.startswith(PACKAGE_URI):
            path = resources.SOURCE_ROOT / resources.PACKAGE / unquote(uri[len(PACKAGE_URI):])
        elif parsed.scheme == 'file':
            path = Path(unquote(parsed.netloc + parsed.path))
        elif parsed.scheme and len(parsed.scheme) > 1:
            raise ValueError(f'unsupported URI scheme {parsed.scheme!r}: use a path, file:// '
                             f'or {PACKAGE_URI}... (GetAvailableWorlds lists the worlds)')
        elif '/' not in uri and not Path(uri).suffix:
            by_name = {name: p for name, p, _ in self.listed()[0]}
            if uri not in by_name:
                raise FileNotFoundError(f'no world named {uri!r}; worlds: '
                                        + ', '.join(sorted(by_name)))
            return uri, by_name[uri]
        else:
            path = Path(uri).expanduser()
        resolved = self.inside_roots(path)
        if not resolved.is_file():
            raise FileNotFoundError(f'no such file: {path}')
        return path.stem, resolved

    def scratch_file(self, text: str) -> Path:
        """A file holding a LoadWorld ``resource_string``, its extension chosen from the content
        (a Webots ``#VRML_SIM`` header -> .wbt; XML -> .xml, told apart by its root element).
        Raises ValueError for anything else."""
        head = text.lstrip('\ufeff \t\r\n')
        if head.startswith('#VRML_SIM'):
            suffix = '.wbt'
        elif head.startswith('<'):
            suffix = '.xml'
        else:
            raise ValueError('resource_string is neither a Webots world (#VRML_SIM ...) nor XML '
                             '(SimRobot, Simox, RaiSim, URDF)')
        path = self._scratch / f'resource_string{suffix}'
        for old in self._scratch.iterdir():
            old.unlink()
        path.write_text(text, encoding='utf-8')
        return path

    def close(self) -> None:
        for old in self._scratch.iterdir():
            old.unlink()
        self._scratch.rmdir()


def _version(path: Path) -> tuple[Path, int, int]:
    try:
        stat = path.stat()
    except OSError:
        return path, -1, -1
    return path, stat.st_mtime_ns, stat.st_size


def _unique_names(worlds: list[tuple[str, Path, str]]) -> list[tuple[str, Path, str]]:
    """The first world of a name keeps it; later ones are called by their path."""
    seen: set[str] = set()
    unique = []
    for name, path, origin in worlds:
        if name in seen:
            name = str(path)
        seen.add(name)
        unique.append((name, path, origin))
    return unique

