"""The /metrics endpoint: prometheus_client's WSGI exporter of a server's `CollectorRegistry`,
on its own thread, stoppable quickly (every test stops one)."""

from __future__ import annotations

import socket
import threading
from typing import TYPE_CHECKING, Any, Final
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry


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
