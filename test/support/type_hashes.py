"""RIHS01 type hashes of interface definitions (.msg/.srv/.action files), computed with rosidl
the way a package build does (rosidl_adapter to .idl, then rosidl_generator_type_description),
without building anything. Dependencies (std_msgs, geometry_msgs, ...) come from the installed
packages' type description JSON files.

    python test/support/type_hashes.py PACKAGE DEFINITIONS_DIR   # prints {type: hash} as JSON

test/ros/expected_type_hashes.json records upstream's hashes computed this way from the
upstream release tags (git archive of ros-simulation/simulation_interfaces 1.5.1, 1.6.1, 2.1.0;
ros-controls/control_msgs 6.10.0 and the jazzy branch, 5.8.0).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path


def _share(package: str) -> Path:
    from ament_index_python.packages import get_package_share_directory
    return Path(get_package_share_directory(package))


def type_hashes(package: str, definitions: Path,
                dependencies: tuple[str, ...] = ('builtin_interfaces', 'std_msgs',
                                                 'geometry_msgs', 'action_msgs',
                                                 'unique_identifier_msgs',
                                                 'service_msgs', 'trajectory_msgs')) -> dict[str, str]:
    from rosidl_adapter import convert_to_idl
    from rosidl_generator_type_description import generate_type_hash

    definitions = Path(definitions).resolve()
    files = sorted(p.relative_to(definitions) for kind in ('msg', 'srv', 'action')
                   for p in (definitions / kind).glob('*.' + kind))
    with tempfile.TemporaryDirectory() as tmp:
        idl_dir, out_dir = Path(tmp) / 'idl', Path(tmp) / 'json'
        tuples = []
        for rel in files:
            with contextlib.redirect_stdout(io.StringIO()):  # 'Writing output file: ...'
                idl = convert_to_idl(definitions, package, rel, idl_dir)
            tuples.append(f'{idl_dir}:{Path(idl).relative_to(idl_dir)}')
        args = Path(tmp) / 'args.json'
        args.write_text(json.dumps({
            'package_name': package, 'output_dir': str(out_dir), 'idl_tuples': tuples,
            'include_paths': [f'{dep}:{_share(dep)}' for dep in dependencies]}))
        hashes = {}
        for path in generate_type_hash(str(args)):
            for entry in json.loads(Path(path).read_text())['type_hashes']:
                if entry['type_name'].startswith(package + '/'):
                    hashes[entry['type_name']] = entry['hash_string']
    return dict(sorted(hashes.items()))


if __name__ == '__main__':
    os.environ.setdefault('AMENT_PREFIX_PATH', sys.prefix)
    print(json.dumps(type_hashes(sys.argv[1], Path(sys.argv[2])), indent=1))
