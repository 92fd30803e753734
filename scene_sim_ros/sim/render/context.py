"""The process's one OpenGL context: headless EGL through moderngl (no display, no X).

One context per process (PyBullet's own EGL plugin crashes beside a second EGL context, so that
plugin is never loaded: see :mod:`scene_sim_ros.sim.sensors.rendering`), used by one thread at
a time: :func:`gl_current` holds a lock and makes the context current on the calling thread for
the length of a render (about 45 microseconds), so a node's physics thread and a script's main
thread may both render, never at once. :func:`egl_problem`
says why no context can be made (missing moderngl, missing Mesa EGL libraries, no EGL device)
without raising, so that ``renderer='auto'`` can fall back to TinyRenderer with one warning.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

APT_PACKAGES = 'libegl1 libegl-mesa0 libgl1-mesa-dri'
"""Debian packages with the Mesa EGL libraries (llvmpipe on machines without a GPU)."""

_context: Any = None
_problem: str | None = None
_tried = False
_lock = threading.RLock()
_gl: Any = None
GL_RGB, GL_UNSIGNED_BYTE, GL_PACK_ALIGNMENT = 0x1907, 0x1401, 0x0D05
GL_READ_FRAMEBUFFER, GL_READ_FRAMEBUFFER_BINDING = 0x8CA8, 0x8CAA


def egl_problem() -> str | None:
    """None when the GL context exists or can be made; else what is missing, in words."""
    try:
        gl_context()
    except GlUnavailable as err:
        return str(err)
    return None


class GlUnavailable(RuntimeError):
    """No OpenGL context can be made in this process."""


class _Held(threading.local):
    depth = 0  # gl_current blocks this thread is in


_held = _Held()


@contextlib.contextmanager
def gl_current() -> Iterator[Any]:
    """The context, current on this thread and held by it until the block ends. Nested blocks
    keep it as it is: entering moderngl's context again inside a block and leaving it broke
    the outer block's next draws (a batch read back inside the block that draws the next
    lost rows of its first view)."""
    with _lock:
        context = gl_context()
        if _held.depth:
            _held.depth += 1
            try:
                yield context
            finally:
                _held.depth -= 1
            return
        _held.depth = 1
        try:
            with context:
                yield context
        finally:
            _held.depth = 0


def _library() -> Any:
    """libGL's entry points through ctypes, which lets go of the GIL for the length of each
    call (moderngl holds it)."""
    global _gl
    if _gl is None:
        _gl = ctypes.CDLL(ctypes.util.find_library('GL'))
        _gl.glReadPixels.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p]
    return _gl


def gl_flush() -> None:
    """``glFlush`` on the current context: hand the GL work queued so far to the driver, which
    (Mesa llvmpipe) rasterises it on its threads while this thread goes on; moderngl exposes only
    the blocking ``finish``. Drawing the 28 views of a game's round, a flush after each view
    lets rasterisation overlap the next view's culling and vertex work (68 -> 64 ms a round)."""
    _library().glFlush()


def read_rgb(width: int, height: int, framebuffer: int) -> np.ndarray:
    """The lower left ``width`` x ``height`` RGB pixels of ``framebuffer``'s (a GL name) first
    colour attachment, bottom row first (HxWx3 uint8). Read without the GIL: the read waits for
    llvmpipe's raster threads to finish the round (about 10 ms of the game's 28 views), while
    the node's publishing and executor threads run (moderngl's read held the GIL: 41 of the
    physics thread's 248 GIL-holding samples). Draw calls stay with moderngl: letting go of the
    GIL in each of a round's 280 short calls handed it to the other threads for up to a switch
    interval each time (node RTF 0.45 in that run's 3 rounds, 0.53-0.57 without)."""
    pixels = np.empty((height, width, 3), dtype=np.uint8)
    gl = _library()
    previous = ctypes.c_int()
    gl.glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, ctypes.byref(previous))
    gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer)  # moderngl's draw state untouched
    gl.glPixelStorei(GL_PACK_ALIGNMENT, 1)
    gl.glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.ctypes.data)
    gl.glBindFramebuffer(GL_READ_FRAMEBUFFER, previous.value)
    return pixels


def gl_context() -> Any:
    """The process's moderngl context (made on first use, 3.3 core, EGL); use it inside
    :func:`gl_current`. Raises :class:`GlUnavailable` saying what is missing."""
    with _lock:
        return _make_context()


def _make_context() -> Any:
    global _context, _problem, _tried
    if _tried:
        if _context is None:
            raise GlUnavailable(_problem or 'no OpenGL context')
        return _context
    _tried = True
    _problem = _missing_library()
    if _problem is None:
        try:
            import moderngl
        except ImportError:
            _problem = 'the Python package moderngl is not installed (pip install moderngl)'
        else:
            try:
                _context = moderngl.create_standalone_context(backend='egl',  # type: ignore[arg-type]
                                                              require=330)
            except Exception as err:  # glcontext reports a missing device as a plain Exception
                _problem = f'no EGL context could be made ({err})'
    if _context is None:
        raise GlUnavailable(_problem or 'no OpenGL context')
    with _context:  # leaving the block releases it from the creating thread
        pass
    return _context


def _missing_library() -> str | None:
    for name in ('EGL', 'GL'):
        if ctypes.util.find_library(name) is None:
            return (f'the Mesa EGL library lib{name}.so is missing '
                    f'(Debian: sudo apt-get install {APT_PACKAGES})')
    return None
