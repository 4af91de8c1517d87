"""A tiny HTTP/1.1 client of the web port for the tests: Connect (JSON, binary) and gRPC-Web
(binary, text) requests written out by hand, so that the tests see the bytes a browser sees."""

from __future__ import annotations

import base64
import http.client
import json
import struct
import urllib.parse
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

SERVICE = "tienlen.v1.TienLenEngine"
TIMEOUT = 10.0


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass
class GrpcWebAnswer:
    http: Answer
    messages: list[bytes]
    trailers: dict[str, str]

    @property
    def status(self) -> int:
        return int(self.trailers["grpc-status"])

    @property
    def message(self) -> str:
        return urllib.parse.unquote(self.trailers.get("grpc-message", ""))

    def rich_status(self) -> status_pb2.Status:
        raw = self.trailers["grpc-status-details-bin"]
        return status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))


class WebClient:
    def __init__(self, port: int) -> None:
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        finally:
            conn.close()

    def preflight(self, origin: str) -> Answer:
        """A browser's CORS preflight of a Connect POST to NewGame from `origin`."""
        return self.request(
            "OPTIONS",
            f"/{SERVICE}/NewGame",
            headers={
                "origin": origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type,connect-protocol-version",
            },
        )

    def connect_json(self, rpc: str, payload: Any, headers: dict[str, str] | None = None) -> Answer:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return self.request(
            "POST",
            f"/{SERVICE}/{rpc}",
            body,
            {"content-type": "application/json", **(headers or {})},
        )

    def connect_proto(self, rpc: str, message: Message) -> Answer:
        return self.request(
            "POST",
            f"/{SERVICE}/{rpc}",
            message.SerializeToString(),
            {"content-type": "application/proto"},
        )

    def grpc_web(
        self,
        rpc: str,
        message: Message | bytes,
        *,
        text: bool = False,
        headers: dict[str, str] | None = None,
    ) -> GrpcWebAnswer:
        raw = message if isinstance(message, bytes) else message.SerializeToString()
        body = b"\x00" + struct.pack(">I", len(raw)) + raw
        content_type = "application/grpc-web-text" if text else "application/grpc-web+proto"
        if text:
            body = base64.b64encode(body)
        answer = self.request(
            "POST",
            f"/{SERVICE}/{rpc}",
            body,
            {"content-type": content_type, "x-grpc-web": "1", **(headers or {})},
        )
        data = base64.b64decode(answer.body) if text and answer.body else answer.body
        messages, trailers = _frames(data)
        if not trailers and "grpc-status" in answer.headers:  # a trailers-only answer
            trailers = {k: v for k, v in answer.headers.items() if k.startswith("grpc-")}
        return GrpcWebAnswer(answer, messages, trailers)


def _frames(data: bytes) -> tuple[list[bytes], dict[str, str]]:
    messages: list[bytes] = []
    trailers: dict[str, str] = {}
    offset = 0
    while offset < len(data):
        flag = data[offset]
        (length,) = struct.unpack(">I", data[offset + 1 : offset + 5])
        payload = data[offset + 5 : offset + 5 + length]
        offset += 5 + length
        if flag & 0x80:
            for line in payload.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
        else:
            messages.append(payload)
    return messages, trailers


def error_info(details: list[dict[str, Any]]) -> error_details_pb2.ErrorInfo:
    """The one ErrorInfo of a Connect error's details (decoded from its base64 value)."""
    infos = [d for d in details if d["type"] == "google.rpc.ErrorInfo"]
    assert len(infos) == 1, details
    value = infos[0]["value"]
    return error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
