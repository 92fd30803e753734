"""An isolated ROS 2 environment for one test process and its children.

Tests must not depend on, nor disturb, whatever ROS 2 runs on the machine: discovery stays on
localhost, every test process gets a DDS domain of its own, and ROS logs go into the tree.
Call :func:`isolate` before rclpy is imported (``test/conftest.py`` does, at import time); the
settings are environment variables, so processes started from the tests inherit them.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

# Fast DDS derives UDP ports from the domain id; with the default port parameters only
# 0..232 are valid. 0 is left to whatever the user runs by default.
DOMAIN_MIN = 1
DOMAIN_MAX = 232

# User settings that would change what the tests see or where their traffic goes.
_CLEARED = (
    'ROS_LOCALHOST_ONLY',            # deprecated; conflicts with ROS_AUTOMATIC_DISCOVERY_RANGE
    'ROS_STATIC_PEERS',
    'ROS_DISCOVERY_SERVER',
    'ROS_SUPER_CLIENT',
    'ROS_SECURITY_ENABLE',
    'ROS_SECURITY_STRATEGY',
    'ROS_SECURITY_KEYSTORE',
    'ROS_SECURITY_ENCLAVE_OVERRIDE',
    'FASTRTPS_DEFAULT_PROFILES_FILE',
    'FASTDDS_DEFAULT_PROFILES_FILE',
    'RMW_FASTRTPS_USE_QOS_FROM_XML',
    'ROS_NAMESPACE',
)

_domain_lock_fd: int | None = None
_domain_id: int | None = None


def _lock_dir() -> Path:
    path = Path(tempfile.gettempdir()) / 'scene_sim_ros-test-domains'
    path.mkdir(mode=0o777, exist_ok=True)
    return path


def allocate_domain_id(seed: int | None = None) -> int:
    """A ROS domain id no other live test process of this machine holds.

    Each candidate is an advisory lock file; the lock is held until this process exits (the
    kernel drops it), so concurrent test runs (several pytest processes, xdist workers, CI
    beside a developer) never share a domain. The search starts at an offset derived from
    the pid, so usually the first try succeeds.
    """
    global _domain_lock_fd
    span = DOMAIN_MAX - DOMAIN_MIN + 1
    start = (os.getpid() if seed is None else seed) % span
    directory = _lock_dir()
    for step in range(span):
        domain = DOMAIN_MIN + (start + step) % span
        fd = os.open(directory / f'{domain}.lock', os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if _domain_lock_fd is not None:
            os.close(_domain_lock_fd)
        _domain_lock_fd = fd
        return domain
    raise RuntimeError(f'no free ROS domain id in {DOMAIN_MIN}..{DOMAIN_MAX}')


def isolate(log_dir: Path) -> dict[str, str]:
    """Set this process's ROS 2 environment and return the variables that were set.

    Idempotent: the domain id allocated by the first call is kept.
    """
    settings = {
        'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST',
        'RMW_IMPLEMENTATION': 'rmw_fastrtps_cpp',
        'ROS_LOG_DIR': str(log_dir),
        'RCUTILS_COLORIZED_OUTPUT': '0',
        'PYTHONUNBUFFERED': '1',
    }
    global _domain_id
    if _domain_id is None:
        _domain_id = allocate_domain_id()
    settings['ROS_DOMAIN_ID'] = str(_domain_id)
    log_dir.mkdir(parents=True, exist_ok=True)
    for name in _CLEARED:
        os.environ.pop(name, None)
    os.environ.update(settings)
    return settings
