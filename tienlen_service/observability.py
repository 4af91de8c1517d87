"""The call observer: it feeds the metrics (`metrics`) and the access log (`logs`), once per
call, and turns request bytes that do not parse into a clear refusal. It wraps each handler
once, at registration (`handlers`), not as a grpc interceptor on every call.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc

from tienlen_service.logs import AccessLog, CallFields, note_reason
from tienlen_service.metrics import MethodSeries, Metrics

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    _Handler = grpc.RpcMethodHandler[Any, Any]


MALFORMED_REQUEST: Final = "MALFORMED_REQUEST"
"""`ErrorInfo.reason` of a request whose bytes don't parse as the RPC's request message."""
REQUEST_TOO_LARGE: Final = "REQUEST_TOO_LARGE"
"""`ErrorInfo.reason` of a request message over `--max-request-bytes` (metadata
``max_request_bytes``: the limit)."""
ERROR_DOMAIN: Final = "tienlen.v1"


QUIET_SERVICES: Final = frozenset({"grpc.health.v1.Health"})
"""Services whose calls are logged at debug level only, on either port: probes call them
every few seconds (they are still counted in the metrics)."""


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


class _Refused:
    """Marks a request refused before it was read (see `CallObserver`): the status it ends its
    call with (made when needed)."""

    __slots__ = ("status",)

    def __init__(self, status: Callable[[], grpc.Status]) -> None:
        self.status = status


def _refusal(
    code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None
) -> grpc.Status:
    from google.rpc import error_details_pb2, status_pb2
    from grpc_status import rpc_status

    note_reason(reason)
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata)
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(info)
    result: grpc.Status = rpc_status.to_status(status)
    return result


def _malformed_status() -> grpc.Status:
    return _refusal(
        grpc.StatusCode.INVALID_ARGUMENT,
        MALFORMED_REQUEST,
        "the request bytes are not a valid message of this RPC",
    )


_MALFORMED: Final = _Refused(_malformed_status)


def _too_large(size: int, limit: int) -> _Refused:
    """The refusal of a request message of `size` bytes, over `limit`."""

    def status() -> grpc.Status:
        return _refusal(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            REQUEST_TOO_LARGE,
            f"the request message is {size} bytes; the largest this server takes is {limit}",
            {"max_request_bytes": str(limit)},
        )

    return _Refused(status)


@dataclass(frozen=True, slots=True)
class _MethodInfo:
    """What the observer precomputes once per method (labels, its metric series)."""

    rpc: str
    grpc_type: str
    service: str
    method: str
    quiet: bool
    streaming: bool
    sampler: Callable[[], int]
    series: MethodSeries


class _Call:
    """One streaming call being observed: started on creation, finished once. (A unary call
    is observed inline by its wrapper: one object and two method calls fewer per call.)"""

    __slots__ = ("_done", "_fields", "_info", "_observer", "_start")

    def __init__(
        self,
        observer: CallObserver,
        info: _MethodInfo,
        fields: CallFields,
        *,
        received: bool,
    ) -> None:
        self._observer = observer
        self._info = info
        self._fields = fields
        self._done = False
        self._start = time.perf_counter()
        info.series.start(received)

    def finish(self, code: grpc.StatusCode) -> None:
        if self._done:
            return
        self._done = True
        elapsed = time.perf_counter() - self._start
        info = self._info
        info.series.finish(code, elapsed)
        access_log = self._observer.access_log
        if access_log is not None:
            access_log.finish(
                self._fields,
                info.sampler,
                code,
                elapsed,
                streaming=info.streaming,
                quiet=info.quiet,
            )


class CallObserver:
    """Counts and times every call, unary or streaming, and gives it to `access_log` (None:
    no `rpc` lines), which logs the calls an operator needs (`AccessLog`).

    The status code is the one the client sees: the servicer's `set_code`, or the code given to
    `context.abort` / `abort_with_status` (which raise inside the handler: we record and
    re-raise), or UNKNOWN for any other exception, exactly as grpcio itself decides.

    It also guards the request deserializer (of unary requests and of every message of a
    client or bidi stream): bytes that don't parse as the request message would make grpcio
    answer INTERNAL ("Exception deserializing request!"), wrongly blaming the server; they get
    INVALID_ARGUMENT with `ErrorInfo.reason` MALFORMED_REQUEST instead. A message over
    `max_request_bytes` is refused unread, RESOURCE_EXHAUSTED with `ErrorInfo.reason`
    REQUEST_TOO_LARGE and the limit in its metadata, and counted and logged as such (grpc
    core, whose limit the server sets above it, would end the call before the handler, which
    then sees only a cancelled call: a PlayStream refused so was logged CANCELLED).
    """

    def __init__(
        self,
        metrics: Metrics,
        *,
        access_log: AccessLog | None = None,
        log_calls: bool = True,
        max_request_bytes: int | None = None,
    ) -> None:
        self.metrics = metrics
        self._max_request_bytes = max_request_bytes
        self.access_log = (access_log or AccessLog()) if log_calls else None
        self._cache: dict[str, tuple[_Handler, _Handler]] = {}
        self._lock = threading.Lock()

    def wrap(self, method: str, handler: _Handler) -> _Handler:
        """`handler` (of the full method path `method`) counted, timed and logged: what the
        server registers (`handlers.HandlerRecorder`), so that no interceptor pipeline runs per
        call; the wrapped handler is cached per method."""
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
        return _MethodInfo(
            rpc=method.lstrip("/"),
            grpc_type=grpc_type,
            service=service,
            method=name,
            quiet=service in QUIET_SERVICES,
            streaming=grpc_type != "unary",
            sampler=AccessLog.sampler(),
            series=self.metrics.method_series(grpc_type, service, name),
        )

    def _begin(self, info: _MethodInfo, context: grpc.ServicerContext, *, received: bool) -> _Call:
        # grpcio runs each call in a fresh contextvars.Context: nothing to clear, and the
        # mark is still there when grpcio logs the call's exception after the handler.
        fields = CallFields(info.rpc, metadata=context.invocation_metadata())
        AccessLog.begin(fields)
        return _Call(self, info, fields, received=received)

    def _wrap(self, method: str, handler: _Handler) -> _Handler:
        deserializer = handler.request_deserializer
        serializer = handler.response_serializer
        if handler.unary_unary is not None:
            info = self._method_info(method, "unary")
            return grpc.unary_unary_rpc_method_handler(
                self._unary_unary(info, handler.unary_unary),
                request_deserializer=_guard(deserializer, self._max_request_bytes),
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
                request_deserializer=_guard(deserializer, self._max_request_bytes),
                response_serializer=serializer,
            )
        if handler.stream_unary is not None:
            info = self._method_info(method, "client_stream")
            return grpc.stream_unary_rpc_method_handler(
                self._stream_unary(info, handler.stream_unary),
                request_deserializer=_guard(deserializer, self._max_request_bytes),
                response_serializer=serializer,
            )
        if handler.stream_stream is not None:
            info = self._method_info(method, "bidi_stream")
            return grpc.stream_stream_rpc_method_handler(
                self._stream_stream(info, handler.stream_stream),
                request_deserializer=_guard(deserializer, self._max_request_bytes),
                response_serializer=serializer,
            )
        return handler

    def _unary_unary(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        # Nearly every call is unary: its observation is written out here, with what it needs
        # bound once per method (bench/README.md, issue 28: 57.7k -> 29.9k instructions per call).
        rpc, sampler, quiet, series = info.rpc, info.sampler, info.quiet, info.series
        start_series, finish_series = series.start, series.finish
        access_log = self.access_log
        clock = time.perf_counter
        begin = AccessLog.begin
        ok, unknown = grpc.StatusCode.OK, grpc.StatusCode.UNKNOWN

        def wrapper(request: Any, context: grpc.ServicerContext) -> Any:
            fields = CallFields(rpc, metadata=context.invocation_metadata())
            begin(fields)
            start = clock()
            refused = type(request) is _Refused
            start_series(not refused)  # in flight until `finish_series`
            code = unknown
            sent = 0
            try:
                if refused:
                    context.abort_with_status(request.status())
                response = behavior(request, context)
                sent = 1
                code = _status_code(context, ok)
            except BaseException:
                code = _status_code(context, unknown)
                raise
            finally:
                elapsed = clock() - start
                finish_series(code, elapsed, sent)
                if access_log is not None:
                    access_log.finish(fields, sampler, code, elapsed, quiet=quiet)
            return response

        return wrapper

    def _unary_stream(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            refused = type(request) is _Refused
            call = self._begin(info, context, received=not refused)
            try:
                if refused:
                    context.abort_with_status(request.status())
                responses = behavior(request, context)
            except BaseException:
                call.finish(_status_code(context, grpc.StatusCode.UNKNOWN))
                raise
            return self._observe_stream(info, call, context, responses)

        return wrapper

    def _stream_unary(self, info: _MethodInfo, behavior: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(requests: Iterator[Any], context: grpc.ServicerContext) -> Any:
            call = self._begin(info, context, received=False)
            code = grpc.StatusCode.UNKNOWN
            try:
                response = behavior(_count(requests, info.series, context), context)
                info.series.add_sent()
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
            call = self._begin(info, context, received=False)
            try:
                responses = behavior(_count(requests, info.series, context), context)
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
                info.series.add_sent()
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


def _count(
    requests: Iterator[Any], series: MethodSeries, context: grpc.ServicerContext
) -> Iterator[Any]:
    """Count a stream's request messages; a message whose bytes don't parse ends the call
    with INVALID_ARGUMENT / MALFORMED_REQUEST, as a unary request's would."""
    for request in requests:
        if type(request) is _Refused:
            context.abort_with_status(request.status())
        series.add_received()
        yield request


def _guard(
    deserializer: Callable[[bytes], Any] | None, limit: int | None
) -> Callable[[bytes], Any] | None:
    largest = (1 << 62) if limit is None else limit
    if deserializer is None:  # a handler of raw bytes: only their size is checked
        if limit is None:
            return None

        def sized(data: bytes) -> Any:
            return _too_large(len(data), largest) if len(data) > largest else data

        return sized

    def guarded(data: bytes) -> Any:
        if len(data) > largest:  # refused unread, and the call's status says why
            return _too_large(len(data), largest)
        try:
            return deserializer(data)
        except Exception:  # noqa: BLE001 - any parse failure is the caller's malformed input
            return _MALFORMED

    return guarded
