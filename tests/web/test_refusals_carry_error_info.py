"""Every refusal the web port makes before an RPC runs carries exactly one ErrorInfo.

docs/ERRORS.md: every refusal is a status with one `google.rpc.ErrorInfo` (domain
`tienlen.v1`, a stable reason). The web port refuses some requests before any RPC runs — a
stream a browser can't open, an unknown method, a GET, a wrong content type, a body over the
limit, a foreign host or origin — and each of those answers, in Connect's JSON and in
gRPC-Web's `grpc-status-details-bin` alike, names its reason there too.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from google.rpc import error_details_pb2, status_pb2

from tienlen.v1 import service_pb2

from .webclient import SERVICE, Answer, WebClient, error_info

PLAY_STREAM = f"/{SERVICE}/PlayStream"
NEW_GAME = f"/{SERVICE}/NewGame"
JSON = {"content-type": "application/json"}

REFUSALS: list[tuple[str, str, str, bytes, dict[str, str]]] = [
    ("STREAM_NOT_SERVED", "POST", PLAY_STREAM, b"{}", JSON),
    ("UNKNOWN_METHOD", "POST", f"/{SERVICE}/NoSuchRpc", b"{}", JSON),
    ("BAD_HTTP_METHOD", "GET", NEW_GAME, b"", JSON),
    ("BAD_CONTENT_TYPE", "POST", NEW_GAME, b"players=4", {"content-type": "text/plain"}),
    ("BODY_TOO_LARGE", "POST", NEW_GAME, b"{" + b" " * 200_000 + b"}", JSON),
    ("HOST_NOT_ALLOWED", "POST", NEW_GAME, b"{}", {**JSON, "host": "evil.example"}),
    ("ORIGIN_NOT_ALLOWED", "POST", NEW_GAME, b"{}", {**JSON, "origin": "http://evil.example"}),
]


@pytest.mark.parametrize(
    ("reason", "method", "path", "body", "headers"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_a_connect_refusal_before_the_rpc_names_its_reason_in_one_error_info(
    start_web: Callable[..., tuple[Any, WebClient]],
    reason: str,
    method: str,
    path: str,
    body: bytes,
    headers: dict[str, str],
) -> None:
    _, web = start_web()
    answer: Answer = web.request(method, path, body, headers)
    assert answer.status >= 400
    error = answer.json()
    info = error_info(error["details"])
    assert (info.reason, info.domain) == (reason, "tienlen.v1")
    assert error["details"][0]["debug"] == {"reason": reason, "domain": "tienlen.v1"}


def test_a_grpc_web_refusal_before_the_rpc_names_its_reason_in_its_status_details(
    start_web: Callable[..., tuple[Any, WebClient]],
) -> None:
    _, web = start_web()
    answer = web.grpc_web("PlayStream", service_pb2.PlayStreamRequest())
    raw = answer.trailers["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    assert status.code == 12  # UNIMPLEMENTED
    assert len(status.details) == 1
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, info.domain) == ("STREAM_NOT_SERVED", "tienlen.v1")
