"""How much work a call does, counted rather than timed: the Python and C calls it makes.

Tests bound the cost of the engine's answers by counts (machines are shared and noisy): the
number of function calls is the same on every machine for the same code and input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def calls_made(work: Callable[[], Any]) -> int:
    """The Python and C function calls `work()` makes (a profile hook counts them)."""
    made = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        del frame, arg
        nonlocal made
        if event in ("call", "c_call"):
            made += 1

    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(None)
    return made
