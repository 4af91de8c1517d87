"""The RPCs of the web port: every unary method registered on the gRPC server, served again.

The server's `handlers.HandlerRecorder` remembers each service's method handlers as the
registrars gave them. `WebCalls.endpoints` turns the unary ones into connectrpc endpoints that
call the very same behaviour function (the servicer method) with a `WebContext`. So a new RPC
in the contract is served on both ports as soon as the servicer has it, and nothing of an RPC
is written twice.

A web call goes through the same gates as a gRPC call: the request-size limit (the request
*message*, as grpcio's ``max_receive_message_length``), the admission limit
(``--max-concurrent-rpcs``), the deadline, the call worker threads (the gRPC server's own pool:
``--workers`` threads in all), and one canonical log line and metrics per call, labelled by
transport (``connect`` or ``grpc_web``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import Endpoint
from google.protobuf import descriptor_pool, message_factory

from tienlen_service.logs import REQUEST_ID_HEADER, AccessLog, CallFields, get_logger, request_id_of
from tienlen_service.metrics import WebMetrics
from tienlen_service.observability import QUIET_SERVICES
from tienlen_service.web.context import WebAbort, WebContext, connect_error

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping
    from concurrent.futures import Executor

    from connectrpc.request import RequestContext
    from google.protobuf.message import Message

    from tienlen_service.metrics import Metrics

    _Handler = grpc.RpcMethodHandler[Any, Any]

CONNECT: Final = "connect"
GRPC_WEB: Final = "grpc_web"
TRANSPORTS: Final = (CONNECT, GRPC_WEB)


def transport_of(content_type: str) -> str:
    """``grpc_web`` for a gRPC-Web content type, ``connect`` for anything else."""
    return GRPC_WEB if content_type.startswith("application/grpc-web") else CONNECT


# --------------------------------------------------------------------------------------------
# One web call


@dataclass(frozen=True, slots=True)
class _Method:
    service: str
    name: str
    behaviour: Callable[[Any, grpc.ServicerContext], Any]
    rpc: str
    sampler: Callable[[], int]
    quiet: bool
    """Logged at debug level only, as on the gRPC port (health probes)."""


class WebCalls:
    """Runs web calls on the gRPC server's worker pool, under the same limits.

    `executor`: the call workers; `max_concurrent`: calls admitted at once (more get
    RESOURCE_EXHAUSTED); `max_request_bytes`: the largest request message (its protobuf size,
    whatever the encoding it came in: JSON spends more bytes on the same message).
    """

    def __init__(
        self,
        *,
        executor: Executor,
        metrics: Metrics,
        web_metrics: WebMetrics,
        max_concurrent: int,
        max_request_bytes: int,
        access_log: AccessLog | None = None,
    ) -> None:
        self._executor = executor
        self._metrics = metrics
        self.web_metrics = web_metrics
        self._max_concurrent = max_concurrent
        self._slots = threading.BoundedSemaphore(max_concurrent)
        self._max_request_bytes = max_request_bytes
        self._log = get_logger("tienlen.rpc")
        # The gRPC port's access log (which calls get their `rpc` line, and how).
        self._access_log = access_log if access_log is not None else AccessLog()

    def endpoints(
        self, handlers: Mapping[str, Mapping[str, _Handler]], wire_methods: Collection[str] = ()
    ) -> dict[str, Any]:
        """URL path -> connectrpc endpoint for every unary method of `handlers` whose service
        is known to the protobuf descriptor pool (so its messages have JSON forms); the
        answers of `wire_methods` (full paths) are their responses' wire bytes, parsed here."""
        pool = descriptor_pool.Default()
        out: dict[str, Any] = {}
        for service, methods in handlers.items():
            try:
                desc = pool.FindServiceByName(service)
            except KeyError:
                continue
            for method in desc.methods:
                handler = methods.get(method.name)
                if handler is None or handler.unary_unary is None:
                    continue  # streams: see docs/FRONTEND.md (PlayStream on the web)
                info = MethodInfo(
                    name=method.name,
                    service_name=service,
                    input=message_factory.GetMessageClass(method.input_type),
                    output=message_factory.GetMessageClass(method.output_type),
                    idempotency_level=IdempotencyLevel.UNKNOWN,
                    stream_type=StreamType.UNARY,
                )
                behavior = handler.unary_unary
                if f"/{service}/{method.name}" in wire_methods:
                    behavior = _parsed(behavior, info.output)
                target = _Method(
                    service,
                    method.name,
                    behavior,
                    f"{service}/{method.name}",
                    AccessLog.sampler(),
                    quiet=service in QUIET_SERVICES,
                )
                for transport in TRANSPORTS:
                    self.web_metrics.handled.labels(transport, service, method.name, "OK")
                out[f"/{service}/{method.name}"] = Endpoint.unary(info, self._function(target))
        return out

    def _function(self, method: _Method) -> Callable[[Any, RequestContext[Any, Any]], Any]:
        async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
            return await self.run(method, request, ctx)

        return call

    async def run(self, method: _Method, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        """Admit the call, run it on a worker, give back its answer (or raise its error)."""
        timeout_ms = ctx.timeout_ms
        deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000.0
        context = WebContext(ctx, deadline)
        transport = transport_of(ctx.request_headers.get("content-type", ""))
        if not self._slots.acquire(blocking=False):
            self._finish_refused(method, transport, ctx)
            raise connect_error(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this replica handles at most {self._max_concurrent} calls at once",
            )
        try:
            future = self._executor.submit(self._call, method, request, context, transport)
        except RuntimeError:  # the pool is shut down: the server is stopping
            self._slots.release()
            raise connect_error(grpc.StatusCode.UNAVAILABLE, "the server is stopping") from None
        # Released when the call ends, or when it is cancelled before a worker takes it.
        future.add_done_callback(lambda _f: self._slots.release())
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            context.cancel()  # the deadline passed or the client went away
            raise

    def _finish_refused(
        self, method: _Method, transport: str, ctx: RequestContext[Any, Any]
    ) -> None:
        request_id = _request_id(ctx)
        ctx.response_headers[REQUEST_ID_HEADER] = request_id
        labels = (transport, method.service, method.name)
        self.web_metrics.started.labels(*labels).inc()
        self.web_metrics.handled.labels(*labels, grpc.StatusCode.RESOURCE_EXHAUSTED.name).inc()
        fields = CallFields(method.rpc, request_id=request_id, transport=transport)
        self._access_log.finish(
            fields, method.sampler, grpc.StatusCode.RESOURCE_EXHAUSTED, 0.0, refused=True
        )

    def _call(self, method: _Method, request: Any, context: WebContext, transport: str) -> Any:
        """On a worker thread: the servicer's method, observed as the gRPC port's call observer does."""
        request_id = _request_id(context._ctx)  # noqa: SLF001 - our own class
        context._ctx.response_headers[REQUEST_ID_HEADER] = request_id  # noqa: SLF001
        fields = CallFields(method.rpc, request_id=request_id, transport=transport)
        mark = self._access_log.begin(fields)  # undone below: worker threads are reused
        labels = (transport, method.service, method.name)
        self.web_metrics.started.labels(*labels).inc()
        self._metrics.in_flight.inc()
        start = time.perf_counter()
        code = grpc.StatusCode.UNKNOWN
        try:
            response = self._invoke(method, request, context)
            code = context.code() or grpc.StatusCode.OK
        except WebAbort as abort:
            code = abort.code
            raise abort.error from None
        except Exception as exc:  # noqa: BLE001 - a bug answers UNKNOWN, never a traceback
            code = grpc.StatusCode.UNKNOWN
            self._log.exception("unexpected_error", error_type=type(exc).__name__)
            raise connect_error(code, "unexpected error in the server") from None
        finally:
            elapsed = time.perf_counter() - start
            self._metrics.in_flight.dec()
            self.web_metrics.handling_seconds.labels(*labels).observe(elapsed)
            self.web_metrics.handled.labels(*labels, code.name).inc()
            context.run_callbacks()
            self._access_log.finish(fields, method.sampler, code, elapsed, quiet=method.quiet)
            self._access_log.end(mark)
        return response

    def _invoke(self, method: _Method, request: Any, context: WebContext) -> Any:
        """The servicer's method, unless the deadline passed or the message is too large."""
        if not context.is_active():
            raise _abort(
                grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed before the call started"
            )
        size = request.ByteSize()
        if size > self._max_request_bytes:
            raise _abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the request message is {size} bytes; the largest this server takes is "
                f"{self._max_request_bytes}",
            )
        return method.behaviour(request, context)


def _abort(code: grpc.StatusCode, message: str) -> WebAbort:
    return WebAbort(code, connect_error(code, message))


def _request_id(ctx: RequestContext[Any, Any]) -> str:
    """The request id of a web call (the gRPC port's rule, applied to the HTTP headers)."""
    return request_id_of(ctx.request_headers.allitems())


def _parsed(
    behavior: Callable[[Any, Any], bytes], output: type[Message]
) -> Callable[[Any, Any], Message]:
    """A handler's behaviour that answers with wire bytes (`codec.wire_answer`), answering
    with its method's output message instead (what connectrpc encodes, as proto or JSON)."""

    def call(request: Any, context: Any) -> Message:
        return output.FromString(behavior(request, context))

    return call
