"""gRPC-Web calls on the web port: the request's framing checked, text mode's base64, and
the answer's messages bounded, around the connectrpc library's binary gRPC-Web.

A unary gRPC-Web request is one message frame (a flag byte, a 4-byte length, the message).
Anything else is refused here, before the library reads it, as INVALID_ARGUMENT with ErrorInfo
``MALFORMED_REQUEST`` (counted as ``MALFORMED_FRAME``): the library would answer INTERNAL,
UNIMPLEMENTED or a status without ErrorInfo. Every ``grpc-message`` the library writes, in the
headers or in the trailers frame, is cut to the bound of every refusal.
"""

from __future__ import annotations

import base64
import binascii
import struct
import urllib.parse
from typing import TYPE_CHECKING, Any, Final

from tienlen_service.observability import MALFORMED_REQUEST
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded
from tienlen_service.web.refusals import Refusal, header, malformed_frame

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

_ENVELOPE_BYTES: Final = 5  # gRPC-Web's flag byte and 4-byte length before the message
_TRAILERS_FLAG: Final = 0x80
_COMPRESSED_FLAG: Final = 0x01


async def read_body(receive: Receive, limit: int) -> bytes | None:
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


async def grpc_web_call(
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
    body = await read_body(receive, envelope_limit * 4 // 3 + 4 if text else envelope_limit)
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
    encoding = header(scope, b"grpc-encoding")
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
