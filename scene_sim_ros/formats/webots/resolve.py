"""Where the files of a Webots world come from, looked up in Webots' order.

A reference (an EXTERNPROTO url, a ``Mesh`` or ``ImageTexture`` url) is resolved against the
*location* of the file that wrote it: a local path, or the URL a downloaded or installed file
stands for, so that the relative urls inside a remote PROTO stay remote, recursively. ``webots://x`` means
``https://raw.githubusercontent.com/cyberbotics/webots/<tag>/x``, where ``<tag>`` is the one of
the PROTO that wrote it, else the world's version (``R2023b``).

A PROTO is looked for in this order, and the first hit is recorded with its source:

1. local: a relative or ``file://`` EXTERNPROTO against the writing file's folder; then
   ``<Name>.proto`` in that folder, its ``protos/`` and ``../protos/``, and the folders of the
   ``webots.proto_path`` parameter;
2. installation: a Webots installation (``$SCENE_SIM_ROS_WEBOTS_HOME``, ``$WEBOTS_HOME``, the
   ``webots.home`` parameter, else the usual places on Linux, the snap and macOS) maps
   ``webots://`` and the cyberbotics ``raw.githubusercontent.com`` URLs onto its tree (with a
   warning when the URL's tag is not the installed version);
3. cache: the user cache (:mod:`.cache`), keyed by URL;
4. downloaded: into that cache (:mod:`.download`) unless ``webots.download`` is false.

Local paths must lie in the world's tree (the folder above the world's own, as for every
format), a ``webots.proto_path`` folder, the installation or the cache; a remote file may only
name URLs. Anything else is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

from ...errors import SceneLoadError
from ..paths import is_file
from .cache import UrlCache, default_cache_dir
from .download import MIB, Downloader, DownloadError, DownloadPolicy, Progress

HOME_VARIABLES = ('SCENE_SIM_ROS_WEBOTS_HOME', 'WEBOTS_HOME')
USUAL_HOMES = ('/usr/local/webots', '/usr/share/webots', '/opt/webots',
               '/snap/webots/current/usr/share/webots', '/Applications/Webots.app/Contents')
WEBOTS_SCHEME = 'webots://'
RAW_PREFIX = 'https://raw.githubusercontent.com/cyberbotics/webots/'
RAW_URL = re.compile(r'https://raw\.githubusercontent\.com/cyberbotics/webots/([^/]+)/(.+)')
URL_SCHEMES = ('http://', 'https://', WEBOTS_SCHEME)
FALSE_WORDS = frozenset({'0', 'false', 'no', 'off'})

SOURCES = ('local', 'installation', 'cache', 'downloaded')


class RefusedPath(Exception):
    """A reference names a file outside the places a world may read."""


def is_url(ref: str) -> bool:
    return ref.startswith(URL_SCHEMES)


@dataclass(frozen=True)
class Installation:
    root: Path
    version: str | None  # 'R2023b', from resources/version.txt

    @staticmethod
    def find(explicit: str | None) -> tuple[Installation | None, list[str]]:
        """The installation to use and, when there is none, the places looked (in words)."""
        named = [(explicit, 'webots.home')] if explicit else []
        named += [(os.environ[v], f'${v}') for v in HOME_VARIABLES if os.environ.get(v)]
        for value, where in named:
            root = Path(value).expanduser()
            if (root / 'projects').is_dir():
                return Installation(root, _installed_version(root)), []
            if (root / 'Contents' / 'projects').is_dir():
                return Installation(root / 'Contents', _installed_version(root / 'Contents')), []
            return None, [f'{where}={value} (has no projects/ folder)']
        for candidate in USUAL_HOMES:
            if (Path(candidate) / 'projects').is_dir():
                return Installation(Path(candidate), _installed_version(Path(candidate))), []
        return None, ['no Webots installation (WEBOTS_HOME unset; none in '
                      + ', '.join(USUAL_HOMES) + ')']

    def path_of(self, url: str) -> tuple[Path, str] | None:
        """The file of a cyberbotics URL in this installation, and the URL's tag."""
        match = RAW_URL.fullmatch(url)
        if match is None:
            return None
        return self.root / match.group(2), match.group(1)


def _installed_version(root: Path) -> str | None:
    try:
        words = (root / 'resources' / 'version.txt').read_text(encoding='utf-8').split()
    except OSError:
        return None
    return words[0] if words else None


@dataclass(frozen=True)
class Found:
    path: Path  # the local file to read
    source: str  # one of SOURCES
    location: str  # a URL or a local path: what relative urls inside the file are joined to

    @property
    def shown(self) -> str:
        """Where the file is, for people: the local file, or the URL it came from."""
        return str(self.path) if self.source in ('local', 'installation') else self.location
    url: str | None = None  # the URL asked for, where one was (the cache's key)


@dataclass
class Lookup:
    found: Found | None
    looked: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ResolverSettings:
    proto_path: tuple[Path, ...] = ()
    home: str | None = None
    cache_dir: Path | None = None
    download: DownloadPolicy = DownloadPolicy()

    @staticmethod
    def from_parameters(parameters: Mapping[str, str],
                        progress: Progress | None = None) -> ResolverSettings:
        """``webots.proto_path`` (folders, ``os.pathsep``-separated), ``webots.home``,
        ``webots.cache_dir``, ``webots.download`` (default true; ``$SCENE_SIM_ROS_OFFLINE=1``
        makes it false), ``webots.download_timeout`` (s, 30), ``webots.download_max_mib``
        (256)."""
        folders = tuple(Path(p).expanduser() for p in
                        (parameters.get('webots.proto_path') or '').split(os.pathsep) if p)
        default = 'false' if os.environ.get('SCENE_SIM_ROS_OFFLINE', '') not in ('', '0') \
            else 'true'
        allowed = parameters.get('webots.download', default).strip().lower() not in FALSE_WORDS
        policy = DownloadPolicy(
            allowed=allowed,
            timeout=_positive(parameters, 'webots.download_timeout', 30.0),
            max_bytes=int(_positive(parameters, 'webots.download_max_mib', 256.0) * MIB),
            progress=progress)
        cache = parameters.get('webots.cache_dir')
        return ResolverSettings(folders, parameters.get('webots.home'),
                                Path(cache).expanduser() if cache else None, policy)


def _positive(parameters: Mapping[str, str], name: str, default: float) -> float:
    text = parameters.get(name)
    try:
        value = float(text) if text is not None else default
    except ValueError:
        value = -1.0
    if not value > 0.0:
        raise SceneLoadError(f'parameter {name}={text!r}: expected a positive number')
    return value


def world_root(world: Path) -> Path:
    """The tree a world may read: the folder above its own (``worlds/`` -> the project with
    its ``protos/``), unless that is the file system's root."""
    folder = world.resolve().parent
    return folder if folder.parent == folder.parent.parent else folder.parent


class Resolver:
    """Finds the files of one load and remembers where each came from."""

    def __init__(self, world: Path, settings: ResolverSettings, version_tag: str | None,
                 warn: Callable[[str], None]):
        self.settings = settings
        self.version_tag = version_tag or 'master'
        self.warn = warn
        self.installation, self.installation_looked = Installation.find(settings.home)
        self.cache = UrlCache(settings.cache_dir or default_cache_dir())
        self.downloader = Downloader(self.cache, settings.download)
        self.locations: dict[str, str] = {}  # a local file read -> the location it came from
        self.protos: dict[str, Found] = {}  # PROTO name -> where its file came from
        self.assets: dict[str, Found] = {}  # mesh/texture reference -> where it came from
        self._warned_tags: set[str] = set()
        self._failed: dict[str, str] = {}  # URL -> why its download failed (tried once a load)
        self.roots = [world_root(world), *(p.resolve() for p in settings.proto_path),
                      self.cache.root.resolve()]
        if self.installation is not None:
            self.roots.append(self.installation.root.resolve())

    # locations ---------------------------------------------------------------------------------
    def location_of(self, file: str) -> str:
        return self.locations.get(file, file)

    def absolute(self, ref: str, base: str) -> str:
        """``ref`` joined to the location ``base``: a canonical URL or an absolute path."""
        if ref.startswith(WEBOTS_SCHEME):
            return RAW_PREFIX + f'{self._tag_of(base)}/' + ref[len(WEBOTS_SCHEME):].lstrip('/')
        if is_url(ref):
            return ref
        local = ref.removeprefix('file://')
        if is_url(base):
            if ref.startswith('file://') or Path(local).is_absolute():
                raise RefusedPath(f'{ref!r} names a local file from the remote file {base}')
            return urljoin(base, local)
        path = Path(local)
        return str(path if path.is_absolute() else Path(base).parent / path)

    def _tag_of(self, base: str) -> str:
        """The Webots version a ``webots://`` url in the file at ``base`` means: that of the URL
        the file was reached by, else the world's."""
        match = RAW_URL.fullmatch(base)
        return match.group(1) if match else self.version_tag

    def _inside(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(root) for root in self.roots)

    def confined(self, path: Path) -> Path:
        resolved = path.resolve()
        if not self._inside(resolved):
            raise RefusedPath(
                f"{path} is outside the world's tree ({self.roots[0]}), the webots.proto_path "
                'folders, the Webots installation and the cache; refused (add its folder to '
                'webots.proto_path)')
        return resolved

    # look-ups ----------------------------------------------------------------------------------
    def find_proto(self, name: str, url: str | None, base: str) -> Lookup:
        """The file of PROTO ``name`` declared by EXTERNPROTO ``url`` (or none) in ``base``."""
        lookup = Lookup(None)
        target = self.absolute(url, base) if url is not None else None
        if target is not None and not is_url(target):
            lookup.found = self._local(Path(target), lookup)
        if lookup.found is None and (target is None or is_url(target)):
            lookup.found = self._by_name(name, base, lookup)
            if lookup.found is None and target is not None:
                lookup.found = self._remote(target, lookup)
        if lookup.found is not None:
            self.protos.setdefault(name, lookup.found)
            self.locations[str(lookup.found.path)] = lookup.found.location
        return lookup

    def find_asset(self, ref: str, base: str) -> Lookup:
        """A mesh or texture ``ref`` written in the file at location ``base``."""
        lookup = Lookup(None)
        target = self.absolute(ref, base)
        lookup.found = self._remote(target, lookup) if is_url(target) else \
            self._local(Path(target), lookup)
        if lookup.found is not None:
            self.assets.setdefault(target, lookup.found)
        return lookup

    def _local(self, path: Path, lookup: Lookup) -> Found | None:
        lookup.looked.append(str(path))
        if not is_file(path):
            return None
        resolved = self.confined(path)
        installed = self.installation is not None and resolved.is_relative_to(
            self.installation.root.resolve())
        return Found(resolved, 'installation' if installed else 'local', str(resolved))

    def _by_name(self, name: str, base: str, lookup: Lookup) -> Found | None:
        folders = list(self.settings.proto_path)
        if not is_url(base):
            folder = Path(base).resolve().parent
            folders = [folder, folder / 'protos', folder.parent / 'protos', *folders]
        for folder in folders:
            candidate = folder / f'{name}.proto'
            lookup.looked.append(str(candidate))
            if is_file(candidate) and self._inside(candidate):
                return Found(candidate.resolve(), 'local', str(candidate.resolve()))
        return None

    def _remote(self, url: str, lookup: Lookup) -> Found | None:
        return (self._installed(url, lookup) or self._cached(url, lookup)
                or self._download(url, lookup))

    def _installed(self, url: str, lookup: Lookup) -> Found | None:
        mapped = self.installation.path_of(url) if self.installation is not None else None
        if mapped is None:
            if self.installation is None and url.startswith(RAW_PREFIX):
                lookup.looked.extend(self.installation_looked)
            return None
        path, tag = mapped
        lookup.looked.append(f'{path} (Webots installation)')
        if not is_file(path):
            return None
        version = self.installation.version if self.installation is not None else None
        if version is not None and tag != version and tag not in self._warned_tags:
            self._warned_tags.add(tag)
            self.warn(f'the world asks for Webots {tag} files; using the installed {version} '
                      f'({path.parent})')
        # located at its URL: its relative urls become URLs too, found in the installation
        # again, and a cache filled from it holds what downloads would
        return Found(path.resolve(), 'installation', url, url)

    def _cached(self, url: str, lookup: Lookup) -> Found | None:
        path = self.cache.get(url)
        lookup.looked.append(f'{self.cache.path_for(url)} (cache)')
        return Found(path, 'cache', url, url) if path is not None else None

    def _download(self, url: str, lookup: Lookup) -> Found | None:
        if url not in self._failed:
            try:
                path = self.downloader.fetch(url)
                return Found(path, 'downloaded', url, url)
            except DownloadError as err:
                self._failed[url] = str(err)
        lookup.looked.append(f'download {url}: {self._failed[url]}')
        return None

    def remote_files(self) -> list[tuple[str, str, Path]]:
        """(URL, source, local file) of every remote PROTO, mesh and texture found."""
        found = [*self.protos.values(), *self.assets.values()]
        return [(f.url, f.source, f.path) for f in found if f.url is not None]

    def close(self) -> None:
        self.downloader.close()


REMEDIES = ('set WEBOTS_HOME to a Webots installation (its projects/ folder), '
            'or --param webots.proto_path=DIR (a folder with the .proto files), '
            'or allow downloads (webots.download=true, no --offline), '
            'or run `scene-sim-ros fetch WORLD` on a connected machine to fill the cache')
