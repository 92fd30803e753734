"""Serialized messages handed to DDS without holding Python's GIL.

rclpy's ``Publisher.publish`` keeps the GIL while DDS takes the message: the copy into Fast
DDS's shared memory and waking every subscriber. Where a subscriber in another process is
woken on the same core, the publishing thread can be pre-empted right there, holding the GIL,
and the physics thread, back from its GIL-free step (``sim/engines/pybullet/native_step.py``), waits for it.
rcl's C API does the same write (``rcl_publish_serialized_message``, what rclpy's
``publish_raw`` calls); called through :mod:`ctypes` it runs without the GIL.

The functions are looked up through rclpy's own extension module (its dependencies include
librcl), so they are those of the rcl that rclpy uses, on a ROS distribution as with the PyPI
wheels. The publisher stays alive during the call (``with publisher.handle``, as in rclpy).
Where the lookup fails, :func:`publish_serialized` is ``publisher.publish``.
"""

from __future__ import annotations

import ctypes
import logging
from functools import cache
from typing import Any

from rclpy.publisher import Publisher

_log = logging.getLogger(__name__)

RCL_RET_OK = 0


class _Allocator(ctypes.Structure):
    """``rcutils_allocator_t`` (not used by a publish: the message is only read)."""

    _fields_ = [('allocate', ctypes.c_void_p), ('deallocate', ctypes.c_void_p),
                ('reallocate', ctypes.c_void_p), ('zero_allocate', ctypes.c_void_p),
                ('state', ctypes.c_void_p)]


class _SerializedMessage(ctypes.Structure):
    """``rcl_serialized_message_t`` (``rcutils_uint8_array_t``)."""

    _fields_ = [('buffer', ctypes.c_char_p), ('buffer_length', ctypes.c_size_t),
                ('buffer_capacity', ctypes.c_size_t), ('allocator', _Allocator)]


class _ErrorString(ctypes.Structure):
    """``rcutils_error_string_t``: returned by value."""

    _fields_ = [('str', ctypes.c_char * 1024)]


class _Rcl:
    def __init__(self, library: ctypes.CDLL):
        self.publish = library.rcl_publish_serialized_message
        self.publish.argtypes = [ctypes.c_void_p, ctypes.POINTER(_SerializedMessage),
                                 ctypes.c_void_p]
        self.publish.restype = ctypes.c_int
        self.error_string = library.rcutils_get_error_string  # rcl's error macros call these
        self.error_string.argtypes = []
        self.error_string.restype = _ErrorString
        self.reset_error = library.rcutils_reset_error
        self.reset_error.argtypes = []
        self.reset_error.restype = None


@cache
def _rcl() -> _Rcl | None:
    try:
        from rclpy.impl.implementation_singleton import rclpy_implementation
        # dlsym on the extension's handle also searches its dependencies (librcl)
        return _Rcl(ctypes.CDLL(rclpy_implementation.__file__))
    except (ImportError, OSError, AttributeError) as err:
        _log.debug('native publish: rcl functions not found: %s', err)
        return None


def available() -> bool:
    """Whether :func:`publish_serialized` writes without the GIL here."""
    return _rcl() is not None


def publish_serialized(publisher: Any, data: bytes) -> None:
    """``publisher.publish(data)`` for a serialized message, without the GIL while DDS takes
    it. Raises like rclpy where the publisher was destroyed or rcl fails. Anything but an rclpy
    ``Publisher`` (a tee of two, say) gets ``publish``."""
    rcl = _rcl()
    if rcl is None or type(publisher) is not Publisher:
        publisher.publish(data)
        return
    handle = publisher.handle
    with handle:
        size = len(data)
        if rcl.publish(handle.pointer, _SerializedMessage(data, size, size), None) != RCL_RET_OK:
            message = rcl.error_string().str.decode(errors='replace')
            rcl.reset_error()
            raise RuntimeError(f'failed to publish a serialized message: {message}')
