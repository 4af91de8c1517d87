"""The web port under clients that do their worst: half-sent requests (slowloris), huge or
countless headers, more connections than it takes, echo-baiting values, broken gRPC-Web
frames, foreign Host names. What it refuses is counted; the gRPC port keeps serving.

Real servers on 127.0.0.1 port 0, with small limits (a read deadline of a fraction of a
second, a handful of connections) so that every test is bounded by counts: each waits on the
server's answer or on the connection closing, never on a clock.
"""

from __future__ import annotations

import http.client
import json
import socket
import struct
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from tienlen.v1 import service_pb2

from .webclient import SERVICE, GrpcWebAnswer, WebClient

TIMEOUT = 10.0
NEW_GAME = service_pb2.NewGameRequest(players=4, seed=7).SerializeToString()


@pytest.fixture
def sockets() -> Iterator[Callable[[int], socket.socket]]:
    """Raw connections to a port, closed after the test."""
    opened: list[socket.socket] = []

    def connect(port: int) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        opened.append(sock)
        return sock

    yield connect
    for sock in opened:
        sock.close()


def samples(running: Any, family: str) -> dict[str, float]:
    """One metric family's samples by their `reason` label ("" without one), from /metrics."""
    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as page:
        text = page.read().decode()
    return {
        s.labels.get("reason", ""): s.value
        for f in text_string_to_metric_families(text)
        if f.name == family
        for s in f.samples
        if not s.name.endswith("_created")
    }


def connection_refusals(running: Any) -> dict[str, float]:
    return samples(running, "tienlen_web_connections_refused")


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset ends it too)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def grpc_health(running: Any) -> int:
    with grpc.insecure_channel(running.address) as channel:
        return (
            health_pb2_grpc.HealthStub(channel)
            .Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
            .status
        )


def keep_alive_then_half_send(sock: socket.socket) -> None:
    """A whole request answered (so the server holds the connection), then half of another."""
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = b""
    while not answer.endswith(b"SERVING\n"):
        answer += sock.recv(4096)
    sock.sendall(b"POST /tienlen.v1.TienLenEngine/NewGame HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")


# --- connections ----------------------------------------------------------------------------


def test_a_connection_past_the_cap_is_refused_at_once_and_grpc_stays_serving(
    start_web, sockets
) -> None:
    cap = 4
    running, web = start_web(
        web_max_connections=cap, web_read_timeout=60.0, web_keepalive_timeout=60.0
    )
    held = [sockets(web.port) for _ in range(cap)]
    for sock in held:
        keep_alive_then_half_send(sock)
    extra = sockets(web.port)
    assert read_all(extra).startswith(b"HTTP/1.1 503 ")
    assert connection_refusals(running)["CONNECTION_LIMIT"] == 1
    assert samples(running, "tienlen_web_connections")[""] == cap
    assert grpc_health(running) == health_pb2.HealthCheckResponse.SERVING
    for sock in held:
        sock.close()
    # The held connections are gone as soon as the server reads their close: a bounded number
    # of tries (each a refused or answered connection), never a wait on the clock.
    for _ in range(200):
        try:
            if web.request("GET", "/healthz").status == 200:
                break
        except (ConnectionError, http.client.HTTPException):
            continue
    else:
        pytest.fail("the web port never took a connection again")
    assert grpc_health(running) == health_pb2.HealthCheckResponse.SERVING


def test_a_request_not_sent_within_the_read_timeout_is_answered_408_and_closed(
    start_web, sockets
) -> None:
    running, web = start_web(web_read_timeout=0.2)
    silent = sockets(web.port)  # connects and sends nothing
    trickling = sockets(web.port)  # sends half a request, then nothing more
    trickling.sendall(b"POST /tienlen.v1.TienLenEngine/NewGame HTTP/1.1\r\nHost: 12")
    assert read_all(silent).startswith(b"HTTP/1.1 408 ")
    assert read_all(trickling).startswith(b"HTTP/1.1 408 ")
    assert connection_refusals(running)["READ_TIMEOUT"] == 2


def test_a_request_sent_whole_in_time_is_served_on_a_guarded_port(start_web) -> None:
    running, web = start_web(web_read_timeout=5.0, web_max_connections=2)
    assert web.connect_json("NewGame", {"players": 4, "seed": "7"}).status == 200
    assert sum(connection_refusals(running).values()) == 0


# --- headers --------------------------------------------------------------------------------


def test_headers_over_the_size_bound_are_refused_as_they_arrive(start_web, sockets) -> None:
    running, web = start_web(web_max_header_bytes=4096)
    sock = sockets(web.port)
    sock.sendall(b"POST /tienlen.v1.TienLenEngine/NewGame HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
    sent = 0
    try:  # 8 MiB of one header, in 64 KiB writes: the server closes long before the end
        for _ in range(128):
            sock.sendall(b"a" * 65536)
            sent += 65536
    except (BrokenPipeError, ConnectionResetError):
        pass
    read_all(sock)
    assert connection_refusals(running)["HEADERS_TOO_LARGE"] == 1
    assert sent < 8 << 20, "the server read the whole 8 MiB header"


def test_a_small_oversize_head_gets_431(start_web, sockets) -> None:
    running, web = start_web(web_max_header_bytes=4096)
    sock = sockets(web.port)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 5000 + b"\r\n\r\n")
    assert read_all(sock).startswith(b"HTTP/1.1 431 ")
    assert connection_refusals(running)["HEADERS_TOO_LARGE"] == 1


@pytest.mark.parametrize("oversize", ["head bytes", "header count"])
def test_a_request_pipelined_before_an_oversize_head_keeps_its_answer(
    start_web, sockets, oversize
) -> None:
    # A valid NewGame, then at once on the same connection a head over a bound: the NewGame is
    # answered (its answer was lost to the 431 before), then the 431 comes and the close.
    running, web = start_web(web_max_header_bytes=4096, web_max_headers=20)
    body = json.dumps({"players": 4, "seed": "7"}).encode()
    valid = (
        b"POST /tienlen.v1.TienLenEngine/NewGame HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    )
    if oversize == "head bytes":
        extra = b"X-Big: " + b"a" * 5000 + b"\r\n"
    else:
        extra = b"".join(b"X-%d: 1\r\n" % i for i in range(50))
    sock = sockets(web.port)
    sock.sendall(valid + b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + b"\r\n")
    answers = read_all(sock)
    assert answers.startswith(b"HTTP/1.1 200 "), answers[:200]
    assert b"stateToken" in answers
    assert b"HTTP/1.1 431 " in answers
    assert sum(connection_refusals(running).values()) == 1


def test_more_headers_than_the_count_bound_get_431(start_web, sockets) -> None:
    running, web = start_web(web_max_headers=20)
    sock = sockets(web.port)
    headers = b"".join(b"X-%d: 1\r\n" % i for i in range(50))
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
    assert read_all(sock).startswith(b"HTTP/1.1 431 ")
    assert connection_refusals(running)["TOO_MANY_HEADERS"] == 1


def test_requests_that_are_not_http_are_counted_not_logged_one_by_one(
    start_web, sockets, log_stream
) -> None:
    running, web = start_web()
    for _ in range(30):
        sock = sockets(web.port)
        sock.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
        assert read_all(sock).startswith(b"HTTP/1.1 400 ")
    assert connection_refusals(running)["BAD_REQUEST"] == 30
    lines = [json.loads(line) for line in log_stream.getvalue().splitlines() if line]
    assert [r for r in lines if r.get("logger", "").startswith("uvicorn")] == []


# --- bounded echoes -----------------------------------------------------------------------------


def test_a_60_kb_json_field_name_does_not_come_back_whole(start_web) -> None:
    _, web = start_web()
    answer = web.connect_json("NewGame", json.dumps({"x" * 60_000: 1}).encode())
    assert answer.status == 400
    assert len(answer.body) < 2048
    assert len(answer.json()["message"].encode()) <= 400


@pytest.mark.parametrize("header", ["connect-timeout-ms", "connect-protocol-version"])
def test_a_1_mb_connect_header_does_not_come_back_whole(start_web, header) -> None:
    _, web = start_web(web_max_header_bytes=2 << 20)  # let it through to the refusal
    answer = web.connect_json("NewGame", {"players": 4}, headers={header: "9" * 1_000_000})
    assert answer.status == 400
    assert len(answer.body) < 2048


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://" + "x" * 1_000_000},
        {"content-type": "application/grpc-web+proto", "grpc-timeout": "9" * 1_000_000},
        {"content-type": "application/proto;" + "x" * 1_000_000},
    ],
    ids=["origin", "grpc-timeout", "content-type"],
)
def test_a_1_mb_header_is_not_echoed_in_any_refusal(start_web, headers) -> None:
    _, web = start_web(web_max_header_bytes=2 << 20)
    merged = {"content-type": "application/grpc-web+proto", **headers}
    frame = b"\x00" + struct.pack(">I", len(NEW_GAME)) + NEW_GAME
    answer = web.request("POST", f"/{SERVICE}/NewGame", frame, merged)
    assert sum(len(v) for v in answer.headers.values()) + len(answer.body) < 4096


# --- gRPC-Web framing -----------------------------------------------------------------------

BAD_FRAMES = {
    "no message": b"",
    "a cut prefix": b"\x00\x00\x00",
    "a length past the end": b"\x00" + struct.pack(">I", 100) + NEW_GAME,
    "two messages": (b"\x00" + struct.pack(">I", len(NEW_GAME)) + NEW_GAME) * 2,
    "compressed without an encoding": b"\x01" + struct.pack(">I", len(NEW_GAME)) + NEW_GAME,
    "a trailers frame": b"\x80" + struct.pack(">I", len(NEW_GAME)) + NEW_GAME,
    "unknown flags": b"\x04" + struct.pack(">I", len(NEW_GAME)) + NEW_GAME,
}


@pytest.mark.parametrize("body", BAD_FRAMES.values(), ids=BAD_FRAMES.keys())
def test_a_broken_grpc_web_frame_is_invalid_argument_with_one_error_info(start_web, body) -> None:
    running, web = start_web()
    assert web.grpc_web("NewGame", NEW_GAME).status == 0  # a well-formed frame is served
    raw = web.request(
        "POST", f"/{SERVICE}/NewGame", body, {"content-type": "application/grpc-web+proto"}
    )
    assert raw.status == 200
    assert raw.header("grpc-status") == "3"
    status = GrpcWebAnswer(raw, [], raw.headers).rich_status()
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    assert (info.domain, info.reason) == ("tienlen.v1", "MALFORMED_REQUEST")
    assert samples(running, "tienlen_web_refused")["MALFORMED_FRAME"] == 1


def test_grpc_web_text_that_is_not_base64_carries_its_error_info(start_web) -> None:
    _, web = start_web()
    raw = web.request(
        "POST", f"/{SERVICE}/NewGame", b"!!!", {"content-type": "application/grpc-web-text"}
    )
    assert raw.header("grpc-status") == "3"
    assert raw.header("grpc-status-details-bin")


# --- hosts ------------------------------------------------------------------------------------


def test_a_foreign_host_is_refused_even_same_origin_with_itself(start_web) -> None:
    """DNS rebinding: a page at http://rebound.example:PORT whose name now resolves to this
    server sends Host and Origin that agree; the host is not this server's."""
    running, web = start_web()
    host = f"rebound.example:{web.port}"
    answer = web.connect_json(
        "NewGame", {"players": 4}, headers={"host": host, "origin": f"http://{host}"}
    )
    assert answer.status == 403
    assert samples(running, "tienlen_web_refused")["HOST_NOT_ALLOWED"] == 1
    assert web.request("GET", "/healthz", headers={"host": host}).status == 200


def test_listed_hosts_and_their_subdomains_are_answered(start_web) -> None:
    _, web = start_web(allowed_hosts=("table.example", ".games.example"))
    for host in ("table.example", "TABLE.example.", "eu.games.example", "games.example"):
        answer = web.connect_json("NewGame", {"players": 4}, headers={"host": f"{host}:{web.port}"})
        assert answer.status == 200, host
    refused = web.connect_json("NewGame", {"players": 4}, headers={"host": "127.0.0.1"})
    assert refused.status == 403  # listing hosts replaces the defaults


def test_a_dev_run_answers_any_host(start_web) -> None:
    _, web = start_web(dev=True)
    answer = web.connect_json("NewGame", {"players": 4}, headers={"host": "anything.example"})
    assert answer.status == 200


# --- the port itself --------------------------------------------------------------------------


def test_reuse_port_lets_a_second_replica_share_the_web_port(server_factory) -> None:
    first = server_factory(web_port=0, reuse_port=True)
    port = first.handle.web_port
    second = server_factory(web_port=port, reuse_port=True)
    assert second.handle.web_port == port
    assert WebClient(port).request("GET", "/healthz").status == 200


def test_a_drain_with_half_sent_requests_open_ends_within_its_grace(
    start_web, sockets, log_stream
) -> None:
    """Connections the event loop accepted in the instant the port closed used to reach the
    protocol after uvicorn had asked every connection to close, and held the drain until its
    grace ran out ("timeout graceful shutdown exceeded")."""
    running, web = start_web()
    for _ in range(300):
        sockets(web.port).sendall(b"POST /tienlen.v1.TienLenEngine/NewGame HTTP/1.1\r\nX: ")
    running.handle.stop(grace=5, drain_delay=0)
    records = [json.loads(line) for line in log_stream.getvalue().splitlines() if line]
    events = [r["event"] for r in records]
    assert "stopped" in events
    assert not [e for e in events if "graceful shutdown exceeded" in e]
