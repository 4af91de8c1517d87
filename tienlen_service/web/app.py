"""The web port's ASGI application: RPCs (Connect, gRPC-Web), CORS, health and static files.

Layers, outermost first:

0. `HostGate`: a request whose ``Host`` is not one this server answers for (``--allowed-hosts``;
   by default its loopback names and the address it binds) is refused (403, PERMISSION_DENIED):
   a page on another site whose name was made to resolve to this server (DNS rebinding) is
   not same-origin with it. ``/healthz`` is answered whatever the host (probes use addresses).
1. `OriginGate`: a request from a browser page of another origin that ``--cors-origin`` does
   not list is refused (403, PERMISSION_DENIED) before anything else runs, preflights
   included. Same-origin pages and clients that send no ``Origin`` (curl, servers) pass.
2. Starlette's `CORSMiddleware`: preflight answers and ``Access-Control-*`` headers for the
   listed origins, exposing the headers a browser client must read.
3. `WebRouter`: ``/<package>.<Service>/<Method>`` goes to the connectrpc application (after
   the content-type check, and with gRPC-Web's text mode decoded), ``/healthz`` answers the
   health state, anything else is a static file of the web table (``--web-root``).

The HTTP framing of Connect and gRPC-Web is the connectrpc library's; the only bytes this
module writes itself are refusals (as Connect's error JSON, or as a gRPC-Web trailers-only
answer) and gRPC-Web text's base64 around the library's binary gRPC-Web. A gRPC-Web request's
framing (one message, its 5-byte prefix) is checked here before the library reads it, so that
a bad frame is INVALID_ARGUMENT with ErrorInfo ``MALFORMED_REQUEST``, counted as
``MALFORMED_FRAME``. Every error message that leaves this port is bounded (`statuses.bounded`),
the library's own included: what a client sent is never echoed whole.
"""

from __future__ import annotations

import base64
import json
import re
from typing import TYPE_CHECKING, Any, Final

from connectrpc.server import ConnectASGIApplication
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

from tienlen_service.logs import REQUEST_ID_HEADER
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded
from tienlen_service.web.grpcweb import grpc_web_call
from tienlen_service.web.refusals import (
    GRPC_WEB,
    GRPC_WEB_TEXT,
    Refusal,
    header,
    quoted,
    send_refusal,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path

    from connectrpc.codec import Codec
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from tienlen_service.metrics import WebMetrics

#: What a browser client may send and must read (connect-web, grpc-web, our request ids).
ALLOW_HEADERS: Final = (
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "connect-accept-encoding",
    "connect-content-encoding",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
    REQUEST_ID_HEADER,
    "tienlen-game-id",  # for the balancer, never read here (deploy/README.md, "Affinity")
)
EXPOSE_HEADERS: Final = (
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    REQUEST_ID_HEADER,
)
_RPC_PATH: Final = re.compile(r"/([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)/([A-Za-z_]\w*)")
_ENVELOPE_BYTES: Final = 5  # gRPC-Web's flag byte and 4-byte length before the message
_CONNECT_TYPES: Final = ("application/json", "application/proto")
_ACCEPTED: Final = (
    "Connect: application/json or application/proto; gRPC-Web: application/grpc-web, "
    "application/grpc-web+proto, application/grpc-web+json or application/grpc-web-text"
)


# --------------------------------------------------------------------------------------------
# 0. Hosts


def host_name(host_header: str) -> str:
    """The name of a ``Host`` header: lower case, without its port or a final dot
    (``[::1]:8080`` -> ``::1``)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host[1:]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def host_allowed(host_header: str, allowed: frozenset[str] | None) -> bool:
    """Whether a request with this ``Host`` is answered: `allowed` None (any), the name listed,
    or a listed ``.example.com`` it ends with (or is)."""
    if allowed is None:
        return True
    name = host_name(host_header)
    if not name:
        return False
    if name in allowed:
        return True
    return any(
        entry.startswith(".") and (name.endswith(entry) or name == entry[1:]) for entry in allowed
    )


class HostGate:
    """Refuses requests whose ``Host`` is not one of `allowed` (None: any). A request with no
    ``Host`` at all (an HTTP/1.0 client, never a browser) passes."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] | None, metrics: WebMetrics) -> None:
        self._app = app
        self._allowed = allowed
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or refuse it."""
        if scope["type"] == "http" and self._allowed is not None and scope["path"] != "/healthz":
            host = header(scope, b"host")
            if host and not host_allowed(host, self._allowed):
                self._metrics.refused.labels("HOST_NOT_ALLOWED").inc()
                await send_refusal(
                    Refusal(
                        "permission_denied",
                        f"host {quoted(host)} is not served here: the server answers the "
                        "names given with --allowed-hosts",
                        "HOST_NOT_ALLOWED",
                    ),
                    scope,
                    send,
                )
                return
        await self._app(scope, receive, send)


# --------------------------------------------------------------------------------------------
# 1. Origins


class OriginGate:
    """Refuses requests from browser pages of origins that are neither listed nor this one."""

    def __init__(
        self,
        app: ASGIApp,
        origins: Iterable[str],
        metrics: WebMetrics,
        allowed_hosts: frozenset[str] | None = None,
    ) -> None:
        self._app = app
        self._origins = frozenset(origins)
        self._metrics = metrics
        self._hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or refuse it."""
        if scope["type"] == "http":
            origin = header(scope, b"origin")
            if (
                origin
                and origin not in self._origins
                and not _same_origin(scope, origin, self._hosts)
            ):
                self._metrics.refused.labels("ORIGIN_NOT_ALLOWED").inc()
                await send_refusal(
                    Refusal(
                        "permission_denied",
                        f"origin {quoted(origin)} may not call this service: the server allows "
                        "its own origin and those given with --cors-origin",
                        "ORIGIN_NOT_ALLOWED",
                    ),
                    scope,
                    send,
                )
                return
        await self._app(scope, receive, send)


def _same_origin(scope: Scope, origin: str, allowed_hosts: frozenset[str] | None) -> bool:
    """Whether `origin` is the page's own: scheme and host:port of this request, the host one
    this server answers for (a ``Host`` is the client's word: a rebound name says anything)."""
    scheme = scope.get("scheme", "http")
    host = header(scope, b"host")
    return bool(host) and host_allowed(host, allowed_hosts) and origin == f"{scheme}://{host}"


def cors(app: ASGIApp, origins: Iterable[str]) -> ASGIApp:
    """Starlette's CORS middleware for the listed origins (none: same origin only)."""
    return CORSMiddleware(
        app,
        allow_origins=list(origins),
        allow_methods=("POST",),
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        max_age=7200,
    )


# --------------------------------------------------------------------------------------------
# 3. Routing


class EngineApplication(ConnectASGIApplication[object]):
    """connectrpc's ASGI application over the endpoints `WebCalls` built."""

    def __init__(
        self, endpoints: Mapping[str, Any], *, read_max_bytes: int, codecs: Iterable[Codec]
    ) -> None:
        super().__init__(
            service=object(),
            endpoints=lambda _service: endpoints,
            read_max_bytes=read_max_bytes,
            codecs=codecs,
        )

    @property
    def path(self) -> str:
        """Endpoints carry their full paths."""
        return ""


class WebRouter:
    """RPC paths to the connectrpc application, ``/healthz``, and the web table's files.

    `streams`: ``/<service>/<method>`` paths of streaming methods (answered UNIMPLEMENTED with
    what to use instead); `serving`: whether the server is serving (health).
    """

    def __init__(
        self,
        rpc: ASGIApp,
        *,
        unary: frozenset[str],
        streams: frozenset[str],
        serving: Callable[[], bool],
        web_root: Path | None,
        max_body_bytes: int,
        metrics: WebMetrics,
    ) -> None:
        self._rpc = rpc
        self._unary = unary
        self._streams = streams
        self._serving = serving
        self._static = StaticFiles(directory=web_root, html=True) if web_root else None
        self._web_root = web_root
        self._max_body_bytes = max_body_bytes
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route one request."""
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if _RPC_PATH.fullmatch(path):
            try:
                await self._call(scope, receive, send)
            except Refusal as refusal:
                self._metrics.refused.labels(refusal.reason).inc()
                await send_refusal(refusal, scope, send)
            return
        if path == "/healthz":
            await _health(self._serving(), send)
            return
        if self._static is None:
            await _text(
                send,
                404,
                "not found: this server has no web table to serve (build it with "
                "`make web` into clients/web/dist, or start the server with --web-root DIR)\n",
            )
            return
        try:
            await self._static(scope, receive, send)
        except HTTPException as exc:  # StaticFiles' not found / not allowed
            await _text(send, exc.status_code, f"{exc.detail}\n")

    async def _call(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        if path in self._streams:
            raise Refusal(
                "unimplemented",
                f"{path.rsplit('/', 1)[1]} is a bidirectional stream, which browsers cannot "
                "open over HTTP/1.1; call the unary RPCs (ApplyMove) on the web port, or "
                "use the gRPC port",
                "STREAM_NOT_SERVED",
            )
        if path not in self._unary:
            raise Refusal(
                "unimplemented", f"no such RPC: {quoted(path.lstrip('/'))}", "UNKNOWN_METHOD"
            )
        if scope["method"] != "POST":
            raise Refusal(
                "unimplemented",
                f"{quoted(scope['method'])} is not served: every RPC is a POST",
                "BAD_HTTP_METHOD",
                http_status=405,
            )
        content_type = header(scope, b"content-type")
        if content_type.startswith("application/grpc") and not content_type.startswith(GRPC_WEB):
            raise Refusal(
                "unimplemented",
                "native gRPC needs HTTP/2 and trailers: use the gRPC port (--port), or "
                "gRPC-Web / Connect here",
                "BAD_CONTENT_TYPE",
                http_status=415,
            )
        media = content_type.split(";", 1)[0].strip()
        if not (media.startswith(GRPC_WEB) or media in _CONNECT_TYPES):
            raise Refusal(
                "unimplemented",
                f"content type {quoted(content_type) if content_type else '(none)'} is not "
                f"served; use {_ACCEPTED}",
                "BAD_CONTENT_TYPE",
                http_status=415,
            )
        if content_type.startswith(GRPC_WEB_TEXT):
            await grpc_web_call(self._rpc, scope, receive, send, self._max_body_bytes, text=True)
            return
        self._check_declared_length(scope, grpc_web=content_type.startswith(GRPC_WEB))
        if content_type.startswith(GRPC_WEB):
            await grpc_web_call(self._rpc, scope, receive, send, self._max_body_bytes, text=False)
            return
        await self._rpc(scope, receive, _readable_error_details(send))

    def _check_declared_length(self, scope: Scope, *, grpc_web: bool) -> None:
        """Refuse a body whose declared length is over what the library would read.

        connectrpc refuses it too (``read_max_bytes``), but as its own error, which no metric
        counts; refused here it is ``BODY_TOO_LARGE`` like gRPC-Web text's. A body sent
        without a length (chunked) is still cut off by the library as it is read.
        """
        declared = header(scope, b"content-length")
        limit = self._max_body_bytes + (_ENVELOPE_BYTES if grpc_web else 0)
        if declared.isdigit() and int(declared) > limit:
            raise Refusal(
                "resource_exhausted",
                f"the request body is {bounded(declared, 24)} bytes; the largest this port "
                f"reads is {limit}",
                "BODY_TOO_LARGE",
            )


def _readable_error_details(send: Send) -> Send:
    """Connect's error JSON carries each detail as ``type`` and base64 ``value``; this adds
    ``debug``, the detail as JSON (as connect-go does), so that a reader sees the ErrorInfo's
    reason without decoding protobuf. Only error answers are touched."""
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            if message.get("status", 200) == 200:
                await send(message)
                return
            start.update(message)
            return
        if not start or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = _with_debug(b"".join(chunks))  # its message bounded too
        start["headers"] = [(k, v) for k, v in start.get("headers", ()) if k != b"content-length"]
        await send(start)
        await send({"type": "http.response.body", "body": body})

    return wrapped


def _with_debug(body: bytes) -> bytes:
    from google.protobuf import descriptor_pool, json_format, message_factory

    try:
        error = json.loads(body)
        details = error.get("details", [])
        if isinstance(error.get("message"), str):
            error["message"] = bounded(error["message"], MAX_MESSAGE_BYTES)
    except (ValueError, AttributeError):
        return body
    for detail in details:
        try:
            desc = descriptor_pool.Default().FindMessageTypeByName(detail["type"])
            cls = message_factory.GetMessageClass(desc)
            value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
            detail.setdefault("debug", json_format.MessageToDict(cls.FromString(value)))
        except (KeyError, TypeError, ValueError):
            continue
    return json.dumps(error, ensure_ascii=False).encode()


async def _health(serving: bool, send: Send) -> None:
    await _text(send, 200 if serving else 503, "SERVING\n" if serving else "NOT_SERVING\n")


async def _text(send: Send, status: int, text: str) -> None:
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    *,
    endpoints: Mapping[str, Any],
    streams: Iterable[str],
    codecs: Iterable[Codec],
    origins: Iterable[str],
    serving: Callable[[], bool],
    web_root: Path | None,
    max_body_bytes: int,
    metrics: WebMetrics,
    allowed_hosts: frozenset[str] | None = None,
) -> ASGIApp:
    """The whole web port: host gate, origin gate, CORS, router (RPCs, health, static files).
    `allowed_hosts`: the ``Host`` names answered (None: any)."""
    origins = tuple(origins)
    rpc = EngineApplication(endpoints, read_max_bytes=max_body_bytes, codecs=codecs)
    router = WebRouter(
        rpc,
        unary=frozenset(endpoints),
        streams=frozenset(streams),
        serving=serving,
        web_root=web_root,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
    )
    gate = OriginGate(cors(router, origins), origins, metrics, allowed_hosts)
    return HostGate(gate, allowed_hosts, metrics)
