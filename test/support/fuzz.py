"""A seeded mutation fuzzer for the scene loaders and the builder.

Seeds are the shipped examples (``scene_sim_ros/data``) and, where present, the corpus. Each seed's
folder is copied once into a work folder so that a mutant, written beside its seed's copy, still
finds the seed's includes, meshes and PROTOs. A mutant either loads (then it is built in PyBullet,
stepped and its link poses checked finite) or raises :class:`SceneLoadError`; anything else is an
*escape*, counted by exception class (``NaNPose`` for a non-finite pose after a few steps).
A loaded scene whose physics the explosion guard stops while stepping is ``unstable``: a clear
error of the running simulation, not an escape.

    from support.fuzz import Fuzzer
    fuzzer = Fuzzer(work_dir)
    counts = fuzzer.run('simrobot', count=100, seed=1)   # Counter: outcome -> count
"""

from __future__ import annotations

import math
import random
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.corpus import CORPUS

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / 'scene_sim_ros' / 'data'
MAX_SEED_BYTES = 200_000  # bigger seeds load too slowly for many mutants

# format -> (root folder, glob) pairs; the root folder is what gets copied
SEEDS: dict[str, tuple[tuple[Path, str], ...]] = {
    'simrobot': ((DATA / 'examples', '*.ros2'), (DATA / 'scenes', '*.ros2'),
                 (CORPUS / 'simrobot' / 'SimRobot', 'Scenes/*.ros2'),
                 (CORPUS / 'simrobot' / 'BHumanCodeRelease@2018', '**/*.rsi2')),
    'webots': ((DATA / 'examples', '*.wbt'), (DATA / 'examples', '*.proto'),
               (CORPUS / 'webots' / 'webots', '**/*.wbt'),
               (CORPUS / 'webots' / 'webots_ros2' / 'webots_ros2_tests', '**/*.wbt')),
    'simox': ((DATA / 'examples', 'simox_*.xml'),
              (CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data', 'robots/examples/**/*.xml'),
              (CORPUS / 'simox' / 'Simox' / 'VirtualRobot' / 'data', 'scenes/**/*.xml')),
    'raisim': ((DATA / 'examples', 'raisim_*.xml'),
               (CORPUS / 'raisim' / 'raisim2Lib', '**/*.xml')),
    'urdf': ((DATA / 'examples', '*.urdf'), (CORPUS / 'raisim' / 'raisim2Lib', '**/*.urdf')),
}

# values that have broken loaders before: non-finite, huge, negative, zero, paths, bad bytes
TOKENS: tuple[bytes, ...] = (
    b'nan', b'NaN', b'inf', b'-inf', b'1e308', b'-1e308', b'1e999', b'0', b'-0', b'-1',
    b'99999999999999999999999999', b'1e-320', b'0x7fffffffffffffff', b'"', b"'", b'<', b'>',
    b'</', b'/>', b'{', b'}', b'[', b']', b'%<', b'>%', b'{2**99999}', b'@@x', b'&amp;', b'&#0;',
    b'\xff\xfe', b'\xc3', b'\xed\xa0\x80', b'\x00', b'../../../../../../etc/passwd',
    b'/etc/passwd', b'package://nothing/x.stl', b'a' * 5000, b'DEF A', b'USE A', b' ref="x"',
    b'$x', b'\n', b'1mm', b'90degree', b'1e9',
)
_NUMBER = re.compile(rb'[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?')
_QUOTED = re.compile(rb'"[^"\n]{0,200}"')
STEPS = 5


@dataclass(frozen=True)
class Seed:
    format: str
    path: Path  # inside the work folder's copy


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits of ``data``: byte flips, span deletes/duplicates, inserted
    tokens, numbers or quoted values replaced by tokens, truncation."""
    for _ in range(rng.randint(1, 3)):
        data = _edit(data, rng)
    return data


def _edit(data: bytes, rng: random.Random) -> bytes:
    n = len(data)
    at = rng.randrange(n + 1)
    kind = rng.randrange(8)
    if kind == 0 and n:
        i = rng.randrange(n)
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if kind == 1:
        return data[:at] + data[at + rng.randint(1, 64):]
    if kind == 2:
        span = data[at:at + rng.randint(1, 400)]
        return data[:at] + span * rng.choice((2, 3, 16)) + data[at:]
    if kind == 3:
        return data[:at] + rng.choice(TOKENS) + data[at:]
    if kind in (4, 5):
        matches = list((_NUMBER if kind == 4 else _QUOTED).finditer(data))
        if matches:
            m = rng.choice(matches)
            token = rng.choice(TOKENS)
            new = b'"' + token + b'"' if kind == 5 else token
            return data[:m.start()] + new + data[m.end():]
        return data
    if kind == 6:
        return data[:at]
    lines = data.split(b'\n')  # duplicate or drop a line
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines.insert(i, lines[i])
    else:
        del lines[i]
    return b'\n'.join(lines)


class Fuzzer:
    """Mutants of the seeds of a format, written into ``work_dir`` and checked one by one."""

    def __init__(self, work_dir: Path, *, build: bool = True):
        self.work_dir = Path(work_dir)
        self.build = build
        self._copies: dict[Path, Path] = {}
        self.mesh_dir = Path(tempfile.mkdtemp(prefix='meshes-', dir=self.work_dir))

    def seeds(self, fmt: str) -> list[Seed]:
        found: list[Seed] = []
        for root, pattern in SEEDS[fmt]:
            if not root.is_dir():
                continue
            for path in sorted(root.glob(pattern)):
                if path.is_file() and path.stat().st_size <= MAX_SEED_BYTES \
                        and not path.name.startswith('fuzz-'):
                    found.append(Seed(fmt, self._copy(root) / path.relative_to(root)))
        return found

    def _copy(self, root: Path) -> Path:
        if root not in self._copies:
            target = self.work_dir / f'{len(self._copies)}-{root.name}'
            shutil.copytree(root, target, symlinks=True,
                            ignore=shutil.ignore_patterns('*.png', '*.jpg', '__pycache__'))
            self._copies[root] = target
        return self._copies[root]

    def mutants(self, fmt: str, count: int, seed: int) -> Iterator[Path]:
        """``count`` mutant files of ``fmt``'s seeds (one at a time, each overwritten by the
        next), reproducible from ``seed``."""
        seeds = self.seeds(fmt)
        if not seeds:
            return
        rng = random.Random(seed)
        originals = {s.path: s.path.read_bytes() for s in seeds}
        for i in range(count):
            chosen = seeds[i % len(seeds)]
            path = chosen.path.with_name(f'fuzz-{chosen.path.name}')
            path.write_bytes(mutate(originals[chosen.path], rng))
            yield path

    def run(self, fmt: str, count: int, seed: int) -> tuple[Counter[str], dict[str, str]]:
        """Outcome counts (``loaded``, ``error``, or an escape's class name) and, for each
        escape class, the first traceback summary seen."""
        counts: Counter[str] = Counter()
        examples: dict[str, str] = {}
        for path in self.mutants(fmt, count, seed):
            outcome, detail = check(path, self.mesh_dir, build=self.build)
            counts[outcome] += 1
            if outcome not in FINE and outcome not in examples:
                examples[outcome] = f'{path.name} (seed {seed}): {detail}'
        return counts, examples


def check(path: Path, mesh_dir: Path, *, build: bool = True) -> tuple[str, str]:
    """Load (and build) ``path``: ``('loaded'|'error'|<escape class>, detail)``."""
    from scene_sim_ros.errors import SceneLoadError
    from scene_sim_ros.formats import load_scene
    from scene_sim_ros.formats.simrobot import reader
    reader.clear_cache()
    offline = {'webots.download': 'false'} if path.suffix in ('.wbt', '.proto') else None
    try:
        scene = load_scene(path, parameters=offline)  # a mutated EXTERNPROTO url: no network
    except SceneLoadError as err:
        return 'error', str(err)[:200]
    except Exception as err:  # noqa: BLE001 - counting escapes is the point
        return type(err).__name__, _where(err)
    if not build:
        return 'loaded', ''
    return _build(scene, mesh_dir)


def _build(scene: object, mesh_dir: Path) -> tuple[str, str]:
    from scene_sim_ros.errors import SceneLoadError, SimulationError
    from scene_sim_ros.sim.engines.pybullet.simulation import Simulation
    try:
        with Simulation(scene, mesh_dir=mesh_dir) as sim:  # type: ignore[arg-type]
            try:
                sim.step(STEPS)
            except SimulationError as err:
                return 'unstable', str(err)[:200]
            for entity in sim.entity_names():
                for link, pose in sim.link_poses(entity).items():
                    if not all(math.isfinite(v) for v in (*pose.position, *pose.orientation)):
                        return 'NaNPose', f'{entity}/{link} after {STEPS} steps'
    except SceneLoadError as err:
        return 'error', str(err)[:200]
    except Exception as err:  # noqa: BLE001
        return 'build:' + type(err).__name__, _where(err)
    return 'loaded', ''


def _where(err: BaseException) -> str:
    import traceback
    frames = traceback.extract_tb(err.__traceback__)
    last = frames[-1] if frames else None
    place = f'{Path(last.filename).name}:{last.lineno}' if last else '?'
    return f'{place}: {err!s:.160}'


FINE = ('loaded', 'error', 'unstable')


def escapes(counts: Counter[str]) -> int:
    return sum(n for outcome, n in counts.items() if outcome not in FINE)
