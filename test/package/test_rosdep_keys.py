"""Every dependency key of package.xml resolves on a ROS 2 distribution as `rosdep install
--from-paths src` resolves it: a rosdep key of ros/rosdistro (rosdep/base.yaml, python.yaml) or a
package released for both Jazzy and Kilted. Checked against the snapshot in test/data/rosdistro/
(refresh.py there renews it); what rosdistro lacks comes from requirements/distro-pip.txt."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / 'test' / 'data' / 'rosdistro'
DEPENDS = ('depend', 'exec_depend', 'build_depend', 'buildtool_depend', 'test_depend',
           'build_export_depend', 'doc_depend')


def _names(file: str) -> set[str]:
    lines = (SNAPSHOT / file).read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith('#')}


def test_every_package_xml_key_resolves_in_rosdistro():
    keys = _names('rosdep_keys.txt')
    both = _names('jazzy_packages.txt') & _names('kilted_packages.txt')
    package = ET.parse(ROOT / 'package.xml').getroot()
    assert package.get('format') == '3'
    depends = [e.text.strip() for tag in DEPENDS for e in package.iter(tag) if e.text]
    assert len(depends) > 20
    unresolved = sorted(d for d in depends if d not in keys and d not in both)
    assert unresolved == [], f'no rosdep key and no Jazzy+Kilted package: {unresolved}'


def test_what_rosdistro_lacks_is_in_the_pip_list_of_the_distribution_route():
    listed = {line.split('#')[0].strip().lower()
              for line in (ROOT / 'requirements' / 'distro-pip.txt').read_text().splitlines()}
    listed.discard('')
    keys = _names('rosdep_keys.txt')
    for name in listed:
        assert f'python3-{name}-pip' not in keys and f'python3-{name}' not in keys, \
            f'{name} has a rosdep key: list it in package.xml instead'
    # the Python packages the code imports and rosdistro lacks
    assert listed == {'mcap', 'foxglove-sdk', 'quickjs', 'lupa', 'moderngl',
                      'fast-simplification'}


# pip distribution -> the package.xml key that installs it on a distribution (rosdep's names)
ROSDEP_KEY_OF = {'pybullet': 'python3-pybullet-pip', 'mujoco': 'python3-mujoco-pip',
                 'lxml': 'python3-lxml',
                 'numpy': 'python3-numpy', 'pyyaml': 'python3-yaml', 'httpx': 'python3-httpx',
                 'platformdirs': 'python3-platformdirs', 'trimesh': 'python3-trimesh-pip',
                 'pycollada': 'python3-collada-pip', 'rosbags': 'python3-rosbags-pip',
                 'pillow': 'python3-pil'}


def _install_requires() -> set[str]:
    """The distribution names of setup.py's install_requires, read without running setup()."""
    import ast
    import re
    tree = ast.parse((ROOT / 'setup.py').read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == 'INSTALL_REQUIRES' for t in node.targets):
            return {re.split(r'[<>=!~\[; ]', s, maxsplit=1)[0].lower()
                    for s in ast.literal_eval(node.value)}
    raise AssertionError('setup.py has no INSTALL_REQUIRES')


def test_every_pip_dependency_is_declared_for_the_distribution_route():
    """setup.py's install_requires (the pip route) and package.xml plus distro-pip.txt (the
    distribution route) name the same run-time dependencies."""
    required = _install_requires()
    package = ET.parse(ROOT / 'package.xml').getroot()
    python_keys = {e.text.strip() for e in package.iter('exec_depend')
                   if e.text and e.text.strip().startswith('python3-')}
    listed = {line.split('#')[0].strip().lower()
              for line in (ROOT / 'requirements' / 'distro-pip.txt').read_text().splitlines()}
    listed.discard('')
    by_key = {name for name in required if ROSDEP_KEY_OF.get(name) in python_keys}
    assert required == by_key | listed, (sorted(required - by_key - listed),
                                         sorted((by_key | listed) - required))
    assert python_keys == {ROSDEP_KEY_OF[name] for name in by_key}
