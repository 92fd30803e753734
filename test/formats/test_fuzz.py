"""Mutated scene files either load (and build and step with finite poses) or raise SceneLoadError.

A bounded run for CI: ``SCENE_SIM_ROS_FUZZ_N`` mutants per format (default 60, a few seconds
each); ``bench/fuzz.py`` runs 100,000 in worker processes with a time limit per input. The seeds
are fixed, so a failure names a mutant that can be reproduced with :mod:`support.fuzz`.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

import pytest

from support.fuzz import FINE, SEEDS, Fuzzer, check

COUNT = int(os.environ.get('SCENE_SIM_ROS_FUZZ_N', '100'))
SEED = 20261125
HANG_SECONDS = 10


@pytest.mark.parametrize('fmt', sorted(SEEDS))
def test_mutants_load_or_fail_with_a_scene_error(fmt: str, tmp_path: Path) -> None:
    fuzzer = Fuzzer(tmp_path)
    if not fuzzer.seeds(fmt):
        pytest.skip(f'no {fmt} seed files found')
    counts: Counter[str] = Counter()
    escapes: list[str] = []

    def hang(*_: object) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, hang)
    try:
        for number, path in enumerate(fuzzer.mutants(fmt, COUNT, SEED)):
            signal.alarm(HANG_SECONDS)
            try:
                outcome, detail = check(path, fuzzer.mesh_dir)
            except TimeoutError:
                outcome, detail = 'Hang', f'over {HANG_SECONDS} s'
            finally:
                signal.alarm(0)
            counts[outcome] += 1
            if outcome not in FINE:
                escapes.append(f'mutant {number} of {path.name}: {outcome}: {detail}')
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not escapes, f'{len(escapes)} of {COUNT} escaped ({dict(counts)}):\n' + \
        '\n'.join(escapes[:10])
    assert counts['error'] > 0  # the mutator does break files
