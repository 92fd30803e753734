"""The batch spec: scenes x engines x parameter sets x seeds, how long, what to record, where
to.

A spec is a YAML file (README, *Many simulations at once*) or the same mapping given to
:func:`spec_from_mapping`. Scene paths and hook modules are found next to the spec (a scene may
also be an example name, ``scene-sim-ros examples``, or ``default``); ``output`` is relative to
the current folder, so that a spec shipped read-only still writes where the batch starts. Every mistake is a
:class:`~.yaml_nodes.SpecError` ``file:line: what``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scene_sim_ros.batch.yaml_nodes import Located, SpecError, load_located, plain
from scene_sim_ros.sim.engines import ENGINES

METRICS = ('fallen', 'distance')
HOOK_CALLS = ('step', 'end')


@dataclass(frozen=True, slots=True)
class SceneEntry:
    """One scene of the spec: ``name`` (the summary's label) and its file."""

    name: str
    path: Path


@dataclass(frozen=True, slots=True)
class SensorSampling:
    """Record ``entity``'s ``sensor`` reading ``rate`` times per simulated second."""

    entity: str
    sensor: str
    rate: float


@dataclass(frozen=True, slots=True)
class Recording:
    """What a run records besides its identity.

    ``hooks`` maps ``'step'`` (after every step) and/or ``'end'`` to ``module:function``.
    """

    final_poses: bool = True
    metrics: tuple[str, ...] = ()
    fallen_tilt_deg: float = 45.0
    sensors: tuple[SensorSampling, ...] = ()
    hooks: tuple[tuple[str, str], ...] = ()

    def hook(self, call: str) -> str | None:
        return dict(self.hooks).get(call)


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """A parsed spec. ``param_sets`` are ``(name, mapping)`` pairs; ``engines`` the physics
    engines each run is made in (one run per engine); ``time_limit`` is wall seconds per attempt
    (``None``: no limit); a failed run is tried ``1 + retries`` times."""

    scenes: tuple[SceneEntry, ...]
    seeds: tuple[int, ...]
    duration: float
    output: Path
    param_sets: tuple[tuple[str, dict[str, Any]], ...] = (('default', {}),)
    engines: tuple[str, ...] = (ENGINES[0],)
    record: Recording = field(default_factory=Recording)
    retries: int = 1
    time_limit: float | None = 600.0
    base_dir: Path = Path('.')
    source: str = '<spec>'


def load_spec(path: str | Path, output: str | Path | None = None) -> BatchSpec:
    """Read and check the spec file ``path``; ``output`` (``--output``) replaces the spec's
    ``output``, which may then be left out."""
    path = Path(path)
    try:
        text = path.read_text(encoding='utf-8')
    except OSError as err:
        raise SpecError(f'cannot read: {err.strerror}', path) from None
    return _parse(load_located(text, path), path.resolve().parent, str(path), output)


def spec_from_mapping(mapping: dict[str, Any], base_dir: str | Path = '.') -> BatchSpec:
    """A spec from a Python mapping of the file's shape; relative paths start at ``base_dir``."""
    return _parse(_locate(mapping), Path(base_dir).resolve(), '<spec>')


def _locate(value: Any) -> Located:
    if isinstance(value, dict):
        return Located({k: _locate(v) for k, v in value.items()}, 0)
    if isinstance(value, (list, tuple)):
        return Located([_locate(v) for v in value], 0)
    return Located(value, 0)


class _Fields:
    """Typed reads from one YAML mapping, each error at the line of the offending value."""

    def __init__(self, node: Located, source: str, what: str):
        self.source = source
        if not isinstance(node.value, dict):
            raise self.error(f'{what}: expected a mapping', node)
        self.node = node
        self.values: dict[Any, Located] = node.value
        self.what = what

    def error(self, message: str, node: Located | None = None) -> SpecError:
        line = (node or self.node).line
        return SpecError(message, self.source, line or None)

    def get(self, key: str) -> Located | None:
        return self.values.get(key)

    def require(self, key: str) -> Located:
        item = self.values.get(key)
        if item is None or item.value is None:
            raise self.error(f'{self.what}: {key!r} is required')
        return item

    def number(self, key: str, default: float | None, *, minimum: float = 0.0,
               positive: bool = False) -> float | None:
        item = self.values.get(key)
        if item is None or item.value is None:
            return default
        value = item.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f'{key}: expected a number, got {value!r}', item)
        if value < minimum or (positive and value <= 0):
            bound = '> 0' if positive else f'>= {minimum:g}'
            raise self.error(f'{key}: must be {bound}, got {value!r}', item)
        return float(value)

    def integer(self, key: str, default: int) -> int:
        item = self.values.get(key)
        if item is None:
            return default
        if isinstance(item.value, bool) or not isinstance(item.value, int) or item.value < 0:
            raise self.error(f'{key}: expected an integer >= 0, got {item.value!r}', item)
        return int(item.value)

    def check_known(self, known: tuple[str, ...]) -> None:
        for key, item in self.values.items():
            if key not in known:
                raise self.error(f'{self.what}: unknown key {key!r} (known: {", ".join(known)})',
                                 item)


SPEC_KEYS = ('scenes', 'engine', 'seeds', 'params', 'duration', 'record', 'output', 'retries',
             'time_limit')


def _parse(root: Located, base_dir: Path, source: str,
           output_override: str | Path | None = None) -> BatchSpec:
    spec = _Fields(root, source, 'spec')
    spec.check_known(SPEC_KEYS)
    duration = spec.number('duration', None, positive=True)
    if duration is None:
        raise spec.error("spec: 'duration' (simulated seconds per run) is required")
    output = spec.get('output') if output_override is not None else spec.require('output')
    if output is not None and (not isinstance(output.value, str) or not output.value):
        raise spec.error('output: expected a folder path', output)
    folder: str | Path = ''
    if output_override is not None:
        folder = output_override
    elif output is not None:
        folder = output.value
    time_limit = spec.number('time_limit', 600.0, positive=True)
    return BatchSpec(
        scenes=_scenes(spec.require('scenes'), base_dir, source),
        seeds=_seeds(spec.get('seeds'), spec),
        duration=float(duration),
        output=Path(folder).expanduser().resolve(),  # where the batch starts
        param_sets=_param_sets(spec.get('params'), spec),
        engines=_engines(spec.get('engine'), spec),
        record=_recording(spec.get('record'), base_dir, source),
        retries=spec.integer('retries', 1),
        time_limit=time_limit,
        base_dir=base_dir,
        source=source)


def _scenes(node: Located, base_dir: Path, source: str) -> tuple[SceneEntry, ...]:
    items = node.value if isinstance(node.value, list) else [node]
    entries: list[SceneEntry] = []
    for item in items:
        name = None
        if isinstance(item.value, dict):
            fields = _Fields(item, source, 'scene')
            fields.check_known(('path', 'name'))
            where = fields.require('path')
            name_item = fields.get('name')
            name = None if name_item is None else str(name_item.value)
        else:
            where = item
        if not isinstance(where.value, str) or not where.value:
            raise SpecError(f'scenes: expected a file or example name, got {where.value!r}',
                            source, where.line or None)
        path = _scene_path(where, base_dir, source)
        entries.append(SceneEntry(name or path.stem, path))
    if not entries:
        raise SpecError('scenes: no scene given', source, node.line or None)
    names = [e.name for e in entries]
    for entry in entries:
        if names.count(entry.name) > 1:
            raise SpecError(f'scenes: two scenes are named {entry.name!r}; give one a name:',
                            source, node.line or None)
    return tuple(entries)


def _scene_path(item: Located, base_dir: Path, source: str) -> Path:
    from scene_sim_ros.errors import SceneSimError
    from scene_sim_ros.resources import default_scene_path, example_path
    text = item.value
    path = (base_dir / Path(text).expanduser()).resolve()
    if path.is_file():
        return path
    if text == 'default':
        return default_scene_path()
    if Path(text).name == text and not Path(text).suffix:
        try:
            return example_path(text)
        except SceneSimError as err:
            raise SpecError(f'scenes: {text!r}: no such file, and {err}', source,
                            item.line or None) from None
    raise SpecError(f'scenes: no such file: {path}', source, item.line or None)


def _engines(node: Located | None, spec: _Fields) -> tuple[str, ...]:
    """``engine: mujoco``, or a list (``[pybullet, mujoco]``: every run in each)."""
    if node is None or node.value is None:
        return (ENGINES[0],)
    items = node.value if isinstance(node.value, list) else [node]
    engines = []
    for item in items:
        if item.value not in ENGINES:
            raise spec.error(f'engine: {item.value!r} is not known; engines: '
                             f'{", ".join(ENGINES)}', item)
        engines.append(str(item.value))
    if not engines:
        raise spec.error('engine: no engine given (leave it out for pybullet)', node)
    if len(set(engines)) != len(engines):
        raise spec.error('engine: an engine is listed twice', node)
    return tuple(engines)


def _seeds(node: Located | None, spec: _Fields) -> tuple[int, ...]:
    if node is None:
        return (0,)
    value = node.value
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise spec.error(f'seeds: a count must be >= 1, got {value}', node)
        return tuple(range(value))
    if isinstance(value, dict):
        fields = _Fields(node, spec.source, 'seeds')
        fields.check_known(('from', 'count'))
        count = fields.integer('count', 0)
        if count < 1:
            raise fields.error("seeds: 'count' >= 1 is required")
        start = fields.integer('from', 0)
        return tuple(range(start, start + count))
    if isinstance(value, list) and value:
        seeds = []
        for item in value:
            if isinstance(item.value, bool) or not isinstance(item.value, int) or item.value < 0:
                raise spec.error(f'seeds: expected integers >= 0, got {item.value!r}', item)
            seeds.append(item.value)
        if len(set(seeds)) != len(seeds):
            raise spec.error('seeds: a seed is listed twice', node)
        return tuple(seeds)
    raise spec.error(f'seeds: expected a count, a list or {{from:, count:}}, got {plain(node)!r}',
                     node)


def _param_sets(node: Located | None, spec: _Fields) -> tuple[tuple[str, dict[str, Any]], ...]:
    if node is None or node.value is None:
        return (('default', {}),)
    if isinstance(node.value, dict):
        named = list(node.value.items())
    elif isinstance(node.value, list):
        named = [(f'p{i}', item) for i, item in enumerate(node.value)]
    else:
        raise spec.error('params: expected a list of mappings or name: mapping', node)
    sets = []
    for name, item in named:
        if not isinstance(item.value, dict):
            raise spec.error(f'params {name}: expected a mapping, got {plain(item)!r}', item)
        values = plain(item)
        scene_parameters = values.get('scene_parameters', {})
        if not isinstance(scene_parameters, dict):
            raise spec.error(f'params {name}: scene_parameters: expected NAME: VALUE pairs',
                             item.value['scene_parameters'])
        try:
            json.dumps(values, allow_nan=False)
        except (TypeError, ValueError) as err:  # e.g. a YAML date: hooks get JSON-ready values
            raise spec.error(f'params {name}: {err}', item) from None
        sets.append((str(name), values))
    if not sets:
        raise spec.error('params: no parameter set given (leave it out for one empty set)', node)
    return tuple(sets)


RECORD_KEYS = ('final_poses', 'metrics', 'fallen_tilt', 'sensors', 'hooks')


def _recording(node: Located | None, base_dir: Path, source: str) -> Recording:
    if node is None:
        return Recording()
    fields = _Fields(node, source, 'record')
    fields.check_known(RECORD_KEYS)
    final = fields.get('final_poses')
    if final is not None and not isinstance(final.value, bool):
        raise fields.error(f'final_poses: expected true or false, got {final.value!r}', final)
    return Recording(
        final_poses=True if final is None else final.value,
        metrics=_metrics(fields),
        fallen_tilt_deg=float(fields.number('fallen_tilt', 45.0, positive=True) or 45.0),
        sensors=_sensors(fields.get('sensors'), source),
        hooks=_hooks(fields.get('hooks'), base_dir, source))


def _metrics(fields: _Fields) -> tuple[str, ...]:
    node = fields.get('metrics')
    if node is None:
        return ()
    items = node.value if isinstance(node.value, list) else [node]
    names = []
    for item in items:
        if item.value not in METRICS:
            raise fields.error(f'metrics: unknown metric {item.value!r} (known: '
                               f'{", ".join(METRICS)})', item)
        names.append(item.value)
    return tuple(dict.fromkeys(names))


def _sensors(node: Located | None, source: str) -> tuple[SensorSampling, ...]:
    if node is None:
        return ()
    if not isinstance(node.value, list):
        raise SpecError('sensors: expected a list of {entity, sensor, rate}', source,
                        node.line or None)
    samplings = []
    for item in node.value:
        fields = _Fields(item, source, 'sensor')
        fields.check_known(('entity', 'sensor', 'rate'))
        entity, sensor = fields.require('entity'), fields.require('sensor')
        rate = fields.number('rate', None, positive=True)
        if rate is None:
            raise fields.error("sensor: 'rate' (samples per simulated second) is required")
        samplings.append(SensorSampling(str(entity.value), str(sensor.value), rate))
    return tuple(samplings)


def _hooks(node: Located | None, base_dir: Path, source: str) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    fields = _Fields(node, source, 'hooks')
    fields.check_known(HOOK_CALLS)
    hooks = []
    for call, item in fields.values.items():
        target = item.value
        module, sep, function = str(target).partition(':')
        if not sep or not module or not function.isidentifier():
            raise fields.error(f'hooks {call}: expected module:function, got {target!r}', item)
        with importable_from(base_dir):
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                found = None
        if found is None:
            raise fields.error(f'hooks {call}: no module {module!r} (looked next to the spec '
                               'and on sys.path)', item)
        hooks.append((call, target))
    return tuple(hooks)


@contextmanager
def importable_from(folder: Path) -> Iterator[None]:
    """Modules in ``folder`` importable for the duration (hooks live next to the spec)."""
    entry = str(folder)
    added = entry not in sys.path
    if added:
        sys.path.insert(0, entry)
    try:
        yield
    finally:
        if added and entry in sys.path:
            sys.path.remove(entry)


def resolve_hook(target: str) -> Callable[..., Any]:
    """The function ``module:function`` names (imported now)."""
    module_name, _, function = target.partition(':')
    module = importlib.import_module(module_name)
    hook = getattr(module, function, None)
    if not callable(hook):
        raise AttributeError(f'hook {target}: {module_name} has no function {function!r}')
    return hook
