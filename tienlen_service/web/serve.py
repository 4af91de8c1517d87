"""The web port's HTTP/1.1 server: uvicorn, on its own thread and event loop.

The gRPC server keeps its thread pool; uvicorn parses HTTP on one event-loop thread and hands
each call to that same pool (see `calls.WebCalls`). `WebServer.stop` is the drain: the port
stops accepting, the calls in flight get `grace` seconds, idle keep-alive connections close.
Each connection is uvicorn's httptools protocol with the limits of `guard` (connections,
read deadline, head size, keep-alive); the loop's own errors are logged once per burst
(`bursts`).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import TYPE_CHECKING, Final

import uvicorn

from tienlen_service.web.bursts import BurstFilter, Bursts
from tienlen_service.web.guard import Draining, Limits, guarded_protocol

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from tienlen_service.metrics import WebConnectionMetrics

_START_TIMEOUT: Final = 30.0


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, telling a waiting thread when it has started (or failed to)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start listening, then wake `WebServer.start`."""
        try:
            await super().startup(sockets)
        finally:
            self.ready.set()


class WebServer:
    """Serve `app` over HTTP/1.1 on `host`:`port` (0: a free port), from `start()` to `stop()`."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        *,
        grace: float,
        limits: Limits,
        metrics: WebConnectionMetrics,
        keepalive_timeout: float = 5.0,
        reuse_port: bool = False,
    ) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that say so, and
        # without it a kept-alive connection waits out the peer's delayed ACK (~40 ms) on
        # every answer (Nagle: the headers and the body are two writes).
        self._socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:  # --reuse-port: another replica on this host shares the port
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            self._socket.bind((host.strip("[]"), port))
        except OSError as exc:
            self._socket.close()
            raise OSError(f"could not bind the web port {host}:{port}: {exc}") from exc
        self._socket.listen(1024)
        self._draining = Draining()
        self._socket.setblocking(False)
        config = uvicorn.Config(
            app,
            lifespan="off",
            # The C parser (httptools): with the pure-Python h11 a Connect call cost 1.5x a
            # gRPC call in server CPU, with httptools about 1x (bench/README.md); in
            # uvicorn's protocol with the limits it lacks (guard.py).
            http=guarded_protocol(limits, metrics, self._draining),
            ws="none",
            loop="asyncio",
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=max(1, round(grace)),
        )
        # Idle kept-alive connections close after this (uvicorn reads it as a number of
        # seconds; its annotation says int, a fraction works as well).
        config.timeout_keep_alive = keepalive_timeout  # type: ignore[assignment]
        self._server = _Uvicorn(config)
        # uvicorn's own start/stop lines ("Started server process", "Shutting down") repeat
        # what the service's `serving`, `draining` and `stopped` lines say; its errors stay,
        # one line per burst of one kind.
        self._bursts = Bursts()
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.setLevel(logging.WARNING)
        if not any(isinstance(f, BurstFilter) for f in uvicorn_log.filters):
            uvicorn_log.addFilter(BurstFilter(self._bursts))
        self._thread = threading.Thread(target=self._run, name="tienlen-web", daemon=True)

    @property
    def port(self) -> int:
        """The bound port."""
        port: int = self._socket.getsockname()[1]
        return port

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        # asyncio reports every failed accept (EMFILE under a flood) and transport fault to
        # the loop's handler: one line per burst, not one traceback each.
        asyncio.get_running_loop().set_exception_handler(self._bursts.loop_exception_handler)
        await self._server.serve(sockets=[self._socket])

    def start(self) -> None:
        """Start serving; returns once the port accepts connections."""
        self._thread.start()
        if not self._server.ready.wait(_START_TIMEOUT) or not self._server.started:
            raise OSError("the web port did not start")

    def stop(self, grace: float | None = None) -> None:
        """Stop accepting, let calls in flight finish (`grace` seconds at most, default the
        configured one), close the port."""
        if grace is not None:
            # At least a moment: uvicorn gives up at once on 0 and logs an error about it, even
            # with nothing in flight (closing idle keep-alive connections takes one loop turn).
            self._server.config.timeout_graceful_shutdown = max(grace, 0.2)  # type: ignore[assignment]
        self._draining.draining = True
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join()
        self._socket.close()
