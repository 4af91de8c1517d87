"""``python -m tienlen_service`` / ``tienlen-service``: run the server until SIGTERM or SIGINT.

On the signal: health NOT_SERVING, stop accepting calls, let the calls in flight finish
(``--grace`` seconds at most), exit 0. A second SIGINT (Ctrl-C twice) stops at once: it
logs ``stop_interrupted`` and exits 130.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

# grpc's C core writes its own lines to stderr (``E1202 00:49:31.571 add_port.cc:83] ...``),
# not JSON: one line shape for the logs means silencing them, read once when grpc is first
# imported (below, through the server's modules). What they say the service says itself: a
# bind failure is `startup_failed`, a starved port shows in health and the metrics. An
# operator who sets GRPC_VERBOSITY (or GRPC_TRACE) to debug gets them back.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

from tienlen_service.config import parse_config
from tienlen_service.logs import configure_logging, get_logger
from tienlen_service.server import PublishedKeyError, Server, version
from tienlen_service.tokens import KeyConfigError, KeyRing

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_service.server import Registrar

EXIT_STARTUP_FAILED = 1
EXIT_BAD_SETTINGS = 2
"""As argparse exits for a bad flag: the settings themselves are wrong."""
EXIT_INTERRUPTED = 130
"""A second Ctrl-C cut the drain short: the status a shell gives a process Ctrl-C stopped."""


class _SignalWaiter:
    """Catches SIGTERM and SIGINT from its creation on; `wait()` blocks until one arrives.

    Installed before the server starts, so that a signal sent as soon as the port answers
    is never met by Python's default action (death without a drain). The handlers do
    nothing but let the C-level wakeup fd write the signal number into a pipe: no lock is
    taken inside a signal handler (an `Event.set()` there can deadlock).
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        signal.set_wakeup_fd(self._write_fd)
        for signum in self.SIGNALS:
            signal.signal(signum, lambda _signum, _frame: None)

    def wait(self) -> int:
        """The number of the first SIGTERM or SIGINT (blocking until there is one)."""
        while True:
            data = os.read(self._read_fd, 1)
            if data and data[0] in self.SIGNALS:
                return data[0]

    def close(self) -> None:
        """Back to the default handlers: a second Ctrl-C interrupts the drain, as usual."""
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.set_wakeup_fd(-1)
        os.close(self._read_fd)
        os.close(self._write_fd)


def main(argv: Sequence[str] | None = None, *, register: Registrar | None = None) -> int:
    """Run the service; the exit status is 0 after a clean drain.

    `register` replaces the engine with other services (the runtime tests use it).
    """
    config, ns = parse_config(argv)
    if ns.version:
        print(version())  # noqa: T201 - the command's output
        return 0
    if ns.generate_key is not None:
        try:
            print(KeyRing.new_spec_entry(ns.generate_key))  # noqa: T201
        except KeyConfigError as exc:
            print(f"tienlen-service: {exc}", file=sys.stderr)  # noqa: T201
            return 2
        return 0

    configure_logging(config.log_level, config.log_format)
    log = get_logger("tienlen")
    signals = _SignalWaiter()
    try:
        try:
            server = Server(config, register=register)
            server.start()
        except PublishedKeyError as exc:
            print(f"tienlen-service: error: {exc}", file=sys.stderr)  # noqa: T201 - one clear line
            return EXIT_BAD_SETTINGS
        except (KeyConfigError, OSError, ValueError) as exc:
            log.error("startup_failed", error=str(exc))  # noqa: TRY400 - the message is the point
            return EXIT_STARTUP_FAILED
        signum = signals.wait()
    finally:
        signals.close()
    log.info(
        "shutdown_requested",
        signal=signal.Signals(signum).name,
        drain_delay_s=config.drain_delay,
        grace_s=config.grace,
    )
    try:
        server.stop()
    except KeyboardInterrupt:
        # A second Ctrl-C: the operator wants it stopped now. One log line, not a traceback
        # (the logs stay JSON lines); the process exit ends what the drain had not.
        log.warning("stop_interrupted")
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
