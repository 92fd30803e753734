"""The test infrastructure itself: ROS isolation of the test process, process clean-up."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from support import ros_env as ros_env_lib
from support.processes import ManagedProcess, ProcessError, python_argv

REPO_ROOT = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (PID 1 of a container may never reap)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ('Z', 'X')


def _valid_domain(domain: int) -> bool:
    return ros_env_lib.DOMAIN_MIN <= domain <= ros_env_lib.DOMAIN_MAX <= 232


def _script(tmp_path: Path, name: str, code: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return path


def test_test_process_has_an_isolated_ros_environment(ros_env):
    assert ros_env['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert ros_env['RMW_IMPLEMENTATION'] == 'rmw_fastrtps_cpp'
    assert _valid_domain(int(ros_env['ROS_DOMAIN_ID']))
    log_dir = Path(ros_env['ROS_LOG_DIR'])
    assert log_dir.is_dir() and REPO_ROOT in log_dir.parents
    for name, value in ros_env.items():
        assert os.environ[name] == value
    assert 'ROS_LOCALHOST_ONLY' not in os.environ


def test_children_inherit_the_ros_environment(managed_process, ros_env):
    proc = managed_process([sys.executable, '-c', 'import os; print("DOMAIN", os.environ["ROS_DOMAIN_ID"],'
                            ' os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"])'])
    match = proc.wait_for_output(r'DOMAIN (\d+) (\w+)')
    assert match.groups() == (ros_env['ROS_DOMAIN_ID'], 'LOCALHOST')


def test_another_test_process_gets_another_domain(ros_env):
    """A second process starting its search at our domain must skip it (we hold its lock)."""
    ours = int(ros_env['ROS_DOMAIN_ID'])
    code = ('import sys; sys.path.insert(0, sys.argv[1]); from support import ros_env; '
            'print(ros_env.allocate_domain_id(seed=int(sys.argv[2])))')
    out = subprocess.run([sys.executable, '-c', code, str(REPO_ROOT / 'test'),
                          str(ours - ros_env_lib.DOMAIN_MIN)],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    theirs = int(out.split()[-1])
    assert theirs != ours and _valid_domain(theirs)


def test_stop_ends_the_whole_process_group(tmp_path):
    script = _script(tmp_path, 'parent.py', """
        import subprocess, sys, time
        child = subprocess.Popen(['sleep', '300'])
        print('GRANDCHILD', child.pid, flush=True)
        time.sleep(300)
    """)
    with ManagedProcess(python_argv(script), log_dir=tmp_path, ready='GRANDCHILD') as proc:
        grandchild = int(proc.wait_for_output(r'GRANDCHILD (\d+)').group(1))
        assert _alive(grandchild)
    assert not proc.is_running()
    assert proc.signals_sent == ['SIGINT']
    for _ in range(50):
        if not _alive(grandchild):
            break
        time.sleep(0.1)
    assert not _alive(grandchild), 'grandchild survived the teardown'


def test_stop_escalates_when_signals_are_ignored(tmp_path):
    script = _script(tmp_path, 'stubborn.py', """
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print('READY', flush=True)
        time.sleep(300)
    """)
    proc = ManagedProcess(python_argv(script), log_dir=tmp_path, ready='READY', stop_timeout=0.5)
    proc.start()
    assert proc.stop() == -signal.SIGKILL
    assert proc.signals_sent == ['SIGINT', 'SIGTERM', 'SIGKILL']
    assert proc.stop() == -signal.SIGKILL  # idempotent


def test_early_exit_is_reported_with_the_log(tmp_path):
    script = _script(tmp_path, 'crash.py', """
        import sys
        print('something went wrong here', file=sys.stderr)
        sys.exit(3)
    """)
    with pytest.raises(ProcessError, match=r'(?s)exited with 3 before it was ready.*went wrong here'):
        ManagedProcess(python_argv(script), log_dir=tmp_path, ready='READY').start()


def test_ready_timeout_stops_the_process(tmp_path):
    script = _script(tmp_path, 'silent.py', 'import time; time.sleep(300)\n')
    proc = ManagedProcess(python_argv(script), log_dir=tmp_path, ready='READY', ready_timeout=0.5)
    with pytest.raises(ProcessError, match='not ready after 0.5 s'):
        proc.start()
    assert not proc.is_running()


def test_ready_can_be_a_callable(tmp_path):
    marker = tmp_path / 'marker'
    script = _script(tmp_path, 'touch.py', f"""
        import pathlib, time
        pathlib.Path({str(marker)!r}).touch()
        time.sleep(300)
    """)
    with ManagedProcess(python_argv(script), log_dir=tmp_path, ready=lambda p: marker.exists()) as proc:
        assert proc.is_running()
