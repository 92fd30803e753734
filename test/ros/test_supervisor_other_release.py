"""The supervisor tests against the other simulation_interfaces release, so that CI covers the
1.x and the 2.x definitions (README "Interface packages").

The venv holds one release: the default 1.6.1 (Kilted's; Jazzy's 1.5.1 is the same), or what
SIMULATION_INTERFACES_VERSION chose. This module takes the other one's wheel from
``./dev.sh wheel simulation_interfaces`` (built into the wheel cache, ~/.cache/scene_sim_ros/wheels,
the first time: about a minute; later a few seconds), installs it into a scratch prefix and runs
the supervisor test modules in a child pytest whose PYTHONPATH, LD_LIBRARY_PATH and
AMENT_PREFIX_PATH put that prefix first: the node, its clients and the type-hash checks all see
the other release. Where simulation_interfaces comes from a ROS 2 distribution (not built by
dev.sh), the distribution's release is the one to serve and this module skips.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytest.importorskip('rclpy')
pytest.importorskip('simulation_interfaces.srv')

pytestmark = [pytest.mark.ros, pytest.mark.slow]

REPO_ROOT = Path(__file__).resolve().parents[2]
OTHER = {'1.x': '2.1.0', '2.x': '1.6.1'}
"""The release to test against, by the generation the venv holds."""

MODULES = ['test/ros/test_supervisor.py', 'test/ros/test_supervisor_logic.py',
           'test/ros/test_supervisor_worlds.py',
           'test/ros/test_interfaces.py', 'test/ros/test_supervisor_concurrency.py']


def _built_by_dev_sh() -> bool:
    try:
        importlib.metadata.distribution('ros-local-simulation-interfaces')
    except importlib.metadata.PackageNotFoundError:
        return False
    return (REPO_ROOT / 'dev.sh').is_file()


@pytest.fixture(scope='module')
def other_release(tmp_path_factory):
    """(release, environment) of a scratch prefix holding the other release."""
    if not _built_by_dev_sh():
        pytest.skip("simulation_interfaces is not the one ./dev.sh builds (a distribution's "
                    'package is served as it is)')
    from scene_sim_ros.ros.supervisor import compat
    release = OTHER[compat.GENERATION]
    installed = importlib.metadata.version('ros-local-simulation-interfaces')
    env = {**os.environ, 'SIMULATION_INTERFACES_VERSION': release}
    built = subprocess.run([str(REPO_ROOT / 'dev.sh'), 'wheel', 'simulation_interfaces'],
                           env=env, capture_output=True, text=True, timeout=540)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = built.stdout.strip().splitlines()[-1]
    assert wheel.endswith('.whl') and f'-{release}-' in Path(wheel).name, built.stdout
    prefix = tmp_path_factory.mktemp('simulation_interfaces') / release
    # --ignore-installed: without it pip would uninstall the venv's release first
    subprocess.run([sys.executable, '-m', 'pip', '--disable-pip-version-check', '-q', 'install',
                    '--no-deps', '--no-index', '--ignore-installed', '--prefix', str(prefix),
                    wheel], check=True, capture_output=True, timeout=120)
    assert importlib.metadata.version('ros-local-simulation-interfaces') == installed
    purelib = sysconfig.get_path('purelib', vars={'base': str(prefix), 'platbase': str(prefix)})

    def first(name: str, path: str) -> str:
        return os.pathsep.join([path, *filter(None, [os.environ.get(name)])])
    env = {**os.environ, 'PYTHONPATH': first('PYTHONPATH', purelib),
           'LD_LIBRARY_PATH': first('LD_LIBRARY_PATH', str(prefix / 'lib')),
           'AMENT_PREFIX_PATH': first('AMENT_PREFIX_PATH', str(prefix)),
           # the environment is complete: the ROS wheels' start-up hook must not rebuild it
           '_ROS_WHEELS_BOOTSTRAP_COMPLETE': '1'}
    env.pop('SIMULATION_INTERFACES_VERSION', None)
    return release, env


@pytest.mark.timeout(600)
def test_supervisor_tests_pass_against_the_other_release(other_release):
    release, env = other_release
    seen = subprocess.run(
        [sys.executable, '-c', 'from scene_sim_ros.ros.supervisor import compat; '
         'import simulation_interfaces; print(compat.GENERATION, simulation_interfaces.__file__)'],
        env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert seen.returncode == 0, seen.stderr
    generation, module = seen.stdout.split()
    assert generation == release[0] + '.x' and module.startswith(env['PYTHONPATH'].split(
        os.pathsep)[0]), seen.stdout
    run = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
                          *MODULES],
                         env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=540)
    summary = run.stdout[-6000:]
    assert run.returncode == 0, f'simulation_interfaces {release}:\n{summary}\n{run.stderr[-2000:]}'
    assert ' passed' in summary.splitlines()[-1], summary  # skips: as in the parent run
