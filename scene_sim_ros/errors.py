"""Exceptions of scene_sim_ros.

Every problem with a scene file surfaces as a :class:`SceneLoadError` whose message starts
with ``file:line:`` so that editors and terminals can jump to it.  Simulator and command
problems have their own types so that the ROS layer can turn them into error results.
"""

from __future__ import annotations

from pathlib import Path


class SceneSimError(Exception):
    """Base class of every error raised by scene_sim_ros."""


class SceneLoadError(SceneSimError):
    """A scene file is malformed, inconsistent or cannot be read.

    ``str(err)`` is ``file:line: message`` (``file: message`` when the line is unknown).
    Several problems found in one pass are joined, one per line.
    """

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None):
        self.file = str(file) if file is not None else None
        self.line = line
        self.message = message
        super().__init__(format_location(self.file, line, message))


class UnsupportedFormatError(SceneLoadError):
    """No loader knows the file's extension or content."""


class SimulationError(SceneSimError):
    """An operation on a running simulation failed (unknown entity, bad pose, ...)."""


class CommandError(SimulationError):
    """A motor command was rejected (unknown joint, NaN, wrong length, ...)."""


def format_location(file: str | None, line: int | None, message: str) -> str:
    """Return ``file:line: message`` with the parts that are known."""
    if file is None:
        return message
    if line is None:
        return f'{file}: {message}'
    return f'{file}:{line}: {message}'
