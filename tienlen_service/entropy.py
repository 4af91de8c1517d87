"""Random bytes from the operating system's CSPRNG, read a block at a time.

`os.urandom` releases the GIL on every call (it is a system call). In a loaded threaded
server that is expensive far beyond the call itself: the GIL goes to another thread, and
taking it back costs a wake-up and a context switch, tens of µs of CPU each time
(bench/README.md §5). The service needs a few random bytes per call (AES-GCM nonces, game
ids, request ids), so it reads `BLOCK` bytes (64 KiB) at a time and hands out slices: the
same bytes from the same generator, with one system call per few thousand calls.

Each byte is handed out once (a lock guards the block), and a forked child starts with no
block of its own rather than the parent's leftover (a repeated AES-GCM nonce would be fatal).
"""

from __future__ import annotations

import os
import threading
from typing import Final

BLOCK: Final = 65536


class _Pool:
    """The block being handed out; one per process."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start empty, with a new lock (also in a forked child, where the old lock may be
        held by a thread that does not exist there)."""
        self.lock = threading.Lock()
        self.block = b""
        self.used = 0

    def take(self, size: int) -> bytes:
        with self.lock:
            if self.used + size > len(self.block):
                self.block = os.urandom(max(BLOCK, size))
                self.used = 0
            start = self.used
            self.used += size
            return self.block[start : self.used]


_POOL = _Pool()
# The child of a fork gets a fresh pool (and lock): never the parent's unused bytes.
os.register_at_fork(after_in_child=_POOL.reset)


def random_bytes(size: int) -> bytes:
    """`size` bytes from the OS CSPRNG (like `os.urandom`, without a system call per call)."""
    if size < 0:
        raise ValueError("size must not be negative")
    return _POOL.take(size)
