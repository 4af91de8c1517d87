"""Logs: structlog set-up, and the access log that decides which calls get their `rpc` line.

Logs are structlog, in JSON when stdout is not a terminal, readable colours when it is. No
line ever holds a frame's locals (structlog's `dict_tracebacks` and the console's rich
tracebacks render them by default: a state token and every hand, once) and no value in a line
is longer than `MAX_VALUE_CHARS` (`cut_long_values`). Each call may get one canonical line (``rpc``, ``code``, ``duration_ms``, ``request_id``,
``sampled``, and a refused call's ``reason``); `AccessLog` decides which: every failed, slow or streaming call, and one
successful unary call in ``--log-sample``.
"""

from __future__ import annotations

import io
import itertools
import logging
import re
import sys
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, TextIO

import grpc
import structlog

from tienlen_service.entropy import random_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, MutableMapping

    from structlog.typing import EventDict, Processor, WrappedLogger


REQUEST_ID_HEADER: Final = "x-request-id"

_REQUEST_ID_RE: Final = re.compile(r"[\x21-\x7e]{1,128}")
"""A client's request id is kept only if it is 1-128 printable ASCII characters."""

# Codes that mean the server (not the caller) has a problem: logged as errors.
_SERVER_FAULTS: Final = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.DATA_LOSS,
    }
)

# --------------------------------------------------------------------------------------------
# Logging


def configure_logging(
    level: str = "info", log_format: str | None = None, stream: TextIO | None = None
) -> None:
    """Configure structlog (and the standard library's logging, which grpc uses) once.

    `log_format` is "json", "console", or None: JSON unless `stream` is a terminal.
    """
    out = stream if stream is not None else sys.stdout
    if log_format is None:
        log_format = "console" if out.isatty() else "json"
    if log_format not in {"json", "console"}:
        raise ValueError(f"unknown log format {log_format!r} (json or console)")
    numeric_level = logging.getLevelNamesMapping().get(level.upper())
    if numeric_level is None:
        raise ValueError(f"unknown log level {level!r}")

    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        add_call_fields,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Processor
    if log_format == "json":
        # Tracebacks as data, without the frames' locals (dict_tracebacks shows them).
        shared.append(
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(
                    show_locals=False, max_frames=MAX_TRACEBACK_FRAMES
                )
            )
        )
        renderer = structlog.processors.JSONRenderer()
    else:
        # The standard library's traceback, never rich's or better-exceptions' (both show
        # locals), its lines cut like every value.
        renderer = structlog.dev.ConsoleRenderer(
            colors=out.isatty(), exception_formatter=short_traceback
        )
    shared.append(cut_long_values)

    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=True,
    )

    # grpc (and anything else on the standard library) logs through the same renderer to the
    # same stream, so every line of the process has one shape.
    handler = _LogHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=[
                structlog.stdlib.add_logger_name,
                *shared,
                structlog.stdlib.ExtraAdder(),
            ],
        )
    )
    _remove_log_handlers()
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(numeric_level)


MAX_VALUE_CHARS: Final = 500
"""The longest string value a log line holds (longer ones are cut, saying by how much): an
error message may quote a request, and nothing a reader needs is longer."""
MAX_TRACEBACK_FRAMES: Final = 20
"""Frames of a traceback kept (the outermost and innermost halves)."""

_PLAIN: Final = (str, int, float, bool, type(None))


def cut(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """`text`, or its first `limit` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[{len(text) - limit} more characters cut]"


def _cut_value(value: Any) -> Any:
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        return {cut(str(k)): _cut_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cut_value(v) for v in value]
    return cut(repr(value))  # what the renderer would write, cut


def cut_long_values(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Cut every string value of a line, at any depth (a structlog processor, the last before
    the renderer): an object is written as its repr, cut too. `exc_info` is left for the
    renderer (the console's `short_traceback` cuts its lines); records of the standard
    library (`_record`, `_from_structlog`) pass untouched."""
    for key, value in event.items():
        if key not in {"exc_info", "_record", "_from_structlog"}:
            event[key] = _cut_value(value)
    return event


def short_traceback(sio: TextIO, exc_info: Any) -> None:
    """The console's traceback: structlog's `plain_traceback` (the standard library's: no
    frame locals), each line cut to `MAX_VALUE_CHARS`."""
    buffer = io.StringIO()
    structlog.dev.plain_traceback(buffer, exc_info)
    sio.write("\n".join(cut(line) for line in buffer.getvalue().split("\n")))


class _LogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler `configure_logging` installs (so that it can find and replace its own)."""


def _remove_log_handlers() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _LogHandler):
            root.removeHandler(handler)


def reset_logging() -> None:
    """Undo `configure_logging` (tests that capture logs restore the defaults with it)."""
    structlog.reset_defaults()
    _remove_log_handlers()


def get_logger(name: str = "tienlen") -> Any:
    """A structlog logger; it takes the configuration in force when it first logs."""
    return structlog.get_logger(name)


# --------------------------------------------------------------------------------------------
# The access log: which calls get their `rpc` line

DEFAULT_LOG_SAMPLE: Final = 100
"""One successful unary call in this many gets its `rpc` line (``--log-sample``)."""
DEFAULT_LOG_SLOW_MS: Final = 100.0
"""A call handled in this many milliseconds or more is always logged (``--log-slow-ms``): a
thousand times an ApplyMove's usual handling time, and a bucket bound of the histogram."""


class CallFields:
    """What identifies a call in the log: its RPC, its request id, its web transport, and
    the `ErrorInfo.reason` of its refusal once it has one (`note_reason`).

    The request id is worked out only when a line needs it (most successful calls get none):
    from `request_id`, else from `metadata` (the call's metadata pairs), by `_request_id`'s
    rule. The metadata itself is kept, not grpcio's bound `invocation_metadata`: that would
    tie the call's context object to the contextvars context this record is set in, which
    grpcio's call state holds, a cycle that only the cyclic collector frees (~20 objects a
    call, bench/README.md).
    """

    __slots__ = ("_metadata", "_request_id", "reason", "rpc", "transport")

    def __init__(
        self,
        rpc: str,
        *,
        request_id: str | None = None,
        metadata: Iterable[tuple[str, Any]] | None = None,
        transport: str | None = None,
    ) -> None:
        self.rpc = rpc
        self.transport = transport
        self.reason: str | None = None
        self._request_id = request_id
        self._metadata = metadata

    @property
    def request_id(self) -> str:
        """The caller's ``x-request-id`` if usable, else a new one (the same one every time)."""
        if self._request_id is None:
            self._request_id = _request_id(self._metadata)
        return self._request_id

    def add_to(self, event: MutableMapping[str, Any]) -> None:
        """Put ``rpc``, ``request_id`` (and ``transport``, ``reason``) in `event`, keeping what
        is there."""
        event.setdefault("rpc", self.rpc)
        event.setdefault("request_id", self.request_id)
        if self.transport is not None:
            event.setdefault("transport", self.transport)
        if self.reason is not None:
            event.setdefault("reason", self.reason)


_CALL: Final[ContextVar[CallFields | None]] = ContextVar("tienlen_call", default=None)
"""The call being handled in this context. grpcio runs every call in a context of its own, so
setting it costs one `ContextVar.set` and nothing needs clearing; the web port sets it on its
worker thread and resets it when the call ends."""


def note_reason(reason: str) -> None:
    """Give the call being handled the `ErrorInfo.reason` it is refused with, so that its
    `rpc` line (and any line logged after) says why: DEAL_NOT_ALLOWED and SEAT_TOKEN_INVALID
    share a code (PERMISSION_DENIED) and nothing else. Called where a refusal is made
    (`statuses.abort`, the interceptor's MALFORMED_REQUEST), on either port."""
    call = _CALL.get()
    if call is not None:
        call.reason = reason


def add_call_fields(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Name the call being handled in every line logged meanwhile (a structlog processor):
    grpc's own "Exception calling application" traceback gets the ``rpc`` and ``request_id``
    of the call that crashed.

    It replaces ``clear_contextvars()`` + ``bind_contextvars()`` per call, which cost about
    as much as all the interceptor's metrics (~10 µs on a busy host) and were paid by calls
    that log nothing.
    """
    call = _CALL.get()
    if call is not None:
        call.add_to(event)
    return event


class AccessLog:
    """The `rpc` line of a finished call, when it gets one; shared by the gRPC interceptor and
    the web port, so both log by one rule.

    Always logged: a call that did not end OK, a call handled in `slow_ms` or more, and a
    streaming call (one line per stream, not per message). Of the other calls — successful,
    fast, unary: the bulk of the traffic — one in `sample` per method is logged, with
    ``sampled`` = `sample` (the number of calls the line stands for; 1 on lines logged for
    themselves), so that counts from the logs can be scaled: summing ``sampled`` estimates the
    calls. The metrics, not the logs, are the exact counts.

    Why: rendering, writing and flushing a JSON line costs a loaded replica more than our
    whole interceptor's metrics (bench/README.md), and an operator looks in the logs for the
    calls that went wrong or slow, which are all there.
    """

    def __init__(
        self, *, sample: int = DEFAULT_LOG_SAMPLE, slow_ms: float = DEFAULT_LOG_SLOW_MS
    ) -> None:
        if sample < 1:
            raise ValueError("the log sample must be at least 1 (1 = every call)")
        if not slow_ms >= 0:
            raise ValueError("the slow-call threshold must be at least 0 ms")
        self.sample = sample
        self.slow_ms = slow_ms
        self._slow_s = slow_ms / 1000.0
        self.log = get_logger("tienlen.rpc")

    @staticmethod
    def sampler() -> Callable[[], int]:
        """A counter of the calls of one method (the sampling picks every `sample`-th, the
        first included, so a method's first call is always seen)."""
        return itertools.count().__next__

    @staticmethod
    def begin(call: CallFields) -> Any:
        """Mark `call` as the one being handled (see `add_call_fields`); returns the token that
        `end` takes."""
        return _CALL.set(call)

    @staticmethod
    def end(token: Any) -> None:
        """Undo `begin` (where the context outlives the call: a reused worker thread)."""
        _CALL.reset(token)

    def finish(
        self,
        call: CallFields,
        sampler: Callable[[], int],
        code: grpc.StatusCode,
        elapsed: float,
        *,
        streaming: bool = False,
        quiet: bool = False,
        refused: bool = False,
    ) -> None:
        """Log the `rpc` line of a call that ended with `code` after `elapsed` seconds, if this
        call gets one: at error level for a server fault, debug for a `quiet` one (health
        probes), warning for a call `refused` before it ran (over the concurrency cap), else
        info."""
        sampled = 1
        if (
            self.sample != 1
            and code is grpc.StatusCode.OK
            and not streaming
            and elapsed < self._slow_s
        ):
            # Successful, fast and unary: one such call of the method in `sample` is logged.
            if sampler() % self.sample:
                return
            sampled = self.sample
        fields: dict[str, Any] = {
            "code": code.name,
            "duration_ms": round(elapsed * 1000.0, 3),
            "sampled": sampled,
        }
        call.add_to(fields)
        log = self.log
        if code in _SERVER_FAULTS:
            log.error("rpc", **fields)
        elif refused:
            log.warning("rpc", **fields)
        elif quiet:
            log.debug("rpc", **fields)
        else:
            log.info("rpc", **fields)


def _request_id(metadata: Any) -> str:
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER and isinstance(value, str) and _REQUEST_ID_RE.fullmatch(value):
            return value
    return random_bytes(16).hex()  # not uuid4(): os.urandom gives the GIL away (entropy.py)


def request_id_of(metadata: Any) -> str:
    """A call's request id: the caller's ``x-request-id`` (from gRPC metadata, or the web
    port's HTTP headers as pairs) when it is 1-128 printable ASCII characters, else a new one."""
    return _request_id(metadata)
