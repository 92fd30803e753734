"""``stepSimulation`` without holding Python's GIL, so other threads run while PyBullet steps.

PyBullet's ``stepSimulation`` keeps the GIL for the whole step (milliseconds on a 14-robot
scene), so nothing else in the process runs meanwhile: the node's publishing waits for the
physics and the physics for the publishing. PyBullet's own C API does the same step as
``pybullet.stepSimulation`` (``b3SubmitClientCommandAndWaitStatus(h,
b3InitStepSimulationCommand(h))``, see bullet3 ``examples/pybullet/pybullet.c``) and is exported
by the module; called through :mod:`ctypes` it runs without the GIL. What the module does not
export is the C handle of a client id: it lives in the module's client table
(``sPhysicsClients1``), found here through the library's ELF symbol table.

Everything is checked before it is used (symbol present with the expected size, the handle
answers, the body count agrees with ``pybullet.getNumBodies``); where a check fails,
:func:`native_step` returns None and the caller keeps ``pybullet.stepSimulation``. The
trajectories are the same bit for bit (``test/sim/test_native_step.py``).

The caller's contract: while the step runs, no other thread may use PyBullet on this client
(the ROS node's physics thread owns the simulation; see ``ros/runtime/stepper.py``). Steps of several
clients are serialised by one lock, as the GIL serialised them before (Bullet keeps a few
process-wide counters).
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import struct
import sys
import threading
from collections.abc import Callable
from functools import cache

import numpy as np
import pybullet as pb

_log = logging.getLogger(__name__)

CLIENT_TABLE = 'sPhysicsClients1'
"""pybullet.c: ``static b3PhysicsClientHandle sPhysicsClients1[MAX_PHYSICS_CLIENTS]``."""
MAX_PHYSICS_CLIENTS = 1024
ANCHOR = 'b3InitStepSimulationCommand'
"""An exported function: its address minus its symbol value is where the library is loaded."""

_SYMBOL = np.dtype([('name', '<u4'), ('info', 'u1'), ('other', 'u1'), ('shndx', '<u2'),
                    ('value', '<u8'), ('size', '<u8')])
_SHT_SYMTAB = 2
_STEP_LOCK = threading.Lock()


def native_step(client: int) -> Callable[[], None] | None:
    """A function that steps PyBullet client ``client`` once without the GIL, or None where
    this PyBullet build does not allow it (the reason is logged at debug level)."""
    found = client_handle(client)
    if found is None:
        return None
    library, handle = found
    submit, command = library.api.b3SubmitClientCommandAndWaitStatus, library.api.b3InitStepSimulationCommand

    def step() -> None:
        with _STEP_LOCK:
            submit(handle, command(handle))
    return step


def client_handle(client: int) -> tuple[NativeLibrary, int] | None:
    """PyBullet's C API and the C handle of client ``client`` (checked: it answers and has the
    client's bodies), or None where this build does not allow it (logged at debug level)."""
    library = _library()
    if library is None or not 0 <= client < MAX_PHYSICS_CLIENTS:
        return None
    handle = ctypes.c_void_p.from_address(library.client_table + 8 * client).value
    if not handle or library.api.b3CanSubmitCommand(handle) != 1:
        _log.debug('native step: no handle for PyBullet client %d', client)
        return None
    if library.api.b3GetNumBodies(handle) != pb.getNumBodies(physicsClientId=client):
        _log.debug('native step: the handle of client %d is another client', client)
        return None
    return library, handle


class NativeLibrary:
    """PyBullet's library: its C API called without the GIL (``api``) and with it
    (``held``: for calls that must not let other Python threads use PyBullet meanwhile)."""

    def __init__(self, api: ctypes.CDLL, held: ctypes.PyDLL, client_table: int):
        self.api = api
        self.held = held
        self.client_table = client_table


@cache
def _library() -> NativeLibrary | None:
    if sys.platform != 'linux':
        return None
    path = pb.__file__
    try:
        symbols = _elf_symbols(path, {CLIENT_TABLE, ANCHOR})
        api = ctypes.CDLL(path)  # the library Python loaded already (same path, same handle)
        held = ctypes.PyDLL(path)
    except (OSError, ValueError, struct.error) as err:
        _log.debug('native step: cannot read %s: %s', path, err)
        return None
    table = symbols.get(CLIENT_TABLE)
    anchor = symbols.get(ANCHOR)
    if table is None or anchor is None or table[1] != 8 * MAX_PHYSICS_CLIENTS:
        _log.debug('native step: %s has no client table of the expected size', path)
        return None
    _declare(api)
    base = ctypes.cast(api.b3InitStepSimulationCommand, ctypes.c_void_p).value
    if base is None:
        return None
    return NativeLibrary(api, held, base - anchor[0] + table[0])


def _declare(api: ctypes.CDLL) -> None:
    handle = ctypes.c_void_p
    api.b3InitStepSimulationCommand.argtypes = [handle]
    api.b3InitStepSimulationCommand.restype = handle
    api.b3SubmitClientCommandAndWaitStatus.argtypes = [handle, handle]
    api.b3SubmitClientCommandAndWaitStatus.restype = handle
    api.b3CanSubmitCommand.argtypes = [handle]
    api.b3CanSubmitCommand.restype = ctypes.c_int
    api.b3GetNumBodies.argtypes = [handle]
    api.b3GetNumBodies.restype = ctypes.c_int


def _elf_symbols(path: str, names: set[str]) -> dict[str, tuple[int, int]]:
    """``{name: (value, size)}`` of ``names`` in the static symbol table of a little-endian
    ELF64 file (``.symtab``: local symbols too, unlike the dynamic table)."""
    with open(path, 'rb') as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data[:6] != b'\x7fELF\x02\x01':
            raise ValueError('not a little-endian ELF64 file')
        (section_offset,) = struct.unpack_from('<Q', data, 0x28)
        entry_size, count = struct.unpack_from('<HH', data, 0x3A)
        sections = [struct.unpack_from('<IIQQQQIIQQ', data, section_offset + k * entry_size)
                    for k in range(count)]
        found: dict[str, tuple[int, int]] = {}
        for _, kind, _, _, offset, size, link, _, _, _ in sections:
            if kind != _SHT_SYMTAB:
                continue
            strings_at, strings_size = sections[link][4], sections[link][5]
            strings = data[strings_at:strings_at + strings_size]
            symbols = np.frombuffer(data[offset:offset + size], dtype=_SYMBOL)
            for name in names:
                at = strings.find(b'\0' + name.encode() + b'\0')
                if at < 0:
                    continue
                match = symbols[symbols['name'] == at + 1]
                if len(match):
                    found[name] = (int(match['value'][0]), int(match['size'][0]))
        return found
