"""One log line per burst, not per connection: the web port's own errors under a flood.

A client that opens connections faster than the process has file descriptors makes every
accept fail (``EMFILE``); asyncio reports each failure, and uvicorn warns about each request
it cannot parse. Logged one by one, a single client writes the log at its own rate (a test
run of 1,050 half-sent requests left 5,515 tracebacks, 7.6 MB). `Bursts` lets the first line
of a kind through, counts the repeats that follow within `window` seconds, and says how many
there were on the next line of that kind that is let through (``repeats``).

Two doors into it: `Bursts.loop_exception_handler` for the event loop's exception handler
(asyncio's accept errors and transport faults; logged without a traceback: the type and a
bounded message say what failed), and `BurstFilter`, a `logging.Filter` for uvicorn's logger.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Final

from tienlen_service.logs import get_logger
from tienlen_service.statuses import bounded

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

#: Seconds in which repeats of a line are counted, not written.
WINDOW: Final = 10.0


class Bursts:
    """Which lines of a kind (`key`) to let through: the first, then one per `window`."""

    def __init__(self, window: float = WINDOW, clock: Callable[[], float] = time.monotonic) -> None:
        self._window = window
        self._clock = clock
        self._lock = threading.Lock()
        self._opened: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._log = get_logger("tienlen.web")

    def admit(self, key: str) -> int | None:
        """None when a line of `key` is held back (counted); else how many were held back
        since the last one let through (0 for the first of a burst)."""
        now = self._clock()
        with self._lock:
            opened = self._opened.get(key)
            if opened is not None and now - opened < self._window:
                self._held[key] = self._held.get(key, 0) + 1
                return None
            self._opened[key] = now
            return self._held.pop(key, 0)

    def loop_exception_handler(
        self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]
    ) -> None:
        """An event loop's exception handler: one ``web_loop_error`` line per burst of one kind."""
        message = str(context.get("message", "event loop error"))
        exc = context.get("exception")
        error_type = type(exc).__name__ if exc is not None else ""
        # Keyed by the message's head: a callback's message quotes its arguments.
        repeats = self.admit(f"{message[:60]}:{error_type}")
        if repeats is None:
            return
        self._log.error(
            "web_loop_error",
            message=bounded(message),
            error_type=error_type,
            error=bounded(str(exc)) if exc is not None else "",
            repeats=repeats,
        )


class BurstFilter(logging.Filter):
    """Lets one record of each message (its template, not its values) through per window; the
    record let through says in ``repeats`` how many were held back before it."""

    def __init__(self, bursts: Bursts) -> None:
        super().__init__()
        self._bursts = bursts

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to write `record`."""
        repeats = self._bursts.admit(f"{record.name}:{record.msg}")
        if repeats is None:
            return False
        record.repeats = repeats
        return True
