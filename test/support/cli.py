"""The ``scene-sim-ros`` command as a user runs it, for the CLI tests: the installed console script
in a subprocess, and checks of what it prints (the ``inspect --json`` contract of
docs/architecture.md, ``file:line: message`` scene errors)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
from pathlib import Path

from support.processes import console_script

REPO = Path(__file__).resolve().parents[2]
FILE_LINE_MESSAGE = re.compile(r'^(?P<file>[^\s:][^:]*):(?P<line>\d+): (?P<message>\S.*)$')


def cli(*args: object, cwd: Path = REPO, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """``scene-sim-ros ARGS`` as a user runs it; stdout and stderr kept apart."""
    return subprocess.run([console_script('scene-sim-ros'), *map(os.fspath, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)


def inspect_json(path: Path, *extra: str) -> dict:
    result = cli('inspect', '--json', path, *extra)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    check_summary_contract(summary)
    return summary


def params(values: dict[str, str]) -> list[str]:
    return [arg for name, value in values.items() for arg in ('--param', f'{name}={value}')]


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_summary_contract(summary: dict) -> None:
    """The keys and value types that docs/architecture.md promises for ``inspect --json``."""
    assert {'format', 'step_length', 'gravity', 'entities', 'warnings'} <= summary.keys()
    assert isinstance(summary['format'], str)
    assert is_number(summary['step_length']) and summary['step_length'] > 0
    assert len(summary['gravity']) == 3 and all(map(is_number, summary['gravity']))
    assert all(isinstance(w, str) for w in summary['warnings'])
    for entity in summary['entities']:
        assert {'name', 'kind', 'links', 'mass', 'joints', 'sensors'} <= entity.keys(), entity
        assert entity['kind'] in ('robot', 'object', 'static')
        assert isinstance(entity['links'], int) and entity['links'] >= 1
        assert is_number(entity['mass']) and entity['mass'] >= 0
        if entity['kind'] != 'robot':
            assert entity['joints'] == [] and entity['sensors'] == [], entity['name']
        for joint in entity['joints']:
            assert {'name', 'type', 'axis', 'limits', 'motor'} <= joint.keys()
            assert joint['type'] in ('revolute', 'prismatic')
            assert math.isclose(math.hypot(*joint['axis']), 1.0, abs_tol=1e-6), joint
            if joint['limits'] is not None:
                low, high = joint['limits']
                assert low <= high, joint
            assert joint['motor'] is None or isinstance(joint['motor'].get('type'), str)
        for sensor in entity['sensors']:
            assert {'name', 'type', 'link'} <= sensor.keys()


def robots(summary: dict) -> dict[str, dict]:
    return {e['name']: e for e in summary['entities'] if e['kind'] == 'robot'}


def assert_scene_error(result: subprocess.CompletedProcess[str]) -> list[re.Match[str]]:
    """Exit 2, nothing on stdout, every stderr line ``file:line: message``; returns the matches."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ''
    lines = result.stderr.strip().splitlines()
    assert lines, 'no message on stderr'
    matches = [FILE_LINE_MESSAGE.match(line) for line in lines]
    assert all(matches), f'not file:line: message: {result.stderr!r}'
    return matches
