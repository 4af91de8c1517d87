"""Ways to host a set of gRPC handlers for the benchmarks, all with the service's own settings.

Every way reads the service's own flags (`tienlen_service.config.parse_config`: workers,
limits, keepalive, SO_REUSEPORT, ...), binds with the same channel options
(`tienlen_service.server.grpc_options`) and prints a JSON ``serving`` line with the bound port
on stdout, as the service does, so the load benchmark starts them all the same way.

  serve_service   the service's own `Server` (our interceptor, health, reflection, logs)
                  via `tienlen_service.__main__.main` with other handlers registered
  serve_bare      `grpc.server` with the same thread pool size and options, no interceptor,
                  no logging (health only, to wait on)
  serve_aio       `grpc.aio` with the same options; sync unary handlers run inline on the
                  event loop (through `AioAdapter`), optionally wrapped by our interceptor
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from concurrent import futures
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio
from grpc_health.v1 import _async as health_aio  # grpc_health.v1.health.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tienlen_service import __main__ as service_main
from tienlen_service.config import Config, parse_config
from tienlen_service.logs import configure_logging
from tienlen_service.metrics import Metrics
from tienlen_service.observability import CallObserver
from tienlen_service.server import grpc_options

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from tienlen_service.server import Registrar
    from tienlen_service.tokens import TokenCodec

    Handlers = Sequence[grpc.GenericRpcHandler[Any, Any]]


def _address(config: Config) -> str:
    return f"{config.host}:{config.port}"


def _serving(port: int, model: str, config: Config) -> None:
    line = {"event": "serving", "port": port, "model": model, "workers": config.workers}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def _wait_for_signal() -> int:
    """Block SIGTERM/SIGINT in this thread (threads started later inherit it) and wait."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    return signal.sigwait({signal.SIGTERM, signal.SIGINT})


def serve_service(argv: Sequence[str], register: Registrar) -> int:
    """Run the service's own server (interceptor, health, reflection, logs) with the services
    `register` adds."""
    return service_main.main(argv, register=register)


def registrar(names: Sequence[str], handlers: Handlers) -> Registrar:
    """A `Server` registrar that adds fixed handlers."""

    def register(
        server: grpc.Server, tokens: TokenCodec, metrics: Metrics, config: Config
    ) -> Sequence[str]:
        del tokens, metrics, config
        server.add_generic_rpc_handlers(tuple(handlers))
        return tuple(names)

    return register


def serve_bare(argv: Sequence[str], handlers: Handlers) -> int:
    """`grpc.server` with the service's pool size and options; no interceptor, no logs."""
    config, _ = parse_config(argv)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.workers),
        handlers=list(handlers),
        options=grpc_options(config),
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
    )
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port(_address(config))
    server.start()
    _serving(port, "sync-bare", config)
    _wait_for_signal()
    server.stop(0).wait()
    return 0


# --------------------------------------------------------------------------------------------
# grpc.aio


class _Aborted(Exception):  # noqa: N818 - a control-flow signal, not an error
    pass


class _SyncContext:
    """The sync `ServicerContext` calls our servicer and interceptor make, on an aio context.

    `abort_with_status` / `abort` record the status and raise; the adapter then aborts the
    aio call for real (those are coroutines on an aio context).
    """

    __slots__ = ("_code", "_ctx", "status")

    def __init__(self, ctx: grpc.aio.ServicerContext[Any, Any]) -> None:
        self._ctx = ctx
        self._code: grpc.StatusCode | None = None
        self.status: Any = None

    def invocation_metadata(self) -> Any:
        return self._ctx.invocation_metadata()

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def is_active(self) -> bool:
        return not self._ctx.cancelled()

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code
        self._ctx.set_code(code)

    def set_details(self, details: str) -> None:
        self._ctx.set_details(details)

    def abort_with_status(self, status: Any) -> None:
        self._code = status.code
        self.status = status
        raise _Aborted

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self._code = code
        self.status = (code, details)
        raise _Aborted


def _async_unary(behavior: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    async def run(request: Any, context: Any) -> Any:  # a grpc.aio.ServicerContext
        shim = _SyncContext(context)
        try:
            return behavior(request, shim)
        except _Aborted:
            if isinstance(shim.status, tuple):
                await context.abort(*shim.status)
            await context.abort_with_status(shim.status)
            raise  # pragma: no cover - abort raises

    return run


class AioAdapter(grpc.GenericRpcHandler):  # type: ignore[type-arg]
    """Sync generic handlers (optionally wrapped by our call observer), served by grpc.aio.

    Unary handlers run inline on the event loop: the engine's work is a few hundred µs of
    CPU, and a thread hop would cost more than it frees.
    """

    def __init__(self, handlers: Handlers, observer: CallObserver | None = None) -> None:
        self._handlers = tuple(handlers)
        self._observer = observer
        self._cache: dict[str, Any] = {}

    def _find(self, details: grpc.HandlerCallDetails) -> Any:
        for h in self._handlers:
            found = h.service(details)
            if found is not None:
                return found
        return None

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        method: str = handler_call_details.method
        cached = self._cache.get(method)
        if cached is not None:
            return cached
        handler = self._find(handler_call_details)
        if handler is None:
            return None
        if self._observer is not None:
            handler = self._observer.wrap(method, handler)
        if handler.unary_unary is not None:
            adapted = grpc.unary_unary_rpc_method_handler(
                _async_unary(handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        else:
            return None
        self._cache[method] = adapted
        return adapted


def serve_aio(argv: Sequence[str], handlers: Handlers, *, interceptor: bool) -> int:
    """grpc.aio with the service's options (and our interceptor and logs when asked)."""
    config, _ = parse_config(argv)
    wrap = None
    if interceptor:
        configure_logging(config.log_level, config.log_format)
        wrap = CallObserver(Metrics())

    async def run() -> None:
        server = grpc.aio.server(
            options=grpc_options(config), maximum_concurrent_rpcs=config.max_concurrent_rpcs
        )
        server.add_generic_rpc_handlers((AioAdapter(handlers, wrap),))
        status = health_aio.HealthServicer()
        await status.set("", health_pb2.HealthCheckResponse.SERVING)
        health_pb2_grpc.add_HealthServicer_to_server(status, server)
        port = server.add_insecure_port(_address(config))
        await server.start()
        _serving(port, "aio" + ("" if interceptor else "-bare"), config)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        await server.stop(0)

    asyncio.run(run())
    return 0


def split_argv(argv: Sequence[str], own: Sequence[str]) -> tuple[list[str], list[str]]:
    """(our flags, the service's flags): `own` names flags that take one value each, except
    those ending in '!' which are switches."""
    switches = {o[:-1] for o in own if o.endswith("!")}
    valued = {o for o in own if not o.endswith("!")}
    mine: list[str] = []
    rest: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        arg = items[i]
        if arg in switches:
            mine.append(arg)
        elif arg in valued:
            mine += items[i : i + 2]
            i += 1
        else:
            rest.append(arg)
        i += 1
    return mine, rest
