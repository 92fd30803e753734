"""The package as users install it, not as the editable dev venv has it: a wheel installed into
a scratch prefix runs ``lib/scene_sim_ros/sim_node`` and publishes; the dev venv has the same
layout (ament index marker, share/, lib/); ``ros2 launch`` runs where launch is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support.installs import copy_package_sources, ros2_launch
from support.processes import ManagedProcess
from support.ros import wait_for_messages

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = 'scene_sim_ros'


def _layout(prefix: Path) -> list[str]:
    """What every install route must give under its prefix; returns the missing entries."""
    wanted = [f'share/ament_index/resource_index/packages/{PACKAGE}',
              f'share/{PACKAGE}/package.xml', f'share/{PACKAGE}/launch/sim.launch.py',
              f'share/{PACKAGE}/config/params.yaml', f'share/{PACKAGE}/config/scene_sim_ros.rviz',
              f'lib/{PACKAGE}/sim_node', 'bin/sim_node', 'bin/scene-sim-ros']
    missing = [w for w in wanted if not (prefix / w).exists()]
    missing += [w for w in wanted if w.startswith(('lib/', 'bin/')) and (prefix / w).exists()
                and not os.access(prefix / w, os.X_OK)]
    return missing


@pytest.fixture(scope='module')
def wheel_prefix(tmp_path_factory) -> Path:
    """The package built as a wheel from a copy of the sources, installed into a new prefix."""
    work = tmp_path_factory.mktemp('wheel')
    source = copy_package_sources(work / 'src')
    pip = [sys.executable, '-m', 'pip', '--disable-pip-version-check', '-q']
    subprocess.run([*pip, 'wheel', '--no-deps', '--no-build-isolation', '-w', str(work / 'dist'),
                    str(source)], check=True, timeout=300)
    wheel, = (work / 'dist').glob('scene_sim_ros-*.whl')
    prefix = work / 'prefix'
    # --ignore-installed: without it pip would first uninstall the dev venv's editable install
    subprocess.run([*pip, 'install', '--no-deps', '--ignore-installed', '--prefix', str(prefix),
                    str(wheel)],
                   check=True, timeout=300)
    return prefix


def _site_packages(prefix: Path) -> Path:
    return Path(sysconfig.get_path('purelib', vars={'base': str(prefix)}))


def test_wheel_installs_the_ros_layout(wheel_prefix):
    assert _layout(wheel_prefix) == []
    ros_layer = _site_packages(wheel_prefix) / PACKAGE / 'ros'
    assert (ros_layer / '__init__.py').exists() and (ros_layer / 'runtime' / 'node.py').exists()
    assert (ros_layer / 'bridge' / 'adapters' / 'camera.py').exists()
    assert (ros_layer / 'supervisor' / 'services.py').exists()


def test_wheel_sim_node_runs_the_default_scene(wheel_prefix, ros_node, tmp_path):
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    env = dict(os.environ, PYTHONPATH=str(_site_packages(wheel_prefix)),
               AMENT_PREFIX_PATH=str(wheel_prefix))
    where = subprocess.run([sys.executable, '-c', 'import scene_sim_ros.ros.runtime.node as n; '
                            'print(n.__file__)'], env=env, capture_output=True, text=True,
                           check=True, timeout=60, cwd=tmp_path).stdout
    assert where.startswith(str(wheel_prefix)), where  # not the source tree

    with ManagedProcess([str(wheel_prefix / 'lib' / PACKAGE / 'sim_node')], env=env,
                        log_dir=tmp_path, name='wheel_sim_node', ready=r'real-time factor',
                        ready_timeout=90.0, cwd=tmp_path):
        clocks = wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)
        states = wait_for_messages(ros_node, JointState, '/rover/joint_states', count=1,
                                   timeout=30.0)
    assert clocks[-1].clock.nanosec != clocks[0].clock.nanosec or \
        clocks[-1].clock.sec > clocks[0].clock.sec
    assert 'pan_joint' in states[0].name


def test_dev_venv_has_the_same_layout():
    prefix = Path(sys.prefix)
    if not (prefix / 'bin' / 'scene-sim-ros').exists():
        pytest.skip(f'scene_sim_ros is not installed in {prefix} (run ./dev.sh setup)')
    assert _layout(prefix) == []
    from scene_sim_ros.resources import share_dir
    assert share_dir() == prefix / 'share' / PACKAGE


@pytest.mark.parametrize('scene', ['', 'car'])
def test_ros2_launch_starts_the_simulation(ros_node, tmp_path, scene):
    """The default scene, and an example by name as `scene-sim-ros run car` takes it."""
    ros2 = ros2_launch()
    from rosgraph_msgs.msg import Clock
    argv = [ros2, 'launch', PACKAGE, 'sim.launch.py', 'real_time_factor:=0']
    with ManagedProcess(argv + ([f'scene:={scene}'] if scene else []),
                        log_dir=tmp_path, name='ros2_launch', ready=r'real-time factor',
                        ready_timeout=90.0) as launched:
        assert len(wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)) == 5
        assert f'{scene or "default"}.ros2: ' in launched.output()


@pytest.mark.parametrize('scene, expected', [('car', r'car\.ros2: 5 entities'),
                                             ('webots_scout.wbt', r'webots_scout\.wbt: ')])
def test_sim_node_takes_an_example_name_as_run_does(ros_node, tmp_path, scene, expected):
    from rosgraph_msgs.msg import Clock
    sim_node = Path(sys.prefix) / 'lib' / PACKAGE / 'sim_node'
    if not sim_node.is_file():
        pytest.skip(f'scene_sim_ros is not installed in {sim_node.parent} (run ./dev.sh setup)')
    with ManagedProcess([str(sim_node), '--ros-args', '-p', f'scene:={scene}'],
                        log_dir=tmp_path, name='sim_node_example', ready=expected,
                        ready_timeout=90.0):
        assert len(wait_for_messages(ros_node, Clock, '/clock', count=5, timeout=30.0)) == 5


def test_sim_node_with_an_unknown_example_name_lists_the_examples(tmp_path):
    sim_node = Path(sys.prefix) / 'lib' / PACKAGE / 'sim_node'
    if not sim_node.is_file():
        pytest.skip(f'scene_sim_ros is not installed in {sim_node.parent} (run ./dev.sh setup)')
    done = subprocess.run([str(sim_node), '--ros-args', '-p', 'scene:=kar'],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "'car'" in done.stdout + done.stderr  # the near miss is named


def test_launch_with_a_missing_optional_package_starts_nothing(tmp_path):
    ros2 = ros2_launch()
    env = dict(os.environ)
    done = subprocess.run([ros2, 'launch', str(ROOT / 'launch' / 'sim.launch.py'), 'rviz:=true'],
                          capture_output=True, text=True, timeout=120, env=env)
    try:
        import ament_index_python.packages as index
        index.get_package_prefix('rviz2')
        pytest.skip('rviz2 is installed here')
    except Exception:  # noqa: BLE001 - PackageNotFoundError, or no AMENT_PREFIX_PATH
        pass
    assert done.returncode != 0
    assert 'rviz2 not installed' in done.stdout + done.stderr
    assert 'real-time factor' not in done.stdout + done.stderr  # no simulation was started


@pytest.mark.parametrize('scene, code, says', [
    ('no_such_scene.ros2', 2, 'no such file, and no example of that name'),
    ('kar', 2, "did you mean 'car'?"),
    ('{malformed}', 1, 'not well-formed XML'),
])
def test_ros2_launch_fails_as_the_simulation_does(tmp_path, scene, code, says):
    """A scene that is neither a file nor an example stops the launch before anything starts
    (exit 2, as `scene-sim-ros run`); a simulation that exits with an error fails the launch
    (exit 1, launch's code) and its message is on screen."""
    ros2 = ros2_launch()
    if scene == '{malformed}':
        scene = str(tmp_path / 'malformed.ros2')
        Path(scene).write_text('<Simulation>\n  <Scene name="x">\n  <Compound ref="y"/>\n')
    done = subprocess.run([ros2, 'launch', PACKAGE, 'sim.launch.py', f'scene:={scene}'],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert (done.returncode, says in done.stdout + done.stderr) == (code, True), \
        done.stdout[-2000:] + done.stderr[-2000:]
    started = 'process started' in done.stdout + done.stderr
    assert started == (code == 1)
