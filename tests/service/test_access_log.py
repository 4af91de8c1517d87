"""The access log: which calls get their `rpc` line (`--log-sample`, `--log-slow-ms`).

Every call that did not end OK, every call handled in `--log-slow-ms` or more and every
streaming call is logged; of the other calls one in `--log-sample` per method is, its line
saying `sampled` = N. The metrics count and time every call whatever is logged. Real servers
on 127.0.0.1 port 0; the thresholds are chosen so that no outcome depends on the machine's
speed (0 ms: every call is slow; 60 s: none is)."""

from __future__ import annotations

import http.client
import io
import json
import urllib.request
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.logs import json_lines
from prometheus_client.parser import text_string_to_metric_families

from tienlen_service.config import Config, parse_config
from tienlen_service.logs import (
    DEFAULT_LOG_SAMPLE,
    DEFAULT_LOG_SLOW_MS,
    AccessLog,
    CallFields,
    configure_logging,
    reset_logging,
)

TIMEOUT = 20.0
PROBE = "tienlen.test.Probe"
NEVER_SLOW_MS = 60_000.0
SAMPLE = 4


def rpc_lines(stream: io.StringIO, method: str | None = None) -> list[dict[str, Any]]:
    return [
        r
        for r in json_lines(stream)
        if r.get("event") == "rpc" and (method is None or r["rpc"] == f"{PROBE}/{method}")
    ]


def call(channel: grpc.Channel, method: str, request_id: str, *, ok: bool = True) -> None:
    stub = channel.unary_unary(f"/{PROBE}/{method}", None, None)
    metadata = (("x-request-id", request_id),)
    if ok:
        stub(b"x", metadata=metadata, timeout=TIMEOUT)
    else:
        with pytest.raises(grpc.RpcError):
            stub(b"x", metadata=metadata, timeout=TIMEOUT)


def scrape(url: str | None) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    assert url is not None
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


# -- the rule -----------------------------------------------------------------------------------


def test_one_successful_call_in_n_is_logged_saying_n(server_factory, probe, log_stream) -> None:
    running = server_factory(register=probe.register, log_sample=SAMPLE, log_slow_ms=NEVER_SLOW_MS)
    with grpc.insecure_channel(running.address) as channel:
        for i in range(3 * SAMPLE):
            call(channel, "Echo", f"echo-{i}")
    lines = rpc_lines(log_stream, "Echo")
    # The first call of a method, then every SAMPLE-th: each line stands for SAMPLE calls.
    assert [r["request_id"] for r in lines] == ["echo-0", "echo-4", "echo-8"]
    assert {(r["code"], r["sampled"], r["level"]) for r in lines} == {("OK", SAMPLE, "info")}


def test_every_failed_call_is_logged_whatever_the_sampling(
    server_factory, probe, log_stream
) -> None:
    running = server_factory(register=probe.register, log_sample=1000, log_slow_ms=NEVER_SLOW_MS)
    with grpc.insecure_channel(running.address) as channel:
        for i in range(3):
            call(channel, "Crash", f"crash-{i}", ok=False)
            call(channel, "Abort", f"abort-{i}", ok=False)
            call(channel, "SetCode", f"not-found-{i}", ok=False)
            call(channel, "Echo", f"echo-{i}")
    failed = [(r["request_id"], r["code"], r["level"], r["sampled"]) for r in rpc_lines(log_stream)]
    assert [f for f in failed if not f[0].startswith("echo")] == [
        line
        for i in range(3)
        for line in (
            (f"crash-{i}", "UNKNOWN", "error", 1),
            (f"abort-{i}", "INVALID_ARGUMENT", "info", 1),
            (f"not-found-{i}", "NOT_FOUND", "info", 1),
        )
    ]
    # Of the successful calls, only the sample's first.
    assert [f for f in failed if f[0].startswith("echo")] == [("echo-0", "OK", "info", 1000)]


def test_every_call_at_or_over_the_slow_threshold_is_logged(
    server_factory, probe, log_stream
) -> None:
    # Threshold 0 ms: every call is slow, so every one is logged for itself.
    running = server_factory(register=probe.register, log_sample=1000, log_slow_ms=0)
    with grpc.insecure_channel(running.address) as channel:
        for i in range(5):
            call(channel, "Echo", f"echo-{i}")
    lines = rpc_lines(log_stream, "Echo")
    assert [(r["request_id"], r["code"], r["sampled"]) for r in lines] == [
        (f"echo-{i}", "OK", 1) for i in range(5)
    ]


def test_the_slow_threshold_is_the_handling_time() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    try:
        log = AccessLog(sample=1000, slow_ms=100)
        sampler = AccessLog.sampler()
        sampler()  # the sample's first call is past: the next 999 fast ones are not logged
        for i, elapsed in enumerate((0.0999, 0.1, 2.5, 0.001)):
            log.finish(CallFields("s/M", request_id=f"r{i}"), sampler, grpc.StatusCode.OK, elapsed)
    finally:
        reset_logging()
    lines = json_lines(stream)
    assert [(r["request_id"], r["duration_ms"], r["sampled"]) for r in lines] == [
        ("r1", 100.0, 1),
        ("r2", 2500.0, 1),
    ]


def test_streaming_calls_are_logged_once_per_stream(server_factory, probe, log_stream) -> None:
    running = server_factory(register=probe.register, log_sample=1000, log_slow_ms=NEVER_SLOW_MS)
    with grpc.insecure_channel(running.address) as channel:
        chat = channel.stream_stream(f"/{PROBE}/Chat", None, None)
        for i in range(3):
            answers = chat(iter([b"a", b"b", b"c"]), metadata=(("x-request-id", f"chat-{i}"),))
            assert list(answers) == [b"A", b"B", b"C"]
    lines = rpc_lines(log_stream, "Chat")
    assert [(r["request_id"], r["code"], r["sampled"]) for r in lines] == [
        (f"chat-{i}", "OK", 1) for i in range(3)
    ]


def test_metrics_count_and_time_every_call_whatever_is_logged(
    server_factory, probe, log_stream
) -> None:
    running = server_factory(register=probe.register, log_sample=1000, log_slow_ms=NEVER_SLOW_MS)
    calls = 25
    with grpc.insecure_channel(running.address) as channel:
        for i in range(calls):
            call(channel, "Echo", f"echo-{i}")
        call(channel, "Crash", "crash", ok=False)
    assert len(rpc_lines(log_stream)) == 2  # the sample's first Echo, and the crash
    samples = scrape(running.metrics_url)
    labels = {"grpc_type": "unary", "grpc_service": PROBE, "grpc_method": "Echo"}

    def value(name: str, **extra: str) -> float:
        return samples[(name, frozenset((labels | extra).items()))]

    assert value("grpc_server_started_total") == calls
    assert value("grpc_server_handled_total", grpc_code="OK") == calls
    assert value("grpc_server_handling_seconds_count") == calls
    assert value("grpc_server_msg_received_total") == calls
    assert value("grpc_server_msg_sent_total") == calls
    crash = labels | {"grpc_method": "Crash", "grpc_code": "UNKNOWN"}
    assert samples[("grpc_server_handled_total", frozenset(crash.items()))] == 1
    assert samples[("tienlen_rpcs_in_flight", frozenset())] == 0


def test_the_in_flight_gauge_counts_a_call_from_its_start_to_its_status(
    server_factory, probe
) -> None:
    """A gRPC call is in flight from its method's `started` to its `handled` count (no
    counter of its own per call): a held call counts 1, and 0 once it has ended."""
    running = server_factory(register=probe.register)
    with grpc.insecure_channel(running.address) as channel:
        held = probe.open_hold(channel, timeout=30)
        assert next(held) == b"started"
        during = scrape(running.metrics_url)[("tienlen_rpcs_in_flight", frozenset())]
        probe.release.set()
        assert list(held) == [b"done"]
    after = scrape(running.metrics_url)[("tienlen_rpcs_in_flight", frozenset())]
    assert (during, after) == (1, 0)


def test_a_line_logged_during_a_call_names_the_call(server_factory, probe, log_stream) -> None:
    # grpc logs a crashing handler's traceback itself, after our interceptor has seen it end.
    running = server_factory(register=probe.register, log_sample=1000, log_slow_ms=NEVER_SLOW_MS)
    with grpc.insecure_channel(running.address) as channel:
        call(channel, "Echo", "echo")
        call(channel, "Crash", "crash-7", ok=False)
        call(channel, "Echo", "echo-after")
    (traceback,) = [r for r in json_lines(log_stream) if "Exception calling" in r["event"]]
    assert (traceback["request_id"], traceback["rpc"]) == ("crash-7", f"{PROBE}/Crash")
    assert "probe crash" in json.dumps(traceback)


def test_web_calls_are_logged_by_the_same_rule(server_factory, log_stream) -> None:
    running = server_factory(web_port=0, log_sample=2, log_slow_ms=NEVER_SLOW_MS)
    service = "tienlen.v1.TienLenEngine"

    def connect(method: str, body: dict[str, Any], request_id: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", running.handle.web_port, timeout=TIMEOUT)
        try:
            conn.request(
                "POST",
                f"/{service}/{method}",
                json.dumps(body),
                {"content-type": "application/json", "x-request-id": request_id},
            )
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    assert [connect("NewGame", {"players": 4}, f"deal-{i}") for i in range(3)] == [200] * 3
    assert connect("ApplyMove", {}, "bad-move") == 400
    lines = [r for r in json_lines(log_stream) if r.get("event") == "rpc"]
    assert [(r["request_id"], r["code"], r["sampled"], r["transport"]) for r in lines] == [
        ("deal-0", "OK", 2, "connect"),
        ("deal-2", "OK", 2, "connect"),
        ("bad-move", "INVALID_ARGUMENT", 1, "connect"),
    ]


def test_health_checks_are_logged_at_debug_only_on_both_ports(server_factory) -> None:
    stream = io.StringIO()
    configure_logging("debug", "json", stream)
    try:
        running = server_factory(web_port=0, log_sample=1)
        with grpc.insecure_channel(running.address) as channel:
            health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=TIMEOUT
            )
        conn = http.client.HTTPConnection("127.0.0.1", running.handle.web_port, timeout=TIMEOUT)
        try:
            conn.request(
                "POST",
                "/grpc.health.v1.Health/Check",
                "{}",
                {"content-type": "application/json", "x-request-id": "web-probe"},
            )
            response = conn.getresponse()
            response.read()
            assert response.status == 200
        finally:
            conn.close()
    finally:
        reset_logging()
    checks = [
        r
        for r in json_lines(stream)
        if r.get("event") == "rpc" and r["rpc"] == "grpc.health.v1.Health/Check"
    ]
    # The server's own start-up probe may add gRPC lines; the web one is ours.
    assert [r["request_id"] for r in checks if "transport" in r] == ["web-probe"]
    assert {r["level"] for r in checks} == {"debug"}


# -- the settings -------------------------------------------------------------------------------


def test_the_defaults_sample_successful_calls_and_log_the_slow_ones() -> None:
    defaults = Config()
    assert (defaults.log_sample, defaults.log_slow_ms) == (DEFAULT_LOG_SAMPLE, DEFAULT_LOG_SLOW_MS)
    assert DEFAULT_LOG_SAMPLE > 1
    log = AccessLog()
    assert (log.sample, log.slow_ms) == (DEFAULT_LOG_SAMPLE, DEFAULT_LOG_SLOW_MS)


def test_the_sampling_settings_come_from_flags_or_the_environment() -> None:
    config, _ = parse_config(["--log-sample", "1"], {"TIENLEN_LOG_SLOW_MS": "250.5"})
    assert (config.log_sample, config.log_slow_ms) == (1, 250.5)
    config, _ = parse_config([], {"TIENLEN_LOG_SAMPLE": "1000", "TIENLEN_LOG_SLOW_MS": "0"})
    assert (config.log_sample, config.log_slow_ms) == (1000, 0.0)


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--log-sample", "0"], {}, "at least 1"),
        ([], {"TIENLEN_LOG_SAMPLE": "often"}, "TIENLEN_LOG_SAMPLE"),
        (["--log-slow-ms", "-1"], {}, "milliseconds"),
        ([], {"TIENLEN_LOG_SLOW_MS": "nan"}, "milliseconds"),
    ],
)
def test_bad_sampling_settings_exit_2_with_a_message(argv, env, message, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_config(argv, env)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("sample", "slow_ms"), [(0, 100.0), (1, -1.0), (1, float("nan"))])
def test_an_access_log_refuses_impossible_settings(sample: int, slow_ms: float) -> None:
    with pytest.raises(ValueError, match="at least"):
        AccessLog(sample=sample, slow_ms=slow_ms)
