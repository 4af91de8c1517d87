"""The process's open files: the soft limit raised at start, each port's connections capped
within half of it (idle connections filling one port never take the other's descriptors, the
metrics port's or the logs'), and one line shape on the output (grpc C-core's own stderr lines
silenced).

Child processes on 127.0.0.1 port 0, waited on by their log lines; in-process servers for the
gRPC port's connection cap, waited on by the connections' closes.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tienlen_service.server import FD_RESERVE, connection_cap, web_connection_cap

WAIT = 20.0
"""Seconds a close or an answer may take (never reached when the code works)."""

SET_LIMIT_AND_RUN = """
import os, resource, sys
soft, hard = int(os.environ["NOFILE_SOFT"]), int(os.environ["NOFILE_HARD"])
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
from tienlen_service.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def start_with_limit(process_factory, soft: int, hard: int) -> dict:
    process = process_factory(
        script=SET_LIMIT_AND_RUN, env={"NOFILE_SOFT": str(soft), "NOFILE_HARD": str(hard)}
    )
    return process.wait_for_event("serving")


def test_the_soft_open_file_limit_is_raised_to_the_hard_one_at_start(process_factory) -> None:
    serving = start_with_limit(process_factory, 1024, 4096)
    assert serving["open_files"] == 4096
    assert serving["web_max_connections"] == 512
    assert serving["max_connections"] == 512


def test_under_a_256_file_limit_each_port_takes_less_than_half(process_factory) -> None:
    # The probe: idle gRPC connections at 256 open files took health down.
    serving = start_with_limit(process_factory, 256, 256)
    assert serving["max_connections"] == serving["web_max_connections"] == (256 - FD_RESERVE) // 2


def test_under_a_1024_file_limit_the_web_port_takes_less_than_half(process_factory) -> None:
    serving = start_with_limit(process_factory, 1024, 1024)
    assert serving["open_files"] == 1024
    assert serving["web_max_connections"] == (1024 - FD_RESERVE) // 2


@pytest.mark.parametrize(
    ("configured", "open_files", "cap"),
    [(512, 1 << 20, 512), (512, 1024, 480), (512, 256, 96), (10, 100, 10), (512, 64, 1)],
)
def test_the_web_connection_cap_is_the_setting_within_half_the_free_files(
    configured, open_files, cap
) -> None:
    assert web_connection_cap(configured, open_files) == cap
    assert connection_cap(configured, open_files) == cap


@pytest.fixture
def raw_sockets() -> Iterator[Callable[[str, int], list[socket.socket]]]:
    """`count` TCP connections to a gRPC address that never speak; closed after the test."""
    opened: list[socket.socket] = []

    def connect(address: str, count: int) -> list[socket.socket]:
        host, _, port = address.rpartition(":")
        made = [socket.create_connection((host, int(port)), timeout=WAIT) for _ in range(count)]
        opened.extend(made)
        return made

    yield connect
    for sock in opened:
        sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Wait for the server to close `sock` (True), or WAIT to pass (False); what it sends
    first (its HTTP/2 settings) is read and dropped."""
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def health(address: str) -> int:
    options = [("grpc.use_local_subchannel_pool", 1)]
    with grpc.insecure_channel(address, options=options) as channel:
        check = health_pb2_grpc.HealthStub(channel).Check
        return int(check(health_pb2.HealthCheckRequest(), timeout=WAIT, wait_for_ready=True).status)


def test_connections_past_the_grpc_ports_cap_are_closed_as_they_are_accepted(
    server_factory: Callable[..., Any], raw_sockets: Callable[[str, int], list[socket.socket]]
) -> None:
    running = server_factory(max_connections=3, handshake_timeout=WAIT * 3)
    held = raw_sockets(running.address, 3)
    extra = raw_sockets(running.address, 4)
    assert all(closed_by_server(sock) for sock in extra)
    for sock in held:
        sock.close()
    assert health(running.address) == health_pb2.HealthCheckResponse.SERVING


def test_idle_connections_that_never_finish_their_handshake_are_closed_and_health_comes_back(
    server_factory: Callable[..., Any], raw_sockets: Callable[[str, int], list[socket.socket]]
) -> None:
    running = server_factory(max_connections=3, handshake_timeout=0.5)
    held = raw_sockets(running.address, 3)  # the port is full
    # The health check waits for a connection: the idle ones are closed at their handshake
    # deadline (gRPC core's own default held them for two minutes), and it gets one.
    assert health(running.address) == health_pb2.HealthCheckResponse.SERVING
    assert all(closed_by_server(sock) for sock in held)


def test_grpc_core_writes_no_line_that_is_not_json(process_factory) -> None:
    """A taken gRPC port makes C-core write its own ``E1202 ... add_port.cc`` line to stderr
    (merged with stdout here); the service's `startup_failed` says it instead."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = process_factory("--port", str(taken.getsockname()[1]))
        process.wait_for_event("startup_failed")
        assert process.wait() == 1
    for line in process.lines:
        assert isinstance(json.loads(line), dict), line


def test_an_operator_can_have_grpc_core_lines_back(process_factory) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = process_factory(
            "--port", str(taken.getsockname()[1]), env={"GRPC_VERBOSITY": "ERROR"}
        )
        process.wait_for_event("startup_failed")
        assert process.wait() == 1
    assert any("add_port" in line for line in process.lines)
