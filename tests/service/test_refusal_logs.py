"""A refused call's `rpc` line says why: the `reason` of its `ErrorInfo`, on either port.

Two refusals with the same code must be told apart in the logs without the client's help:
DEAL_NOT_ALLOWED (a seeded deal without the host's deal key) and SEAT_TOKEN_INVALID (a move
without its seat's token) are both PERMISSION_DENIED. Real servers on 127.0.0.1 port 0.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import grpc
import pytest
from helpers.logs import json_lines

from tienlen.v1 import service_pb2, service_pb2_grpc

TIMEOUT = 20.0
SERVICE = "tienlen.v1.TienLenEngine"


def rpc_line(stream: Any, request_id: str) -> dict[str, Any]:
    (line,) = [
        r
        for r in json_lines(stream)
        if r.get("event") == "rpc" and r.get("request_id") == request_id
    ]
    return line


def refused_over_grpc(address: str) -> None:
    """A seeded deal without the deal key, a move without its seat token, bytes that are no
    request."""
    with grpc.insecure_channel(address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        dealt = stub.NewGame(service_pb2.NewGameRequest(players=4), timeout=TIMEOUT)
        calls: list[tuple[str, Any]] = [
            ("seeded", lambda m: stub.NewGame(service_pb2.NewGameRequest(seed=7), metadata=m)),
            (
                "unseated",
                lambda m: stub.ApplyMove(
                    service_pb2.ApplyMoveRequest(state_token=dealt.game.state_token), metadata=m
                ),
            ),
            (
                "garbage",
                lambda m: channel.unary_unary(f"/{SERVICE}/NewGame", None, None)(
                    b"\xff\xff", metadata=m
                ),
            ),
        ]
        for request_id, send in calls:
            with pytest.raises(grpc.RpcError):
                send((("x-request-id", request_id),))


def test_refusals_with_one_code_log_their_own_reasons(server_factory, log_stream) -> None:
    running = server_factory(require_seat_tokens=True)
    refused_over_grpc(running.address)
    found = {
        request_id: (line["code"], line.get("reason"))
        for request_id in ("seeded", "unseated", "garbage")
        for line in [rpc_line(log_stream, request_id)]
    }
    assert found == {
        "seeded": ("PERMISSION_DENIED", "DEAL_NOT_ALLOWED"),
        "unseated": ("PERMISSION_DENIED", "SEAT_TOKEN_INVALID"),
        "garbage": ("INVALID_ARGUMENT", "MALFORMED_REQUEST"),
    }


def test_a_successful_call_logs_no_reason(server_factory, log_stream) -> None:
    running = server_factory(log_sample=1)
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        stub.NewGame(
            service_pb2.NewGameRequest(players=4),
            metadata=(("x-request-id", "dealt"),),
            timeout=TIMEOUT,
        )
    line = rpc_line(log_stream, "dealt")
    assert line["code"] == "OK"
    assert "reason" not in line


def test_the_web_port_logs_the_reason_of_a_refusal(server_factory, log_stream) -> None:
    running = server_factory(require_seat_tokens=True, web_port=0)
    conn = http.client.HTTPConnection("127.0.0.1", running.handle.web_port, timeout=TIMEOUT)
    try:
        conn.request(
            "POST",
            f"/{SERVICE}/NewGame",
            json.dumps({"seed": 7}),
            {"content-type": "application/json", "x-request-id": "web-seeded"},
        )
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    assert response.status == 403
    line = rpc_line(log_stream, "web-seeded")
    assert (line["code"], line["transport"], line.get("reason")) == (
        "PERMISSION_DENIED",
        "connect",
        "DEAL_NOT_ALLOWED",
    )
