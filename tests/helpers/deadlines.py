"""The one start-up deadline every test server, replica and proxy is waited on.

A test waits on an event (a health status turning SERVING, a log line, an exit) and never on
elapsed time; this is only the point at which a wait gives up and fails with what it saw. It is
generous on purpose: on a shared, busy machine (six CPU-burning processes beside the suite) a
Python server can take tens of seconds to import and bind, and a deadline that is reached is a
test that fails for the machine's speed, not for the code.
"""

from __future__ import annotations

from typing import Final

STARTUP_TIMEOUT: Final = 120.0
"""Seconds a started server (or replica, or proxy) gets to say it is ready before the test fails."""
