"""Messages serialized once and patched in place: the per-step publications without building
and converting a Python message every time.

A :class:`MessageTemplate` serializes a message (CDR, as rclpy does) once, finds where its
stamp and the numbers that change live in the bytes, and then writes only those for every
publication; ``publish()`` takes the bytes as they are. Everything else (frame ids, joint names,
constant covariances) stays as serialized. The bytes are the ones rclpy would produce for the
same message (test/ros/test_node_conversions.py checks them against ``serialize_message``).

The positions are found by serializing with sentinel values (distinct numbers no real field
holds) and looking them up, so no CDR layout is written out by hand; a sentinel found more than
once, or misaligned, is an error at construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rclpy.serialization import serialize_message

_SENTINEL = 1.2345678901234567e300
"""First sentinel double; the k-th is ``_SENTINEL * (1 + k * 2**-40)`` (all distinct)."""

_STAMP_SENTINEL = (0x5EC05EC0, 0x3B9AC9F7)  # sec, nanosec (< 1e9)

_HEADER = 4
"""Bytes of the CDR encapsulation header; payload alignment counts from there."""

VECTOR_FIELDS = ('x', 'y', 'z', 'w')


NANOSECONDS = 1_000_000_000


def _get(msg: Any, path: str) -> Any:
    field = msg
    for part in path.split('.'):
        if not hasattr(field, part):
            raise ValueError(f'{path}: no such field in {type(msg).__name__}')
        field = getattr(field, part)
    return field


def _set(msg: Any, path: str, value: Any) -> None:
    *parents, last = path.split('.')
    for part in parents:
        msg = getattr(msg, part)
    setattr(msg, last, value)


def _components(msg: Any, path: str) -> list[str]:
    """The float64 paths a field stands for: itself, a vector's x y z (w), or an array
    (``path[k]``)."""
    value = _get(msg, path)
    if isinstance(value, float):
        return [path]
    names = [name for name in VECTOR_FIELDS if hasattr(value, name)]
    if names:
        return [f'{path}.{name}' for name in names]
    return [f'{path}[{k}]' for k in range(len(value))]


class MessageTemplate:
    """``msg`` serialized once; :meth:`serialize` writes the stamp at ``stamp`` (a
    ``builtin_interfaces/Time`` path, e.g. ``header.stamp``; None: none) and :attr:`values`
    (float64, the ``fields`` in order, each a number, a vector or an array of ``msg``) into the
    bytes. ``slices[field]`` is where a field's numbers are in :attr:`values`; their initial
    values are ``msg``'s."""

    def __init__(self, msg: Any, fields: Sequence[str], stamp: str | None = 'header.stamp'):
        components = [c for field in fields for c in _components(msg, field)]
        initial = self._fill(msg, components, stamp)
        data = serialize_message(msg)
        if data[:2] != b'\x00\x01':
            raise ValueError('expected little-endian CDR')
        self._buffer = bytearray(data)
        self._doubles = np.frombuffer(self._buffer, dtype='<f8', offset=_HEADER,
                                      count=(len(data) - _HEADER) // 8)
        self._words = np.frombuffer(self._buffer, dtype='<u4', count=len(data) // 4)
        self._index = np.array([self._find(_sentinel(k).tobytes(), 8, what=c)
                                for k, c in enumerate(components)], dtype=np.intp)
        self._stamp: int | None = None
        if stamp is not None:
            pattern = np.array(_STAMP_SENTINEL, dtype='<u4').tobytes()
            self._stamp = self._find(pattern, 4, what=stamp)
        self.values = np.array(initial, dtype=np.float64)
        self.slices: dict[str, slice] = {}
        start = 0
        for field in fields:
            count = len(_components(msg, field))
            self.slices[field] = slice(start, start + count)
            start += count
        self._doubles[self._index] = self.values
        self._restore(msg, components, initial, stamp)

    @staticmethod
    def _fill(msg: Any, components: list[str], stamp: str | None) -> list[float]:
        """Sentinels into every component (and the stamp); returns the values they had."""
        initial = []
        for k, path in enumerate(components):
            name, _, index = path.partition('[')
            if index:
                array = _get(msg, name)
                initial.append(float(array[int(index[:-1])]))
                array[int(index[:-1])] = float(_sentinel(k)[0])
            else:
                initial.append(float(_get(msg, path)))
                _set(msg, path, float(_sentinel(k)[0]))
        if stamp is not None:
            time = _get(msg, stamp)
            time.sec, time.nanosec = _STAMP_SENTINEL
        return initial

    @staticmethod
    def _restore(msg: Any, components: list[str], initial: list[float],
                 stamp: str | None) -> None:
        for path, value in zip(components, initial):
            name, _, index = path.partition('[')
            if index:
                _get(msg, name)[int(index[:-1])] = value
            else:
                _set(msg, path, value)
        if stamp is not None:
            time = _get(msg, stamp)
            time.sec, time.nanosec = 0, 0

    def _find(self, pattern: bytes, size: int, *, what: str) -> int:
        """Index of ``pattern`` in the doubles (``size`` 8) or words (4) view."""
        first = self._buffer.find(pattern)
        if first < 0 or self._buffer.find(pattern, first + 1) >= 0:
            raise ValueError(f'{what}: not found exactly once in the serialized message')
        start = _HEADER if size == 8 else 0
        if (first - start) % size:
            raise ValueError(f'{what}: misaligned in the serialized message')
        return (first - start) // size

    def serialize(self, time: float) -> bytes:
        """The message with the stamp = ``time`` (s) and the numbers of :attr:`values`."""
        if self._stamp is not None:
            sec, nanosec = divmod(round(time * NANOSECONDS), NANOSECONDS)
            self._words[self._stamp] = sec
            self._words[self._stamp + 1] = nanosec
        self._doubles[self._index] = self.values
        return bytes(self._buffer)


def _sentinel(k: int) -> np.ndarray:
    return np.array([_SENTINEL * (1.0 + k * 2.0 ** -40)], dtype='<f8')


class ImageTemplate:
    """``sensor_msgs/Image`` bytes for frames of one geometry: ``msg`` (frame id, height,
    width, encoding, step set) serialized once through a :class:`MessageTemplate` with a marker
    as its pixels; :meth:`serialize` patches the stamp and puts the frame's pixels where the
    marker was (``data`` is the message's last field: its length, then its bytes, with no
    padding after them). One copy of the pixels per frame, where ``fill_image`` and rclpy's
    conversion and serialization took three."""

    _MARK = b'\xa5\x5a\xc3'

    def __init__(self, msg: Any) -> None:
        import array
        import struct

        pixels = msg.data
        msg.data = array.array('B', self._MARK)
        try:
            self._template = MessageTemplate(msg, ())
        finally:
            msg.data = pixels
        self._struct = struct.Struct('<I')
        tail = self._struct.pack(len(self._MARK)) + self._MARK
        if not self._template.serialize(0.0).endswith(tail):
            raise ValueError('sensor_msgs/Image: its data is not serialized last')
        self._tail = len(tail)

    def serialize(self, time: float, pixels: np.ndarray) -> bytes:
        """The message stamped ``time`` (s) with ``pixels`` (of the geometry and encoding the
        template was made for) as its data."""
        head = self._template.serialize(time)[:-self._tail]
        data = np.ascontiguousarray(pixels).data  # a memoryview: joined without a copy first
        return b''.join((head, self._struct.pack(pixels.nbytes), data))
