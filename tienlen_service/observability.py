"""Metrics, logs and the server interceptor that feeds both, once per call.

Metrics follow the names of the standard gRPC server metrics (as go-grpc-prometheus and
py-grpc-prometheus export them) so that existing dashboards and alerts work unchanged, plus a
few domain counters prefixed ``tienlen_``. Labels never hold a game, a player, a card or a token.

Logs are structlog, in JSON when stdout is not a terminal, readable colours when it is. Each
call may get one canonical line (``rpc``, ``code``, ``duration_ms``, ``request_id``,
``sampled``); `AccessLog` decides which: every failed, slow or streaming call, and one
successful unary call in ``--log-sample``. Metrics count and time every call.
"""

from __future__ import annotations

import itertools
import logging
import re
import socket
import sys
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TextIO
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import grpc
import structlog
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    make_wsgi_app,
)
from prometheus_client.exposition import ThreadingWSGIServer

from tienlen_service.entropy import random_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, MutableMapping

    from structlog.typing import EventDict, Processor, WrappedLogger

    _Handler = grpc.RpcMethodHandler[Any, Any]
    _ServerInterceptor = grpc.ServerInterceptor[Any, Any]
else:
    _ServerInterceptor = grpc.ServerInterceptor

REQUEST_ID_HEADER: Final = "x-request-id"
MALFORMED_REQUEST: Final = "MALFORMED_REQUEST"
"""`ErrorInfo.reason` of a request whose bytes don't parse as the RPC's request message."""
ERROR_DOMAIN: Final = "tienlen.v1"

# Sub-millisecond engine calls up to slow, queued ones: the default Prometheus buckets start
# at 5 ms, which would put every healthy call of this service in the first bucket.
HANDLING_BUCKETS: Final = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

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
# Probes call these every few seconds: log them at debug level only (they are still counted).
_QUIET_SERVICES: Final = frozenset({"grpc.health.v1.Health"})


class VariantCounters(NamedTuple):
    """One variant's domain counters (children of the `variant`-labelled counters)."""

    games_started: Counter
    moves_applied: Counter
    games_finished: Counter
    instant_wins: Counter
    chops: Counter


class Metrics:
    """The service's Prometheus metrics, registered in one `CollectorRegistry`.

    A registry per server (not prometheus_client's global one) lets several servers live in
    one process, as they do in the tests.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        # The `*_created` series double the exposition for nothing Prometheus uses (it is a
        # process-wide switch of prometheus_client; every server here wants it off).
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        r = self.registry
        # --- the standard gRPC server metrics -----------------------------------------------
        rpc_labels = ("grpc_type", "grpc_service", "grpc_method")
        self.grpc_started = Counter(
            "grpc_server_started",
            "RPCs started on the server.",
            rpc_labels,
            registry=r,
        )
        self.grpc_handled = Counter(
            "grpc_server_handled",
            "RPCs completed on the server, by status code.",
            (*rpc_labels, "grpc_code"),
            registry=r,
        )
        self.grpc_handling_seconds = Histogram(
            "grpc_server_handling_seconds",
            "Time from the start of an RPC to its status, in seconds.",
            rpc_labels,
            buckets=HANDLING_BUCKETS,
            registry=r,
        )
        self.grpc_msg_received = Counter(
            "grpc_server_msg_received",
            "Request messages received on the server.",
            rpc_labels,
            registry=r,
        )
        self.grpc_msg_sent = Counter(
            "grpc_server_msg_sent",
            "Response messages sent by the server.",
            rpc_labels,
            registry=r,
        )
        self.in_flight = Gauge(
            "tienlen_rpcs_in_flight",
            "RPCs being handled right now (drops to 0 when a SIGTERM drain completes).",
            registry=r,
        )
        # --- domain counters (exported with a _total suffix) ----------------------------------
        self.games_started = Counter(
            "tienlen_games_started", "Games dealt (NewGame and NextGame).", ("variant",), registry=r
        )
        self.moves_applied = Counter(
            "tienlen_moves_applied", "Moves (plays and passes) applied.", ("variant",), registry=r
        )
        self.moves_rejected = Counter(
            "tienlen_moves_rejected",
            "Moves refused by the rules, by the engine's reason code.",
            ("reason",),
            registry=r,
        )
        self.games_finished = Counter(
            "tienlen_games_finished", "Games played to their settlement.", ("variant",), registry=r
        )
        self.instant_wins = Counter(
            "tienlen_instant_wins",
            "Games ended at the deal by an instant win (tới trắng).",
            ("variant",),
            registry=r,
        )
        self.chops = Counter(
            "tienlen_chops", "Chops (chặt) of a 2 or of a chop.", ("variant",), registry=r
        )
        self.tokens_rejected = Counter(
            "tienlen_tokens_rejected",
            "State or seat tokens refused, by reason code.",
            ("reason",),
            registry=r,
        )
        self.tokens_verified = Counter(
            "tienlen_tokens_verified",
            "State tokens accepted, by the id of the key that signed them (a configured key: "
            "few values). A retired key whose count stays at 0 can be removed.",
            ("kid",),
            registry=r,
        )
        self._variants: dict[str, VariantCounters] = {}
        self.build_info = Gauge(
            "tienlen_build_info",
            "Always 1; the labels tell the running version.",
            ("version",),
            registry=r,
        )
        self._register_runtime_collectors(r)

    @staticmethod
    def _register_runtime_collectors(registry: CollectorRegistry) -> None:
        """The process's own series: process_* (CPU seconds, RSS, open and max fds, start
        time), python_gc_* (collections, collected and uncollectable objects) and python_info.

        prometheus_client registers these in its global registry only; a registry of our own
        must add them, or the saturation alerts and panels (deploy/) find nothing. The
        collectors read the live process at each scrape, so one set per registry is right.
        Into the global registry (already holding them) they are not added twice.
        """
        if registry is REGISTRY:
            return
        ProcessCollector(registry=registry)
        GCCollector(registry=registry)
        PlatformCollector(registry=registry)

    def variant(self, variant: str) -> VariantCounters:
        """The domain counters of one variant, their labelled children looked up once: the
        servicer counts every move, and `labels()` validates, sorts and locks on each call."""
        counters = self._variants.get(variant)
        if counters is None:
            counters = VariantCounters(
                games_started=self.games_started.labels(variant=variant),
                moves_applied=self.moves_applied.labels(variant=variant),
                games_finished=self.games_finished.labels(variant=variant),
                instant_wins=self.instant_wins.labels(variant=variant),
                chops=self.chops.labels(variant=variant),
            )
            # A race only builds the same children twice: labels() returns one child per value.
            self._variants[variant] = counters
        return counters

    def initialize_methods(self, service: str, methods: dict[str, str]) -> None:
        """Create the zero-valued series of every method (name -> grpc_type) of `service`.

        So that ``rate()`` over a method that has not been called yet is 0, not "no data".
        """
        for method, grpc_type in methods.items():
            labels = (grpc_type, service, method)
            self.grpc_started.labels(*labels)
            self.grpc_handling_seconds.labels(*labels)
            self.grpc_handled.labels(*labels, grpc.StatusCode.OK.name)


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
        shared.append(structlog.processors.dict_tracebacks)
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=out.isatty())

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
    """What identifies a call in the log: its RPC, its request id, its web transport.

    The request id is worked out only when a line needs it (most successful calls get none):
    from `request_id`, else from `metadata()`, by `_request_id`'s rule.
    """

    __slots__ = ("_metadata", "_request_id", "rpc", "transport")

    def __init__(
        self,
        rpc: str,
        *,
        request_id: str | None = None,
        metadata: Callable[[], Any] | None = None,
        transport: str | None = None,
    ) -> None:
        self.rpc = rpc
        self.transport = transport
        self._request_id = request_id
        self._metadata = metadata

    @property
    def request_id(self) -> str:
        """The caller's ``x-request-id`` if usable, else a new one (the same one every time)."""
        if self._request_id is None:
            self._request_id = _request_id(self._metadata() if self._metadata else ())
        return self._request_id

    def add_to(self, event: MutableMapping[str, Any]) -> None:
        """Put ``rpc``, ``request_id`` (and ``transport``) in `event`, keeping what is there."""
        event.setdefault("rpc", self.rpc)
        event.setdefault("request_id", self.request_id)
        if self.transport is not None:
            event.setdefault("transport", self.transport)


_CALL: Final[ContextVar[CallFields | None]] = ContextVar("tienlen_call", default=None)
"""The call being handled in this context. grpcio runs every call in a context of its own, so
setting it costs one `ContextVar.set` and nothing needs clearing; the web port sets it on its
worker thread and resets it when the call ends."""


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


# --------------------------------------------------------------------------------------------
# The interceptor


def _status_code(context: grpc.ServicerContext, default: grpc.StatusCode) -> grpc.StatusCode:
    # grpcio's server context records the code given to set_code / abort / abort_with_status
    # (abort raises a bare Exception after recording it); None means nothing was set.
    code: grpc.StatusCode | None = context.code()  # type: ignore[attr-defined]
    if code is not None:
        return code
    if default is not grpc.StatusCode.OK and not context.is_active():
        # The handler failed because the client went away (cancelled, or its deadline
        # passed): not a server fault.
        return grpc.StatusCode.CANCELLED
    return default


def _request_id(metadata: Any) -> str:
    for key, value in metadata or ():
        if key == REQUEST_ID_HEADER and isinstance(value, str) and _REQUEST_ID_RE.fullmatch(value):
            return value
    return random_bytes(16).hex()  # not uuid4(): os.urandom gives the GIL away (entropy.py)


def request_id_of(metadata: Any) -> str:
    """A call's request id: the caller's ``x-request-id`` (from gRPC metadata, or the web
    port's HTTP headers as pairs) when it is 1-128 printable ASCII characters, else a new one."""
    return _request_id(metadata)


class _Malformed:
    """Marks a request whose bytes didn't parse (see `ObservabilityInterceptor`)."""

    __slots__ = ()


_MALFORMED: Final = _Malformed()


def _malformed_status() -> grpc.Status:
    from google.rpc import code_pb2, error_details_pb2, status_pb2
    from grpc_status import rpc_status

    info = error_details_pb2.ErrorInfo(reason=MALFORMED_REQUEST, domain=ERROR_DOMAIN)
    status = status_pb2.Status(
        code=code_pb2.INVALID_ARGUMENT,
        message="the request bytes are not a valid message of this RPC",
    )
    status.details.add().Pack(info)
    result: grpc.Status = rpc_status.to_status(status)
    return result


@dataclass(frozen=True, slots=True)
class _MethodInfo:
    """What the interceptor precomputes once per method (labels, metric children)."""

    rpc: str
    grpc_type: str
    service: str
    method: str
    quiet: bool
    streaming: bool
    sampler: Callable[[], int]
    started: Any
    handling: Any
    received: Any
    sent: Any
    handled: dict[grpc.StatusCode, Any]


class _Call:
    """One call being observed: started on creation, finished once."""

    __slots__ = ("_done", "_fields", "_info", "_interceptor", "_start")

    def __init__(
        self, interceptor: ObservabilityInterceptor, info: _MethodInfo, fields: CallFields
    ) -> None:
        self._interceptor = interceptor
        self._info = info
        self._fields = fields
        self._done = False
        self._start = time.perf_counter()
        info.started.inc()
        interceptor.metrics.in_flight.inc()

    def finish(self, code: grpc.StatusCode) -> None:
        if self._done:
            return
        self._done = True
        elapsed = time.perf_counter() - self._start
        info = self._info
        metrics = self._interceptor.metrics
        metrics.in_flight.dec()
        info.handling.observe(elapsed)
        handled = info.handled.get(code)
        if handled is None:
            handled = metrics.grpc_handled.labels(
                info.grpc_type, info.service, info.method, code.name
            )
            info.handled[code] = handled
        handled.inc()
        access_log = self._interceptor.access_log
        if access_log is not None:
            access_log.finish(
                self._fields,
                info.sampler,
                code,
                elapsed,
                streaming=info.streaming,
                quiet=info.quiet,
            )


class ObservabilityInterceptor(_ServerInterceptor):
    """Counts and times every call, unary or streaming, and gives it to `access_log` (None:
    no `rpc` lines), which logs the calls an operator needs (`AccessLog`).

    The status code is the one the client sees: the servicer's `set_code`, or the code given to
    `context.abort` / `abort_with_status` (which raise inside the handler: we record and
    re-raise), or UNKNOWN for any other exception, exactly as grpcio itself decides.

    It also guards the request deserializer (of unary requests and of every message of a
    client or bidi stream): bytes that don't parse as the request message would make grpcio
    answer INTERNAL ("Exception deserializing request!"), wrongly blaming the server; they get
    INVALID_ARGUMENT with `ErrorInfo.reason` MALFORMED_REQUEST instead.
    """

    def __init__(
        self, metrics: Metrics, *, access_log: AccessLog | None = None, log_calls: bool = True
    ) -> None:
        self.metrics = metrics
        self.access_log = (access_log or AccessLog()) if log_calls else None
        self._cache: dict[str, tuple[_Handler, _Handler]] = {}
        self._lock = threading.Lock()

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], _Handler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> _Handler | None:
        """Wrap the method's handler (once per method; the wrapped one is cached)."""
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method: str = handler_call_details.method
        cached = self._cache.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        with self._lock:
            self._cache[method] = (handler, wrapped)
        return wrapped

    # -- building wrapped handlers (once per method) -----------------------------------------

    def _method_info(self, method: str, grpc_type: str) -> _MethodInfo:
        service, _, name = method.lstrip("/").rpartition("/")
        labels = (grpc_type, service, name)
        m = self.metrics
        return _MethodInfo(
            rpc=method.lstrip("/"),
            grpc_type=grpc_type,
            service=service,
            method=name,
            quiet=service in _QUIET_SERVICES,
            streaming=grpc_type != "unary",
            sampler=AccessLog.sampler(),
            started=m.grpc_started.labels(*labels),
            handling=m.grpc_handling_seconds.labels(*labels),
            received=m.grpc_msg_received.labels(*labels),
            sent=m.grpc_msg_sent.labels(*labels),
            handled={},
        )

    def _begin(self, info: _MethodInfo, context: grpc.ServicerContext) -> _Call:
        # grpcio runs each call in a fresh contextvars.Context: nothing to clear, and the
        # mark is still there when grpcio logs the call's exception after the handler.
        fields = CallFields(info.rpc, metadata=context.invocation_metadata)
        AccessLog.begin(fields)
        return _Call(self, info, fields)

    def _wrap(self, method: str, handler: _Handler) -> _Handler:
        deserializer = handler.request_deserializer
        serializer = handler.response_serializer
        if handler.unary_unary is not None:
            info = self._method_info(method, "unary")
            return grpc.unary_unary_rpc_method_handler(
                self._unary_unary(info, handler.unary_unary),
                request_deserializer=_guard(deserializer),
                response_serializer=serializer,
            )
        if handler.unary_stream is not None:
            behavior = handler.unary_stream
            if getattr(behavior, "experimental_non_blocking", False):
                # Callback-style streams (the health service's Watch) live as long as the
                # client wants; they are left as they are.
                return handler
            info = self._method_info(method, "server_stream")
            return grpc.unary_stream_rpc_method_handler(
                self._unary_stream(info, behavior),
                request_deserializer=_guard(deserializer),
                response_serializer=serializer,
            )
        if handler.stream_unary is not None:
            info = self._method_info(method, "client_stream")
            return grpc.stream_unary_rpc_method_handler(
                self._stream_unary(info, handler.stream_unary),
                request_deserializer=_guard(deserializer),
                response_serializer=serializer,
            )
        if handler.stream_stream is not None:
            info = self._method_info(method, "bidi_stream")
            return grpc.stream_stream_rpc_method_handler(
                self._stream_stream(info, handler.stream_stream),
                request_deserializer=_guard(deserializer),
                response_serializer=serializer,
            )
        return handler

    def _unary_unary(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(request: Any, context: grpc.ServicerContext) -> Any:
            call = self._begin(info, context)
            code = grpc.StatusCode.UNKNOWN
            try:
                if request is _MALFORMED:
                    context.abort_with_status(_malformed_status())
                info.received.inc()
                response = behavior(request, context)
                info.sent.inc()
                code = _status_code(context, grpc.StatusCode.OK)
            except BaseException:
                code = _status_code(context, grpc.StatusCode.UNKNOWN)
                raise
            finally:
                call.finish(code)
            return response

        return wrapper

    def _unary_stream(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            call = self._begin(info, context)
            try:
                if request is _MALFORMED:
                    context.abort_with_status(_malformed_status())
                info.received.inc()
                responses = behavior(request, context)
            except BaseException:
                call.finish(_status_code(context, grpc.StatusCode.UNKNOWN))
                raise
            return self._observe_stream(info, call, context, responses)

        return wrapper

    def _stream_unary(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
            call = self._begin(info, context)
            code = grpc.StatusCode.UNKNOWN
            try:
                response = behavior(_count(requests, info.received, context), context)
                info.sent.inc()
                code = _status_code(context, grpc.StatusCode.OK)
            except BaseException:
                code = _status_code(context, grpc.StatusCode.UNKNOWN)
                raise
            finally:
                call.finish(code)
            return response

        return wrapper

    def _stream_stream(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            call = self._begin(info, context)
            try:
                responses = behavior(_count(requests, info.received, context), context)
            except BaseException:
                call.finish(_status_code(context, grpc.StatusCode.UNKNOWN))
                raise
            return self._observe_stream(info, call, context, responses)

        return wrapper

    @staticmethod
    def _observe_stream(
        info: _MethodInfo, call: _Call, context: grpc.ServicerContext, responses: Any
    ) -> Iterator[Any]:
        code = grpc.StatusCode.UNKNOWN
        try:
            for response in responses:
                info.sent.inc()
                yield response
            code = _status_code(context, grpc.StatusCode.OK)
        except GeneratorExit:
            # grpcio stopped pulling: the client went away (or the deadline passed).
            code = grpc.StatusCode.CANCELLED
            raise
        except BaseException:
            code = _status_code(context, grpc.StatusCode.UNKNOWN)
            raise
        finally:
            call.finish(code)


def _count(requests: Iterator[Any], counter: Any, context: grpc.ServicerContext) -> Iterator[Any]:
    """Count a stream's request messages; a message whose bytes don't parse ends the call
    with INVALID_ARGUMENT / MALFORMED_REQUEST, as a unary request's would."""
    for request in requests:
        if request is _MALFORMED:
            context.abort_with_status(_malformed_status())
        counter.inc()
        yield request


def _guard(
    deserializer: Callable[[bytes], Any] | None,
) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def guarded(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # noqa: BLE001 - any parse failure is the caller's malformed input
            return _MALFORMED

    return guarded


# --------------------------------------------------------------------------------------------
# The /metrics endpoint


class _QuietHandler(WSGIRequestHandler):
    """No access log line per scrape."""

    def log_message(self, *_args: Any) -> None:
        """Log nothing."""


class MetricsServer:
    """The Prometheus exporter (prometheus_client's WSGI app) on its own thread, stoppable.

    The same parts as prometheus_client's `start_http_server`, but the serving loop polls its
    stop flag every 0.1 s instead of 0.5 s, so that stopping a server (every test does it)
    doesn't wait half a second.
    """

    POLL_INTERVAL: Final = 0.1

    def __init__(self, port: int, registry: CollectorRegistry, host: str) -> None:
        family, address = _best_family(host, port)
        server_class = type(
            "_MetricsWSGIServer", (ThreadingWSGIServer,), {"address_family": family}
        )
        self._httpd: WSGIServer = make_server(
            address, port, make_wsgi_app(registry), server_class, handler_class=_QuietHandler
        )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": self.POLL_INTERVAL},
            name="tienlen-metrics",
            daemon=True,
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The bound port (useful when 0 was asked for)."""
        port: int = self._httpd.server_address[1]
        return port

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _best_family(host: str, port: int) -> tuple[socket.AddressFamily, str]:
    # An IPv6 host ("::") needs an AF_INET6 socket; HTTPServer defaults to AF_INET.
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, sockaddr = infos[0]
    return family, str(sockaddr[0])


def start_metrics_server(
    port: int,
    registry: CollectorRegistry,
    host: str = "0.0.0.0",  # noqa: S104 - an exporter listens on every address by default
) -> MetricsServer:
    """Serve `registry` at ``http://host:port/metrics`` (port 0: any free port)."""
    return MetricsServer(port, registry, host)
