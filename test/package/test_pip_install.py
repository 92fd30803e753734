"""`pip install .` as a pip user does it: a fresh venv that holds only the ROS 2 wheels (those of
requirements/ros-<distro>.txt and the interface wheels ./dev.sh builds), then `pip install` of a
copy of the sources pulls every other dependency from setup.py, and the installed
`scene-sim-ros run` publishes /clock with no environment variable set (no AMENT_PREFIX_PATH,
no PYTHONPATH). Runs for the distribution of the venv running the suite (ROS_DISTRO)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.installs import copy_package_sources
from support.processes import ManagedProcess
from support.ros import wait_for_messages

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DISTRO = os.environ.get('ROS_DISTRO') or 'kilted'
INTERFACES = ('tf2_msgs', 'simulation_interfaces', 'control_msgs')
# what this suite's own environment sets and a pip user's shell has not
FOREIGN = ('AMENT_PREFIX_PATH', 'PYTHONPATH', 'VIRTUAL_ENV', 'LD_LIBRARY_PATH',
           '_ROS_WHEELS_BOOTSTRAP_COMPLETE')


def _plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in FOREIGN}


def _constraints() -> Path:
    suffix = '' if DISTRO == 'kilted' else f'-{DISTRO}'
    return ROOT / 'requirements' / f'constraints{suffix}.txt'


def _interface_wheel(package: str) -> str:
    """The interface wheel of this distribution, from dev.sh's cache (built there if missing)."""
    result = subprocess.run([str(ROOT / 'dev.sh'), 'wheel', package], capture_output=True,
                            text=True, timeout=600, env={**os.environ, 'ROS_DISTRO': DISTRO})
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope='module')
def installed(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp('pip_install')
    source = copy_package_sources(work / 'src')
    venv = work / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True, timeout=120)
    pip = [str(venv / 'bin' / 'python'), '-m', 'pip', '--disable-pip-version-check', '-q']
    env = _plain_env()
    ros = ['-r', str(ROOT / 'requirements' / f'ros-{DISTRO}.txt'), '-c', str(_constraints())]
    wheels = [_interface_wheel(p) for p in INTERFACES]
    subprocess.run([*pip, 'install', *ros], check=True, timeout=900, env=env)
    subprocess.run([*pip, 'install', '--no-deps', *wheels], check=True, timeout=300, env=env)
    # the user's command: the dependencies come from setup.py (pinned here only for speed and
    # reproducibility, as the venv of the suite is)
    subprocess.run([*pip, 'install', str(source), '-c', str(_constraints())], check=True,
                   timeout=1800, env=env)
    return venv


def test_pip_install_pulls_every_dependency(installed):
    check = subprocess.run([str(installed / 'bin' / 'python'), '-m', 'pip', 'check'],
                           capture_output=True, text=True, timeout=120, env=_plain_env())
    assert check.returncode == 0, check.stdout
    imports = ('pybullet, lxml, numpy, yaml, quickjs, lupa, httpx, platformdirs, trimesh, collada,'
               ' mcap, rosbags, foxglove, moderngl, fast_simplification, PIL, scene_sim_ros.cli')
    subprocess.run([str(installed / 'bin' / 'python'), '-c', f'import {imports}'], check=True,
                   timeout=120, cwd=installed, env=_plain_env())


def test_installed_run_publishes_clock_without_environment_variables(installed, ros_node,
                                                                      tmp_path):
    from rosgraph_msgs.msg import Clock
    unset: dict[str, str | None] = dict.fromkeys(FOREIGN)
    with ManagedProcess([str(installed / 'bin' / 'scene-sim-ros'), 'run'], env=unset,
                        cwd=tmp_path, log_dir=tmp_path, name='pip_installed_run',
                        ready=r'real-time factor', ready_timeout=120.0) as run:
        clocks = wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)
        assert 'default.ros2: ' in run.output()
    times = [c.clock.sec + c.clock.nanosec * 1e-9 for c in clocks]
    assert times == sorted(times) and times[-1] > times[0]
