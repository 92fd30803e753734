"""Helpers shared by the tests (importable as ``support``: pytest puts ``test/`` on sys.path).

- :mod:`support.ros_env`: the isolated ROS 2 environment of a test process (domain, discovery,
  log directory); applied by ``test/conftest.py`` before anything imports rclpy.
- :mod:`support.processes`: :class:`ManagedProcess`, a node or command in its own process group,
  with a readiness wait and a clean, orphan-free teardown.
- :mod:`support.ros`: spin an rclpy node until N messages arrived, call a service, with timeouts.
"""

from support.processes import ManagedProcess, ProcessError, console_script, python_argv

__all__ = ['ManagedProcess', 'ProcessError', 'console_script', 'python_argv']
