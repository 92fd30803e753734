"""Refresh the rosdistro snapshot beside this file: the rosdep keys (base.yaml, python.yaml) and
the released package names of Jazzy and Kilted, from ros/rosdistro's master branch.

    python test/data/rosdistro/refresh.py          # needs the network and PyYAML
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import yaml

REPO = 'ros/rosdistro'
RAW = f'https://raw.githubusercontent.com/{REPO}'
HERE = Path(__file__).resolve().parent
HEADER = ('# ros/rosdistro {commit} ({date}): {what}\n'
          '# refresh: python test/data/rosdistro/refresh.py (needs the network)\n')


def fetch(path: str, commit: str) -> object:
    with urllib.request.urlopen(f'{RAW}/{commit}/{path}', timeout=60) as response:
        return yaml.safe_load(response.read())


def main() -> None:
    with urllib.request.urlopen(f'https://api.github.com/repos/{REPO}/commits/master',
                                timeout=60) as response:
        head = json.load(response)
    commit, date = head['sha'], head['commit']['committer']['date'][:10]
    keys = set(fetch('rosdep/base.yaml', commit)) | set(fetch('rosdep/python.yaml', commit))
    (HERE / 'rosdep_keys.txt').write_text(
        HEADER.format(commit=commit, date=date,
                      what='the keys of rosdep/base.yaml and rosdep/python.yaml')
        + '\n'.join(sorted(keys)) + '\n')
    for distro in ('jazzy', 'kilted'):
        names: set[str] = set()
        for repo, info in fetch(f'{distro}/distribution.yaml', commit)['repositories'].items():
            release = info.get('release')
            if release:
                names |= set(release.get('packages', [repo]))
        (HERE / f'{distro}_packages.txt').write_text(
            HEADER.format(commit=commit, date=date,
                          what=f'the released packages of {distro}/distribution.yaml')
            + '\n'.join(sorted(names)) + '\n')


if __name__ == '__main__':
    main()
