"""``python -m tienlen_service`` / ``tienlen-service``: run the server until SIGTERM or SIGINT.

On the signal: health NOT_SERVING, stop accepting calls, let the calls in flight finish
(``--grace`` seconds at most), exit 0. A second SIGINT (Ctrl-C twice) stops at once: it
logs ``stop_interrupted`` and exits 130.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
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
    taken inside a signal handler (an `Event.set()` there can deadlock). The pipe is read
    whichever thread the kernel handed the signal to: a grpc core thread often takes it,
    and then the main thread is not interrupted at all (a wait for the drain's end would
    never see a second Ctrl-C).
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT)
    DONE = 0
    """Written by `done()`: not a signal number."""

    def __init__(self) -> None:
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        signal.set_wakeup_fd(self._write_fd)
        for signum in self.SIGNALS:
            signal.signal(signum, lambda _signum, _frame: None)

    def wait(self, *, until: tuple[int, ...] = SIGNALS) -> int:
        """The first of `until` to arrive: a signal number, or DONE (blocking until then)."""
        while True:
            data = os.read(self._read_fd, 1)
            if data and data[0] in until:
                return data[0]

    def done(self) -> None:
        """Wake `wait(until=(..., DONE))`: the drain has ended (called from its thread)."""
        os.write(self._write_fd, bytes([self.DONE]))

    def close(self) -> None:
        """Ctrl-C back to Python's default; a late SIGTERM (a supervisor repeating itself as
        the process exits) still changes nothing."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.close(self._read_fd)
        os.close(self._write_fd)


def _freeze_startup_objects() -> None:
    """Move what start-up made (modules, descriptors, the rules' tables: it lives as long as
    the process) out of the cyclic collector's sight, after one collection of start-up's own
    garbage. The states a replica caches survive into the oldest generation and set off full
    collections, which then traverse only what calls made, not the ~50k objects of start-up
    (bench/README.md: ~4k instructions a call on the miss path). Done by the process, not by
    `Server`: a process that starts servers of its own (the tests) keeps its collector."""
    gc.collect()
    gc.freeze()


def _drain(server: Server, signals: _SignalWaiter) -> BaseException | None:
    """Stop the server on a thread of its own while this one watches for a second Ctrl-C.

    None when the drain ended; the drain's own error if it raised one; KeyboardInterrupt
    when a second SIGINT cut it short (a second SIGTERM changes nothing: a supervisor
    repeating itself). The drain's thread is a daemon: an interrupted process exits without
    waiting for it.
    """
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.stop()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            failure.append(exc)
        finally:
            signals.done()

    threading.Thread(target=run, name="tienlen-drain", daemon=True).start()
    if signals.wait(until=(signal.SIGINT, _SignalWaiter.DONE)) == signal.SIGINT:
        return KeyboardInterrupt()
    return failure[0] if failure else None


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
        _freeze_startup_objects()
        signum = signals.wait()
        log.info(
            "shutdown_requested",
            signal=signal.Signals(signum).name,
            drain_delay_s=config.drain_delay,
            grace_s=config.grace,
        )
        outcome = _drain(server, signals)
    finally:
        signals.close()
    if isinstance(outcome, KeyboardInterrupt):
        # A second Ctrl-C: the operator wants it stopped now. One log line, not a traceback
        # (the logs stay JSON lines), then the process ends at once: no wait for the drain's
        # thread, nor for calls still running on the pools' threads.
        log.warning("stop_interrupted")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    if outcome is not None:
        raise outcome
    return 0


if __name__ == "__main__":
    sys.exit(main())
