"""The web port's HTTP/1.1 connections, guarded against clients that hold them on purpose.

uvicorn's httptools protocol has no limit of its own on what a client may take before its
request reaches the application: no deadline for the headers (a client sending a byte every
few seconds holds its connection for ever: slowloris), no bound on their size or number (a
64 MiB header is read whole into memory), and ``limit_concurrency`` only answers 503 *after*
a request's headers arrived, so half-sent requests are never refused. `GuardedProtocol` is
that protocol with the limits added where the bytes arrive:

- **connections**: past `Limits.max_connections` open at once, a new connection is answered
  503 and closed as soon as it is accepted (it never holds a file descriptor for long);
- **read deadline**: a client has `Limits.read_timeout` seconds to send a whole request
  (headers and body), counted from its connection or from the first byte of the request on a
  kept-alive connection; then it is answered 408 and closed;
- **head size**: more than `Limits.max_header_bytes` bytes of request line and headers is
  answered 431 and closed, as the bytes arrive (never buffered past the bound plus one read);
- **header count**: more than `Limits.max_headers` header lines is answered 431 and closed;
- **pipelining**: a head refused while the answer to an earlier request of the connection is
  still on its way (a valid request pipelined before it) is answered after that answer: the
  earlier request keeps it, nothing more is read, then the 431 and the close;
- **keep-alive**: an idle kept-alive connection is closed after uvicorn's
  ``timeout_keep_alive`` (``--web-keepalive-timeout``).

Every refusal is counted (`WebConnectionMetrics`, by reason) and none is logged per
connection: a hostile client would otherwise write the log at its own rate.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

if TYPE_CHECKING:
    from tienlen_service.metrics import WebConnectionMetrics

#: The reasons a connection is refused (the `reason` label of the refusal counter).
CONNECTION_LIMIT: Final = "CONNECTION_LIMIT"
READ_TIMEOUT: Final = "READ_TIMEOUT"
HEADERS_TOO_LARGE: Final = "HEADERS_TOO_LARGE"
TOO_MANY_HEADERS: Final = "TOO_MANY_HEADERS"
BAD_REQUEST: Final = "BAD_REQUEST"
REASONS: Final = (CONNECTION_LIMIT, READ_TIMEOUT, HEADERS_TOO_LARGE, TOO_MANY_HEADERS, BAD_REQUEST)

_HEAD_END: Final = b"\r\n\r\n"


@dataclass(frozen=True, slots=True)
class Limits:
    """What one web connection may take before its request reaches the application."""

    max_connections: int
    read_timeout: float
    max_header_bytes: int
    max_headers: int


class Draining:
    """Whether the port is stopping: set by `WebServer.stop` before uvicorn's shutdown. A
    connection the event loop had accepted but not yet handed to a protocol when the port
    closed reaches `connection_made` after uvicorn asked every connection to close; without
    this it would hold the drain until uvicorn's grace ran out."""

    def __init__(self) -> None:
        self.draining = False


class _Refused(Exception):  # noqa: N818 - raised out of a parser callback to stop parsing
    """The connection was refused inside a parser callback (the answer is already written)."""


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with `Limits` (see the module's docstring).

    Built per server by `guarded_protocol`, which sets `LIMITS` and `METRICS`.
    """

    LIMITS: Limits
    METRICS: WebConnectionMetrics
    DRAINING: Draining

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._refused = False
        self._counted = False
        # The head (request line and headers) of the request being read, if one is.
        self._in_head = True
        self._head_bytes = 0
        self._head_tail = b""
        self._headers_seen = 0
        # A refusal of a pipelined head, written once the earlier answers are out.
        self._after_answers: tuple[int, str, str] | None = None

    # --- the connection ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Refuse the connection if the port has as many as it may hold; else arm its deadline."""
        if self.DRAINING.draining:
            self.transport = transport
            self._refused = True
            transport.close()
            return
        if len(self.connections) >= self.LIMITS.max_connections:
            self.transport = transport
            self._refuse(
                503, CONNECTION_LIMIT, "this server has as many connections open as it takes"
            )
            return
        super().connection_made(transport)
        self._counted = True
        self.METRICS.open.inc()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection (and its deadline)."""
        self._disarm()
        if self._counted:
            self._counted = False
            self.METRICS.open.dec()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Feed the parser, within the head-size bound; a request that is not HTTP is refused
        (400, counted, not logged: uvicorn logs a warning for each)."""
        if self._refused:
            return
        if self._in_head and not self._head_fits(data):
            self._refuse_head(431, HEADERS_TOO_LARGE, "the request's headers are too large")
            return
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(400, BAD_REQUEST, "this port serves no protocol upgrade")
        except httptools.HttpParserError:
            if not self._refused:  # else a limit stopped the parser (already answered)
                self._refuse(400, BAD_REQUEST, "the request is not valid HTTP/1.1")

    def _head_fits(self, data: bytes) -> bool:
        """Count `data` into the head being read; False when it takes the head past the bound."""
        window = self._head_tail + data
        end = window.find(_HEAD_END)
        used = len(data) if end < 0 else end + len(_HEAD_END) - len(self._head_tail)
        self._head_bytes += max(used, 0)
        self._head_tail = window[-(len(_HEAD_END) - 1) :]
        return self._head_bytes <= self.LIMITS.max_header_bytes

    # --- the parser's callbacks -------------------------------------------------------------

    def on_message_begin(self) -> None:
        """A request begins: its deadline runs (already, on a new connection)."""
        super().on_message_begin()
        self._arm()

    def on_header(self, name: bytes, value: bytes) -> None:
        """One more header, within the count."""
        self._headers_seen += 1
        if self._headers_seen > self.LIMITS.max_headers:
            self._refuse_head(431, TOO_MANY_HEADERS, "the request has too many headers")
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is read: check its size as parsed, then hand the request on."""
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
        if size > self.LIMITS.max_header_bytes:
            self._refuse_head(431, HEADERS_TOO_LARGE, "the request's headers are too large")
            raise _Refused
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The request is read whole: its deadline stops; the next bytes are a new head."""
        self._disarm()
        self._in_head = True
        self._head_bytes = 0
        self._head_tail = b""
        self._headers_seen = 0
        super().on_message_complete()

    def on_response_complete(self) -> None:
        """An answer is out: the next pipelined one starts, or a refusal waiting for the
        answers before it is written now."""
        super().on_response_complete()
        refusal = self._after_answers
        if refusal is not None and not self._answering():
            self._after_answers = None
            if not self.transport.is_closing():
                self._refuse(*refusal)

    # --- the deadline and the refusals --------------------------------------------------------

    def _answering(self) -> bool:
        """Whether an answer to an earlier request is still on its way (or queued)."""
        cycle = self.cycle
        return bool(self.pipeline) or (cycle is not None and not cycle.response_complete)

    def _refuse_head(self, status: int, reason: str, message: str) -> None:
        """Refuse the head being read: at once, or, when earlier requests of the connection
        are still being answered (pipelined), once they are: nothing more is read meanwhile."""
        if self._answering():
            self._refused = True
            self._disarm()
            self._after_answers = (status, reason, message)
            return
        self._refuse(status, reason, message)

    def _arm(self) -> None:
        if self._deadline is None and not self._refused:
            self._deadline = self.loop.call_later(self.LIMITS.read_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            # An answer to an earlier (pipelined) request is on its way: no 408 in its middle.
            self._refused = True
            self.METRICS.refused.labels(READ_TIMEOUT).inc()
            self.transport.close()
            return
        self._refuse(408, READ_TIMEOUT, "the request was not sent in time")

    def _refuse(self, status: int, reason: str, message: str) -> None:
        """Answer `status` with `message` and close the connection; count it under `reason`."""
        self._refused = True
        self._disarm()
        self.METRICS.refused.labels(reason).inc()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # The application (reading a body) sees the client gone; it writes nothing more.
            cycle.disconnected = True
            cycle.message_event.set()
        body = f"{message}\n".encode()
        self.transport.write(
            b"".join(
                (
                    STATUS_LINE[status],
                    b"content-type: text/plain; charset=utf-8\r\n",
                    b"content-length: %d\r\n" % len(body),
                    b"connection: close\r\n\r\n",
                    body,
                )
            )
        )
        self.transport.close()


def guarded_protocol(
    limits: Limits, metrics: WebConnectionMetrics, draining: Draining
) -> type[GuardedProtocol]:
    """A `GuardedProtocol` class with these limits, metrics and drain flag (uvicorn builds one
    instance per connection from the class it is given)."""
    return type(
        "WebProtocol",
        (GuardedProtocol,),
        {"LIMITS": limits, "METRICS": metrics, "DRAINING": draining},
    )
