"""The web port assembled from a running server's parts (what `server.Server` calls)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tienlen_service.metrics import WebConnectionMetrics, WebMetrics
from tienlen_service.web.app import build_app
from tienlen_service.web.calls import WebCalls
from tienlen_service.web.codecs import web_codecs
from tienlen_service.web.guard import REASONS, Limits
from tienlen_service.web.serve import WebServer

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping
    from concurrent.futures import Executor

    from tienlen_service.config import Config
    from tienlen_service.logs import AccessLog
    from tienlen_service.metrics import Metrics

#: The web table as `make web` builds it, in a source checkout.
DEFAULT_WEB_ROOT: Final = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
#: A JSON request spends more bytes than its protobuf message (names, base64 of the state
#: token); the body may be this many times the message limit, the message is then checked.
JSON_OVERHEAD: Final = 4


def web_root(config: Config) -> Path | None:
    """The directory served at /: --web-root, else the checkout's built web table, else none."""
    if config.web_root is not None:
        return Path(config.web_root)
    return DEFAULT_WEB_ROOT if DEFAULT_WEB_ROOT.is_dir() else None


def start_web_server(
    config: Config,
    *,
    handlers: Mapping[str, Mapping[str, Any]],
    wire_methods: Collection[str] = (),
    executor: Executor,
    metrics: Metrics,
    serving: Callable[[], bool],
    access_log: AccessLog | None = None,
    max_connections: int | None = None,
) -> WebServer:
    """Build the web application over the recorded gRPC method handlers and start serving it
    on --web-host/--web-port. Raises OSError when the port can't be bound. `wire_methods`: the
    methods (full paths) whose handlers answer with wire bytes (`registration.WIRE_METHODS`).

    `max_connections`: the connections the port may hold (default --web-max-connections; the
    server passes less when the open-file limit leaves no more room beside the gRPC port).
    """
    assert config.web_port is not None  # the caller checks the web port is on
    web_metrics = WebMetrics(metrics.registry)
    calls = WebCalls(
        executor=executor,
        metrics=metrics,
        web_metrics=web_metrics,
        max_concurrent=config.max_concurrent_rpcs,
        max_request_bytes=config.max_request_bytes,
        access_log=access_log,
    )
    endpoints = calls.endpoints(handlers, wire_methods)
    streams = [
        f"/{service}/{name}"
        for service, methods in handlers.items()
        for name, handler in methods.items()
        if handler.unary_unary is None
    ]
    app = build_app(
        endpoints=endpoints,
        streams=streams,
        codecs=web_codecs(on_malformed=web_metrics.refused.labels("MALFORMED_BODY").inc),
        origins=config.allowed_origins,
        serving=serving,
        web_root=web_root(config),
        max_body_bytes=config.max_request_bytes * JSON_OVERHEAD,
        metrics=web_metrics,
        allowed_hosts=config.web_allowed_hosts,
    )
    limits = Limits(
        max_connections=config.web_max_connections if max_connections is None else max_connections,
        read_timeout=config.web_read_timeout,
        max_header_bytes=config.web_max_header_bytes,
        max_headers=config.web_max_headers,
    )
    server = WebServer(
        app,
        config.web_host or config.host,
        config.web_port,
        grace=config.grace,
        limits=limits,
        metrics=WebConnectionMetrics(metrics.registry, REASONS),
        keepalive_timeout=config.web_keepalive_timeout,
        reuse_port=config.reuse_port,
    )
    server.start()
    return server
