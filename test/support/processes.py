"""Run a node or command in its own process for a test, and always clean it up.

A :class:`ManagedProcess` starts ``argv`` in a new session (so a new process group), with
stdout and stderr going to one log file, waits until it is ready, and stops it by signalling
the whole group: SIGINT (what Ctrl-C sends; rclpy nodes shut down cleanly), then SIGTERM,
then SIGKILL. Grandchildren in the group go with it, so a test leaves no orphans behind.

    with ManagedProcess(python_argv(SCRIPT, '--rate', '50'), log_dir=tmp_path,
                        ready=r'READY') as proc:
        ...                     # proc.pid, proc.output(), proc.wait_for_output(r'...')
    # stopped here, even when the test failed

The ``managed_process`` fixture of ``test/conftest.py`` wraps this for tests.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

Ready = str | re.Pattern[str] | Callable[['ManagedProcess'], bool] | None

_live: weakref.WeakSet[ManagedProcess] = weakref.WeakSet()


class ProcessError(RuntimeError):
    """The process exited early or did not get ready; the message ends with its log's tail."""


def free_tcp_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (a server of a test binds it next)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def python_argv(script: str | os.PathLike[str], *args: str) -> list[str]:
    """``argv`` running ``script`` with this test's Python (the venv's), unbuffered."""
    return [sys.executable, '-u', os.fspath(script), *args]


def console_script(name: str) -> str:
    """Path of an installed console script (e.g. ``scene-sim-ros``): next to this Python, else PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f'console script {name!r} is not installed (run ./dev.sh setup)')
    return found


def _default_name(argv: Sequence[str]) -> str:
    """``tf_publisher`` for ``python -u tf_publisher.py --rate 5``, ``sleep`` for ``sleep 5``."""
    if Path(argv[0]).name.startswith('python'):
        args = iter(argv[1:])
        for arg in args:
            if arg in ('-m', '-c'):
                return next(args, 'python').split('.')[-1] if arg == '-m' else 'python-c'
            if not arg.startswith('-'):
                return Path(arg).stem
        return 'python'
    return Path(argv[0]).name


def _unused_path(directory: Path, name: str) -> Path:
    """``directory/name.log``, or ``name-2.log``, ... if an earlier process of the test took it."""
    path = directory / f'{name}.log'
    number = 2
    while path.exists():
        path = directory / f'{name}-{number}.log'
        number += 1
    return path


def _default_sigint() -> None:
    """In the child before exec: SIGINT back to its default. A test run started as a background
    job of a script has SIGINT ignored, the child would inherit that, and Ctrl-C (our first stop
    signal) would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ManagedProcess:
    """A child process in its own process group, logged to a file, stopped reliably.

    Args:
        argv: the command.
        log_dir: where ``<name>.log`` goes (stdout and stderr together).
        name: used for the log file and messages; default: the command's base name.
        env: extra environment variables on top of this process's environment (which holds the
            test ROS settings: domain, discovery range, log directory); None removes one.
        cwd: working directory.
        ready: when the process counts as ready: a regular expression searched in its output,
            or a callable taking this object and returning true when ready; None: at once.
        ready_timeout: seconds :meth:`start` waits for ``ready``.
        stop_timeout: seconds :meth:`stop` waits after SIGINT, and again after SIGTERM.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        log_dir: str | os.PathLike[str],
        name: str | None = None,
        env: Mapping[str, str | None] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        ready: Ready = None,
        ready_timeout: float = 30.0,
        stop_timeout: float = 5.0,
    ) -> None:
        self.argv = [os.fspath(a) for a in argv]
        self.name = name or _default_name(self.argv)
        self.log_dir = Path(log_dir)
        self.log_path = self.log_dir / f'{self.name}.log'   # final name chosen by start()
        self._env = dict(env or {})
        self._cwd = cwd
        self._ready = ready
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self._popen: subprocess.Popen[bytes] | None = None
        self.signals_sent: list[str] = []

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> ManagedProcess:
        """Start the process and wait until it is ready (see ``ready``)."""
        if self._popen is not None:
            raise RuntimeError(f'{self.name} already started')
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = _unused_path(self.log_dir, self.name)
        env = {name: value for name, value in
               {**os.environ, 'PYTHONUNBUFFERED': '1', **self._env}.items() if value is not None}
        with open(self.log_path, 'wb') as log:
            self._popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self._cwd,
                start_new_session=True,  # own session and process group: signal them all
                preexec_fn=_default_sigint,
            )
        _live.add(self)
        try:
            if self._ready is not None:
                self.wait_ready(self._ready, self.ready_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def wait_ready(self, ready: Ready, timeout: float | None = None) -> None:
        """Wait until ``ready`` holds; raise :class:`ProcessError` on exit or timeout."""
        if ready is None:
            return
        if callable(ready):
            check = ready
        else:
            pattern = re.compile(ready) if isinstance(ready, str) else ready
            def check(proc: ManagedProcess) -> bool:
                return pattern.search(proc.output()) is not None
        timeout = self.ready_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            if check(self):
                return
            if not self.is_running():
                raise ProcessError(f'{self.name} exited with {self.returncode} before it was ready'
                                   + self._log_tail())
            if time.monotonic() > deadline:
                raise ProcessError(f'{self.name} not ready after {timeout:.1f} s' + self._log_tail())
            time.sleep(0.05)

    def wait_for_output(self, pattern: str | re.Pattern[str], timeout: float = 10.0) -> re.Match[str]:
        """The first match of ``pattern`` in the output, waiting up to ``timeout`` seconds."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output())
            if match:
                return match
            if not self.is_running():
                # One last read: the process may have written just before it exited.
                match = regex.search(self.output())
                if match:
                    return match
                raise ProcessError(f'{self.name} exited with {self.returncode} without printing '
                                   f'{regex.pattern!r}' + self._log_tail())
            if time.monotonic() > deadline:
                raise ProcessError(f'{self.name}: no {regex.pattern!r} after {timeout:.1f} s'
                                   + self._log_tail())
            time.sleep(0.05)

    def stop(self) -> int | None:
        """Stop the whole process group: SIGINT, then SIGTERM, then SIGKILL. Returns the exit code.

        Safe to call more than once, and on a process that has already exited (whatever
        it left in its group is killed).
        """
        popen = self._popen
        if popen is None:
            return None
        pgid = popen.pid  # start_new_session: the child leads its own group
        for sig, wait in ((signal.SIGINT, self.stop_timeout), (signal.SIGTERM, self.stop_timeout),
                          (signal.SIGKILL, 10.0)):
            if popen.poll() is not None:
                break
            self._signal_group(pgid, sig)
            try:
                popen.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        # The leader is gone; anything left in its group (e.g. a grandchild that ignored
        # SIGINT) is killed.
        self._signal_group(pgid, signal.SIGKILL, record=False)
        _live.discard(self)
        return popen.returncode

    def _signal_group(self, pgid: int, sig: signal.Signals, *, record: bool = True) -> None:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if record:
            self.signals_sent.append(sig.name)

    # -- state ------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError(f'{self.name} not started')
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return None if self._popen is None else self._popen.poll()

    def is_running(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def output(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        try:
            return self.log_path.read_text(encoding='utf-8', errors='replace')
        except FileNotFoundError:
            return ''

    def _log_tail(self, lines: int = 40) -> str:
        tail = self.output().splitlines()[-lines:]
        return f'\n--- last {len(tail)} lines of {self.log_path} ---\n' + '\n'.join(tail)

    def __enter__(self) -> ManagedProcess:
        if self._popen is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = 'not started' if self._popen is None else (
            'running' if self.is_running() else f'exited {self.returncode}')
        return f'<ManagedProcess {self.name} {state}>'


@atexit.register
def _stop_leftovers() -> None:
    """Last resort, e.g. when the test process is interrupted between start and teardown."""
    for proc in list(_live):
        proc.stop_timeout = min(proc.stop_timeout, 1.0)
        proc.stop()


def with_test_engine(run_args: tuple[str, ...]) -> list[str]:
    """``run_args`` with ``--engine $SCENE_SIM_ROS_TEST_ENGINE`` after the scene, unless they
    choose an engine (a flag or a parameter) or the variable is unset."""
    engine = os.environ.get('SCENE_SIM_ROS_TEST_ENGINE')
    args = list(run_args)
    if not engine or '--engine' in args or any(a.startswith('engine:=') for a in args):
        return args
    at = 1 if args and not args[0].startswith('-') else 0
    return [*args[:at], '--engine', engine, *args[at:]]


def scene_sim_run(log_dir: str | os.PathLike[str], *run_args: str,
                  ready_timeout: float = 60.0) -> ManagedProcess:
    """``scene-sim-ros run RUN_ARGS`` with this test's Python, ready once the node has logged
    its real-time factor (the scene is loaded and the world built). Use it as a context manager.
    ``$SCENE_SIM_ROS_TEST_ENGINE`` runs the node on that engine where the test names none (CI
    runs the node tests once more on MuJoCo)."""
    argv = [sys.executable, '-u', '-m', 'scene_sim_ros.cli', 'run', *with_test_engine(run_args)]
    return ManagedProcess(argv, log_dir=Path(log_dir), name='sim_node', ready=r'real-time factor',
                          ready_timeout=ready_timeout)
