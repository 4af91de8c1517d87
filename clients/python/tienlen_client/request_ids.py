"""Request ids: the ``x-request-id`` of every call, found again in the service's log line.

Not `uuid.uuid4()`: it reads `os.urandom` on every call, and a system call gives the GIL away,
which costs a host calling from many threads a context switch per call. An id only has to be
unique, not secret: 128 bits from a generator seeded once from the OS do that.
"""

from __future__ import annotations

import random
from typing import Final

REQUEST_ID_HEADER: Final = "x-request-id"

_IDS: Final = random.Random()  # seeded from os.urandom once  # noqa: S311 - ids, not secrets


def new_request_id() -> str:
    """32 hexadecimal digits, new on every call."""
    return f"{_IDS.getrandbits(128):032x}"


def request_metadata() -> tuple[tuple[str, str], ...]:
    """The call metadata carrying a new request id."""
    return ((REQUEST_ID_HEADER, new_request_id()),)
