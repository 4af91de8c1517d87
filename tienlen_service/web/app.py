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
import binascii
import json
import re
import struct
import urllib.parse
from typing import TYPE_CHECKING, Any, Final

from connectrpc.server import ConnectASGIApplication
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.staticfiles import StaticFiles

from tienlen_service.logs import REQUEST_ID_HEADER
from tienlen_service.observability import ERROR_DOMAIN, MALFORMED_REQUEST
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path

    from connectrpc.codec import Codec
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from tienlen_service.web.calls import WebMetrics

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
)
EXPOSE_HEADERS: Final = (
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    REQUEST_ID_HEADER,
)
_RPC_PATH: Final = re.compile(r"/([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)/([A-Za-z_]\w*)")
_GRPC_WEB: Final = "application/grpc-web"
_GRPC_WEB_TEXT: Final = "application/grpc-web-text"
_ENVELOPE_BYTES: Final = 5  # gRPC-Web's flag byte and 4-byte length before the message
_TRAILERS_FLAG: Final = 0x80
_COMPRESSED_FLAG: Final = 0x01
#: What a refusal quotes of a request (a header, a path, an origin) is cut to this many bytes.
_QUOTED_BYTES: Final = 64
_CONNECT_TYPES: Final = ("application/json", "application/proto")
_HTTP_STATUS: Final = {  # Connect's code -> HTTP status (the codes refusals use)
    "invalid_argument": 400,
    "permission_denied": 403,
    "unimplemented": 404,
    "resource_exhausted": 429,
    "unavailable": 503,
}
_GRPC_CODES: Final = {
    "invalid_argument": 3,
    "permission_denied": 7,
    "resource_exhausted": 8,
    "unimplemented": 12,
    "unavailable": 14,
}
_ACCEPTED: Final = (
    "Connect: application/json or application/proto; gRPC-Web: application/grpc-web, "
    "application/grpc-web+proto, application/grpc-web+json or application/grpc-web-text"
)


class Refusal(Exception):  # noqa: N818 - a refusal, not a fault of the server
    """A request refused before it reaches an RPC: a Connect code, a message, the metric
    reason, and the HTTP status of the Connect answer. `error_reason`, when given, is sent as
    the answer's one ErrorInfo (domain tienlen.v1): the refusals of malformed input carry
    ``MALFORMED_REQUEST``, as the gRPC port's do."""

    def __init__(
        self,
        code: str,
        message: str,
        reason: str,
        http_status: int | None = None,
        *,
        error_reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = bounded(message, MAX_MESSAGE_BYTES)
        self.reason = reason
        self.http_status = http_status if http_status is not None else _HTTP_STATUS[code]
        self.error_reason = error_reason


def malformed_frame(message: str) -> Refusal:
    """A gRPC-Web request whose framing is wrong: INVALID_ARGUMENT, MALFORMED_REQUEST."""
    return Refusal("invalid_argument", message, "MALFORMED_FRAME", error_reason=MALFORMED_REQUEST)


def quoted(value: str) -> str:
    """`value` as a refusal quotes it: repr'd, and cut to a few dozen bytes."""
    return repr(bounded(value, _QUOTED_BYTES))


def _error_info(reason: str) -> any_pb2.Any:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN))
    return info


async def send_refusal(refusal: Refusal, scope: Scope, send: Send) -> None:
    """Answer a refusal in the request's protocol: a gRPC-Web trailers-only answer (HTTP 200,
    ``grpc-status`` in the headers) to gRPC-Web, Connect's error JSON to anything else."""
    content_type = _header(scope, b"content-type")
    details = [] if refusal.error_reason is None else [_error_info(refusal.error_reason)]
    if content_type.startswith(_GRPC_WEB):
        text = content_type.startswith(_GRPC_WEB_TEXT)
        code = _GRPC_CODES[refusal.code]
        headers = [
            (b"content-type", (_GRPC_WEB_TEXT if text else _GRPC_WEB + "+proto").encode()),
            (b"grpc-status", str(code).encode()),
            (b"grpc-message", urllib.parse.quote(refusal.message, safe="").encode()),
        ]
        if details:
            rich = status_pb2.Status(code=code, message=refusal.message, details=details)
            encoded = base64.b64encode(rich.SerializeToString()).rstrip(b"=")
            headers.append((b"grpc-status-details-bin", encoded))
        status, body = 200, b""
    else:
        headers = [(b"content-type", b"application/json")]
        status = refusal.http_status
        error: dict[str, Any] = {"code": refusal.code, "message": refusal.message}
        if details:
            error["details"] = [
                {
                    "type": d.TypeName(),
                    "value": base64.b64encode(d.value).decode().rstrip("="),
                    "debug": {"reason": refusal.error_reason, "domain": ERROR_DOMAIN},
                }
                for d in details
            ]
        body = json.dumps(error).encode()
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1")).lower().strip()
    return ""


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
            host = _header(scope, b"host")
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
            origin = _header(scope, b"origin")
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
    host = _header(scope, b"host")
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
        content_type = _header(scope, b"content-type")
        if content_type.startswith("application/grpc") and not content_type.startswith(_GRPC_WEB):
            raise Refusal(
                "unimplemented",
                "native gRPC needs HTTP/2 and trailers: use the gRPC port (--port), or "
                "gRPC-Web / Connect here",
                "BAD_CONTENT_TYPE",
                http_status=415,
            )
        media = content_type.split(";", 1)[0].strip()
        if not (media.startswith(_GRPC_WEB) or media in _CONNECT_TYPES):
            raise Refusal(
                "unimplemented",
                f"content type {quoted(content_type) if content_type else '(none)'} is not "
                f"served; use {_ACCEPTED}",
                "BAD_CONTENT_TYPE",
                http_status=415,
            )
        if content_type.startswith(_GRPC_WEB_TEXT):
            await _grpc_web(self._rpc, scope, receive, send, self._max_body_bytes, text=True)
            return
        self._check_declared_length(scope, grpc_web=content_type.startswith(_GRPC_WEB))
        if content_type.startswith(_GRPC_WEB):
            await _grpc_web(self._rpc, scope, receive, send, self._max_body_bytes, text=False)
            return
        await self._rpc(scope, receive, _readable_error_details(send))

    def _check_declared_length(self, scope: Scope, *, grpc_web: bool) -> None:
        """Refuse a body whose declared length is over what the library would read.

        connectrpc refuses it too (``read_max_bytes``), but as its own error, which no metric
        counts; refused here it is ``BODY_TOO_LARGE`` like gRPC-Web text's. A body sent
        without a length (chunked) is still cut off by the library as it is read.
        """
        declared = _header(scope, b"content-length")
        limit = self._max_body_bytes + (_ENVELOPE_BYTES if grpc_web else 0)
        if declared.isdigit() and int(declared) > limit:
            raise Refusal(
                "resource_exhausted",
                f"the request body is {bounded(declared, 24)} bytes; the largest this port "
                f"reads is {limit}",
                "BODY_TOO_LARGE",
            )


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body (None if the client went away); BODY_TOO_LARGE past `limit`."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refusal(
                "resource_exhausted",
                f"the request body is larger than {limit} bytes",
                "BODY_TOO_LARGE",
            )
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def check_grpc_web_frame(body: bytes, *, compressed_allowed: bool) -> None:
    """Refuse (MALFORMED_FRAME) a unary gRPC-Web request body that is not exactly one message
    frame: a flag byte of 0 (1: compressed, with a ``grpc-encoding``), a 4-byte length, and
    that many bytes."""
    if not body:
        raise malformed_frame("the gRPC-Web request has no message: a unary call sends one")
    if len(body) < _ENVELOPE_BYTES:
        raise malformed_frame(
            f"the gRPC-Web request ends inside a message's {_ENVELOPE_BYTES}-byte prefix "
            f"({len(body)} bytes)"
        )
    flags = body[0]
    (length,) = struct.unpack(">I", body[1:_ENVELOPE_BYTES])
    if flags & _TRAILERS_FLAG:
        raise malformed_frame("the gRPC-Web request holds a trailers frame: a request sends none")
    if flags & ~_COMPRESSED_FLAG:
        raise malformed_frame(f"unknown gRPC-Web frame flags 0x{flags:02x}")
    if flags & _COMPRESSED_FLAG and not compressed_allowed:
        raise malformed_frame(
            "the gRPC-Web message is marked compressed, and the request names no grpc-encoding"
        )
    rest = len(body) - _ENVELOPE_BYTES
    if length > rest:
        raise malformed_frame(
            f"the gRPC-Web message's prefix promises {length} bytes; {rest} follow"
        )
    if length < rest:
        raise malformed_frame(
            "the gRPC-Web request holds more than one frame: a unary call sends one message"
        )


async def _grpc_web(
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    max_body_bytes: int,
    *,
    text: bool,
) -> None:
    """A gRPC-Web call: the body read whole (one unary message, bounded) and its framing
    checked, then handed to the library; the answer's messages bounded.

    In text mode the body is base64 both ways: decoded and handed on as
    ``application/grpc-web+proto``, the answer gathered and sent base64-encoded.
    """
    envelope_limit = max_body_bytes + _ENVELOPE_BYTES
    body = await _read_body(receive, envelope_limit * 4 // 3 + 4 if text else envelope_limit)
    if body is None:
        return  # the client went away
    if text:
        try:
            body = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            raise Refusal(
                "invalid_argument",
                "the gRPC-Web text body is not base64",
                "MALFORMED_BODY",
                error_reason=MALFORMED_REQUEST,
            ) from None
    encoding = _header(scope, b"grpc-encoding")
    check_grpc_web_frame(body, compressed_allowed=encoding not in {"", "identity"})
    inner_scope = scope
    if text:
        headers = [
            (k, b"application/grpc-web+proto" if k == b"content-type" else v)
            for k, v in scope["headers"]
            if k != b"content-length"
        ]
        inner_scope = {**scope, "headers": headers}
    delivered = False

    async def inner_receive() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    out = _bounded_grpc_web(_base64_answer(send) if text else send)
    await app(inner_scope, inner_receive, out)


def _base64_answer(send: Send) -> Send:
    """gRPC-Web text's answer: gathered, sent base64-encoded as ``grpc-web-text+proto``."""
    start: dict[str, Any] = {}
    out: list[bytes] = []

    async def inner_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            start["headers"] = [
                (k, b"application/grpc-web-text+proto" if k == b"content-type" else v)
                for k, v in message.get("headers", ())
                if k != b"content-length"
            ]
            return
        if message["type"] == "http.response.body":
            out.append(message.get("body", b""))
            if not message.get("more_body", False):
                await send(start)
                await send({"type": "http.response.body", "body": base64.b64encode(b"".join(out))})

    return inner_send


def _bounded_grpc_message(value: bytes) -> bytes:
    """A ``grpc-message`` value (percent-encoded) with its text cut to the message bound."""
    text = urllib.parse.unquote(value.decode("latin-1"))
    if len(text.encode()) <= MAX_MESSAGE_BYTES:
        return value
    return urllib.parse.quote(bounded(text, MAX_MESSAGE_BYTES), safe="").encode()


def _bounded_grpc_web(send: Send) -> Send:
    """The library's gRPC-Web answer with every ``grpc-message`` bounded: in the headers (a
    trailers-only answer) and in the trailers frame at the end of the body."""

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [
                (k, _bounded_grpc_message(v) if k == b"grpc-message" else v)
                for k, v in message.get("headers", ())
            ]
            message = {**message, "headers": headers}
        elif message["type"] == "http.response.body":
            body = message.get("body", b"")
            if body[:1] == bytes([_TRAILERS_FLAG]) and len(body) >= _ENVELOPE_BYTES:
                (length,) = struct.unpack(">I", body[1:_ENVELOPE_BYTES])
                if length == len(body) - _ENVELOPE_BYTES:
                    message = {**message, "body": _bounded_trailers(body[_ENVELOPE_BYTES:])}
        await send(message)

    return wrapped


def _bounded_trailers(block: bytes) -> bytes:
    lines = []
    for line in block.split(b"\r\n"):
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == b"grpc-message":
            lines.append(key + b": " + _bounded_grpc_message(value.strip()))
        else:
            lines.append(line)
    trailers = b"\r\n".join(lines)
    return bytes([_TRAILERS_FLAG]) + struct.pack(">I", len(trailers)) + trailers


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
