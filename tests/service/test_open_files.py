"""The process's open files: the soft limit raised at start, the web port's share of it kept
below what the gRPC port needs, and one line shape on the output (grpc C-core's own stderr
lines silenced).

Child processes on 127.0.0.1 port 0, waited on by their log lines.
"""

from __future__ import annotations

import json
import socket

import pytest

from tienlen_service.server import FD_RESERVE, web_connection_cap

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
