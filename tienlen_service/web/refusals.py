"""Requests the web port refuses before they reach an RPC, answered in their own protocol.

A `Refusal` is a Connect code, a bounded message, the metric reason and the HTTP status of the
Connect answer; `send_refusal` writes it as Connect's error JSON, or as a gRPC-Web
trailers-only answer (``grpc-status`` in the headers), with exactly one ErrorInfo, as every
refusal of the service carries (docs/ERRORS.md): its reason is the refusal's own
(``STREAM_NOT_SERVED``, ``HOST_NOT_ALLOWED``, ...), or ``MALFORMED_REQUEST`` for malformed
input, as on the gRPC port. Every message is cut to the bound of all refusals (`statuses.bounded`), and
what a refusal quotes of the request to a few dozen bytes (`quoted`).
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from typing import TYPE_CHECKING, Any, Final

from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from tienlen_service.observability import ERROR_DOMAIN, MALFORMED_REQUEST
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded

if TYPE_CHECKING:
    from starlette.types import Scope, Send

GRPC_WEB: Final = "application/grpc-web"
GRPC_WEB_TEXT: Final = "application/grpc-web-text"
#: What a refusal quotes of a request (a header, a path, an origin) is cut to this many bytes.
_QUOTED_BYTES: Final = 64
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


class Refusal(Exception):  # noqa: N818 - a refusal, not a fault of the server
    """A request refused before it reaches an RPC: a Connect code, a message, the metric
    reason, and the HTTP status of the Connect answer. The answer's one ErrorInfo (domain
    tienlen.v1) has `error_reason`, by default the metric reason: the refusals of malformed
    input give ``MALFORMED_REQUEST``, as the gRPC port's do."""

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
        self.error_reason = reason if error_reason is None else error_reason


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
    content_type = header(scope, b"content-type")
    details = [_error_info(refusal.error_reason)]
    if content_type.startswith(GRPC_WEB):
        text = content_type.startswith(GRPC_WEB_TEXT)
        code = _GRPC_CODES[refusal.code]
        headers = [
            (b"content-type", (GRPC_WEB_TEXT if text else GRPC_WEB + "+proto").encode()),
            (b"grpc-status", str(code).encode()),
            (b"grpc-message", urllib.parse.quote(refusal.message, safe="").encode()),
        ]
        rich = status_pb2.Status(code=code, message=refusal.message, details=details)
        encoded = base64.b64encode(rich.SerializeToString()).rstrip(b"=")
        headers.append((b"grpc-status-details-bin", encoded))
        status, body = 200, b""
    else:
        headers = [(b"content-type", b"application/json")]
        status = refusal.http_status
        error: dict[str, Any] = {
            "code": refusal.code,
            "message": refusal.message,
            "details": [
                {
                    "type": d.TypeName(),
                    "value": base64.b64encode(d.value).decode().rstrip("="),
                    "debug": {"reason": refusal.error_reason, "domain": ERROR_DOMAIN},
                }
                for d in details
            ],
        }
        body = json.dumps(error).encode()
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def header(scope: Scope, name: bytes) -> str:
    """A request header's value, lower case and stripped ("" when absent)."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1")).lower().strip()
    return ""
