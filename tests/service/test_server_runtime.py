"""The runtime around the engine: health, reflection, metrics, logs, limits, TLS, SIGTERM drain.

Every server is real (loopback, port 0) and waited for on its health service. The runtime is
tested with the probe service of tests/conftest.py (echo, abort, crash, hold a call open),
so that what is proved here doesn't depend on the engine; the engine's own RPCs are the
contract tests' subject.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import threading
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status
from helpers.logs import json_lines
from prometheus_client.parser import text_string_to_metric_families

from tienlen_service.config import OPTIONS, Config, parse_config
from tienlen_service.server import grpc_options

TIMEOUT = 20.0
ROOT = Path(__file__).resolve().parents[2]
PROBE_SERVICE = "tienlen.test.Probe"
SECRET = "c2VjcmV0LWtleS1tYXRlcmlhbC0zMi1ieXRlcy1sb25nIQ"  # base64url, 32 bytes
KEYS = f"test-kid:{SECRET}"


# -- helpers ------------------------------------------------------------------------------------


def scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a /metrics page: (name, labels) -> value."""
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        assert response.status == 200
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def sample(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def rpc_error(call: Any, *args: Any, **kwargs: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    return caught.value


# -- health and reflection ----------------------------------------------------------------------


def test_health_says_serving_for_the_server_and_each_service(server_factory, probe) -> None:
    running = server_factory(register=probe.register)
    with grpc.insecure_channel(running.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", PROBE_SERVICE):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        error = rpc_error(
            health.Check, health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=TIMEOUT
        )
        assert error.code() is grpc.StatusCode.NOT_FOUND


def test_the_engine_is_registered_and_healthy_by_default(server_factory, wait_for_serving) -> None:
    from tienlen.v1 import service_pb2
    from tienlen_service.servicer import SERVICE_NAME

    assert service_pb2.DESCRIPTOR.services_by_name["TienLenEngine"].full_name == SERVICE_NAME
    running = server_factory(reflection=True)
    wait_for_serving(running.address, SERVICE_NAME)
    with grpc.insecure_channel(running.address) as channel:
        services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert SERVICE_NAME in services


def list_services_v1(channel: grpc.Channel) -> set[str]:
    """The services reflection v1 lists (its messages are v1alpha's, field for field)."""
    from grpc_reflection.v1alpha import reflection_pb2

    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (response,) = list(call(iter([request]), timeout=TIMEOUT))
    return {s.name for s in response.list_services_response.service}


def test_reflection_is_off_unless_asked_for_or_a_dev_run(server_factory) -> None:
    for settings, served in (({}, False), ({"dev": True}, True), ({"reflection": True}, True),
                             ({"dev": True, "reflection": False}, False)):  # fmt: skip
        running = server_factory(**settings)
        with grpc.insecure_channel(running.address) as channel:
            if served:
                assert "tienlen.v1.TienLenEngine" in list_services_v1(channel)
            else:
                error = rpc_error(list_services_v1, channel)
                assert error.code() is grpc.StatusCode.UNIMPLEMENTED


def test_reflection_lists_every_service_and_describes_it(server_factory, probe) -> None:
    running = server_factory(register=probe.register, reflection=True)
    with grpc.insecure_channel(running.address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {
            PROBE_SERVICE,
            "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection",
            "grpc.reflection.v1.ServerReflection",
        } <= services
        assert list_services_v1(channel) == services  # v1 answers as v1alpha does
        # grpcurl's "describe": the file that defines the health service, with its methods.
        health_file = database.FindFileContainingSymbol("grpc.health.v1.Health")
        assert health_file.name.endswith("health.proto")
        assert {"Check", "Watch"} <= {m.name for m in health_file.service[0].method}


# -- status codes, metrics, logs ----------------------------------------------------------------


def drive_probe_traffic(probe: Any, address: str) -> dict[str, grpc.StatusCode]:
    """Three echoes and one call of each failing kind; returns the codes the client saw."""
    seen: dict[str, grpc.StatusCode] = {}
    with grpc.insecure_channel(address) as channel:
        for _ in range(3):
            assert probe.call(channel, "Echo", b"ping", timeout=TIMEOUT) == b"ping"
        seen["Echo"] = grpc.StatusCode.OK
        for method in ("Abort", "AbortWithStatus", "Crash", "SetCode"):
            seen[method] = rpc_error(probe.call, channel, method, timeout=TIMEOUT).code()
        seen["Parse"] = rpc_error(
            probe.call, channel, "Parse", b"\xff\xff\xff", timeout=TIMEOUT
        ).code()
    return seen


def test_the_client_sees_the_code_the_servicer_chose(server_factory, probe) -> None:
    running = server_factory(register=probe.register)
    assert drive_probe_traffic(probe, running.address) == {
        "Echo": grpc.StatusCode.OK,
        "Abort": grpc.StatusCode.INVALID_ARGUMENT,
        "AbortWithStatus": grpc.StatusCode.FAILED_PRECONDITION,
        "Crash": grpc.StatusCode.UNKNOWN,
        "SetCode": grpc.StatusCode.NOT_FOUND,
        "Parse": grpc.StatusCode.INVALID_ARGUMENT,
    }


def test_rich_error_details_pass_through_the_interceptor(server_factory, probe) -> None:
    from google.rpc import error_details_pb2

    running = server_factory(register=probe.register)
    with grpc.insecure_channel(running.address) as channel:
        error = rpc_error(probe.call, channel, "AbortWithStatus", timeout=TIMEOUT)
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, info.domain) == ("PROBE_REASON", "tienlen.v1")


def test_request_bytes_that_do_not_parse_are_invalid_argument_not_internal(
    server_factory, probe
) -> None:
    from google.rpc import error_details_pb2

    running = server_factory(register=probe.register)
    with grpc.insecure_channel(running.address) as channel:
        error = rpc_error(probe.call, channel, "Parse", b"\x0a\xff\xff\xff", timeout=TIMEOUT)
        # A well-formed request still parses and reaches the servicer.
        good = health_pb2.HealthCheckRequest(service="x").SerializeToString()
        assert probe.call(channel, "Parse", good, timeout=TIMEOUT) == good
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert info.reason == "MALFORMED_REQUEST"


def test_metrics_are_scraped_over_http_after_traffic(server_factory, probe) -> None:
    running = server_factory(register=probe.register)
    drive_probe_traffic(probe, running.address)
    samples = scrape(running.metrics_url)

    def handled(method: str, code: str) -> float:
        return sample(
            samples,
            "grpc_server_handled_total",
            grpc_type="unary",
            grpc_service=PROBE_SERVICE,
            grpc_method=method,
            grpc_code=code,
        )

    assert handled("Echo", "OK") == 3
    assert handled("Abort", "INVALID_ARGUMENT") == 1
    assert handled("AbortWithStatus", "FAILED_PRECONDITION") == 1
    assert handled("Crash", "UNKNOWN") == 1
    assert handled("SetCode", "NOT_FOUND") == 1
    assert handled("Parse", "INVALID_ARGUMENT") == 1
    echo = {"grpc_type": "unary", "grpc_service": PROBE_SERVICE, "grpc_method": "Echo"}
    assert sample(samples, "grpc_server_started_total", **echo) == 3
    assert sample(samples, "grpc_server_msg_received_total", **echo) == 3
    assert sample(samples, "grpc_server_msg_sent_total", **echo) == 3
    assert sample(samples, "grpc_server_handling_seconds_count", **echo) == 3
    assert sample(samples, "grpc_server_handling_seconds_bucket", le="+Inf", **echo) == 3
    assert sample(samples, "tienlen_rpcs_in_flight") == 0
    names = {name for name, _ in samples}
    assert not any(name.endswith("_created") for name in names)
    assert any(name == "tienlen_build_info" for name in names)


def test_streaming_calls_are_counted_per_message(server_factory, probe) -> None:
    running = server_factory(register=probe.register)
    with grpc.insecure_channel(running.address) as channel:
        chat = channel.stream_stream(f"/{PROBE_SERVICE}/Chat", None, None)
        assert list(chat(iter([b"a", b"b", b"c"]), timeout=TIMEOUT)) == [b"A", b"B", b"C"]
        total = channel.stream_unary(f"/{PROBE_SERVICE}/Total", None, None)
        assert total(iter([b"x", b"y"]), timeout=TIMEOUT) == b"xy"
    samples = scrape(running.metrics_url)
    chat_labels = {"grpc_type": "bidi_stream", "grpc_service": PROBE_SERVICE, "grpc_method": "Chat"}
    total_labels = {
        "grpc_type": "client_stream",
        "grpc_service": PROBE_SERVICE,
        "grpc_method": "Total",
    }
    assert sample(samples, "grpc_server_handled_total", grpc_code="OK", **chat_labels) == 1
    assert sample(samples, "grpc_server_msg_received_total", **chat_labels) == 3
    assert sample(samples, "grpc_server_msg_sent_total", **chat_labels) == 3
    assert sample(samples, "grpc_server_handled_total", grpc_code="OK", **total_labels) == 1
    assert sample(samples, "grpc_server_msg_received_total", **total_labels) == 2
    assert sample(samples, "grpc_server_msg_sent_total", **total_labels) == 1
    hold = {"grpc_type": "server_stream", "grpc_service": PROBE_SERVICE, "grpc_method": "Hold"}
    assert sample(samples, "grpc_server_started_total", **hold) == 0


def test_every_domain_metric_is_exported_with_its_standard_name(server_factory, probe) -> None:
    running = server_factory(register=probe.register)
    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    for name in (
        "tienlen_games_started_total",
        "tienlen_moves_applied_total",
        "tienlen_moves_rejected_total",
        "tienlen_games_finished_total",
        "tienlen_instant_wins_total",
        "tienlen_chops_total",
        "tienlen_tokens_rejected_total",
        "tienlen_bot_searches_total",
    ):
        assert f"# TYPE {name} counter" in text
    assert "# TYPE tienlen_bot_search_seconds histogram" in text


def test_two_servers_in_one_process_keep_separate_metrics(server_factory, probe) -> None:
    first = server_factory(register=probe.register)
    second = server_factory(register=type(probe)().register)
    with grpc.insecure_channel(first.address) as channel:
        probe.call(channel, "Echo", timeout=TIMEOUT)
    labels = {"grpc_type": "unary", "grpc_service": PROBE_SERVICE, "grpc_method": "Echo"}
    assert sample(scrape(first.metrics_url), "grpc_server_started_total", **labels) == 1
    assert sample(scrape(second.metrics_url), "grpc_server_started_total", **labels) == 0


def test_one_json_log_line_per_call_with_the_callers_request_id(
    server_factory, probe, log_stream
) -> None:
    running = server_factory(register=probe.register, log_sample=1)
    secret_hand = b"3S 4S 5S 6S 7S"
    with grpc.insecure_channel(running.address) as channel:
        probe.call(
            channel, "Echo", secret_hand, metadata=(("x-request-id", "req-42"),), timeout=TIMEOUT
        )
        probe.call(channel, "Echo", secret_hand, timeout=TIMEOUT)
        rpc_error(probe.call, channel, "Crash", timeout=TIMEOUT)
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)

    records = [r for r in json_lines(log_stream) if r.get("event") == "rpc"]
    # Health probes are counted but not logged at info (Kubernetes calls them every few seconds).
    assert [r["rpc"] for r in records] == [
        f"{PROBE_SERVICE}/Echo",
        f"{PROBE_SERVICE}/Echo",
        f"{PROBE_SERVICE}/Crash",
    ]
    for record in records:
        assert set(record) == {
            "event",
            "rpc",
            "code",
            "duration_ms",
            "request_id",
            "sampled",
            "level",
            "timestamp",
        }
        assert record["sampled"] == 1
        assert isinstance(record["duration_ms"], float)
        assert record["duration_ms"] >= 0
    first, second, crash = records
    assert (first["request_id"], first["code"], first["level"]) == ("req-42", "OK", "info")
    assert re.fullmatch(r"[0-9a-f]{32}", second["request_id"])
    assert (crash["code"], crash["level"]) == ("UNKNOWN", "error")
    assert "3S" not in log_stream.getvalue()


@pytest.mark.parametrize("request_id", ["x" * 129, "req 42", ""])
def test_an_unusable_request_id_is_replaced(server_factory, probe, log_stream, request_id) -> None:
    # README: 1-128 printable ASCII characters, no spaces; anything else gets a generated id.
    running = server_factory(register=probe.register, log_sample=1)
    with grpc.insecure_channel(running.address) as channel:
        probe.call(channel, "Echo", metadata=(("x-request-id", request_id),), timeout=TIMEOUT)
    (record,) = [r for r in json_lines(log_stream) if r.get("event") == "rpc"]
    assert re.fullmatch(r"[0-9a-f]{32}", record["request_id"])


# -- limits -------------------------------------------------------------------------------------


def test_an_oversized_request_is_resource_exhausted(server_factory, probe) -> None:
    """Over the limit, the service refuses the message unread and says why, with the limit (a
    client sizes its batches by it); past twice the limit, grpc refuses it, as bare."""
    running = server_factory(register=probe.register, max_request_bytes=1024)
    with grpc.insecure_channel(running.address) as channel:
        assert probe.call(channel, "Echo", b"x" * 1000, timeout=TIMEOUT) == b"x" * 1000
        error = rpc_error(probe.call, channel, "Echo", b"x" * 2000, timeout=TIMEOUT)
        far = rpc_error(probe.call, channel, "Echo", b"x" * 3000, timeout=TIMEOUT)
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    status = rpc_status.from_call(error)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, dict(info.metadata)) == (
        "REQUEST_TOO_LARGE",
        {"max_request_bytes": "1024"},
    )
    assert "2000 bytes" in status.message
    assert far.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_calls_beyond_the_concurrency_cap_are_resource_exhausted(server_factory, probe) -> None:
    cap = 2
    running = server_factory(register=probe.register, max_concurrent_rpcs=cap)
    refused: list[grpc.RpcError] = []
    admitted = []
    with grpc.insecure_channel(running.address) as channel:
        for _ in range(cap + 1):
            call = probe.open_hold(channel, timeout=TIMEOUT)
            try:
                assert next(call) == b"started"
                admitted.append(call)
            except grpc.RpcError as error:
                refused.append(error)
        assert refused, "every call was admitted past the cap"
        assert len(admitted) <= cap
        assert refused[0].code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        probe.release.set()
        for call in admitted:
            assert list(call) == [b"done"]
        # Capacity comes back once the calls are done.
        assert probe.call(channel, "Echo", b"again", timeout=TIMEOUT) == b"again"


def test_limits_and_keepalive_become_channel_arguments() -> None:
    options = dict(
        grpc_options(Config(max_request_bytes=4096, max_connection_age=120, keepalive_time=30))
    )
    # Twice the limit: up to it, the service refuses a message itself, saying why.
    assert options["grpc.max_receive_message_length"] == 2 * 4096
    assert options["grpc.max_connection_age_ms"] == 120_000
    assert options["grpc.max_connection_age_grace_ms"] == 30_000
    assert options["grpc.keepalive_time_ms"] == 30_000
    assert options["grpc.so_reuseport"] == 0
    assert "grpc.max_connection_age_ms" not in dict(grpc_options(Config(max_connection_age=0)))
    assert dict(grpc_options(Config(reuse_port=True)))["grpc.so_reuseport"] == 1


def test_a_taken_port_fails_loudly(server_factory, probe) -> None:
    from tienlen_service.server import Server

    running = server_factory(register=probe.register)
    port = int(running.address.rsplit(":", 1)[1])
    clash = Server(
        Config(host="127.0.0.1", port=port, metrics_port=None, web_port=None),
        register=type(probe)().register,
    )
    with pytest.raises(OSError, match="could not bind"):
        clash.start()


# -- TLS ----------------------------------------------------------------------------------------


def _cert(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[x509.Name, Any] | None, ca: bool
) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    issuer_name, issuer_key = issuer if issuer is not None else (name, key)
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(obj: Any) -> bytes:
    if isinstance(obj, x509.Certificate):
        return obj.public_bytes(serialization.Encoding.PEM)
    return obj.private_bytes(  # type: ignore[no-any-return]
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> dict[str, Path]:
    """A throw-away CA, a server certificate for 127.0.0.1 and a client certificate."""
    out = tmp_path_factory.mktemp("pki")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("test CA", ca_key, None, ca=True)
    files: dict[str, Path] = {}
    files["ca"] = out / "ca.pem"
    files["ca"].write_bytes(_pem(ca))
    for role in ("server", "client"):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _cert(f"{role}.test", key, (ca.subject, ca_key), ca=False)
        files[f"{role}_cert"] = out / f"{role}.pem"
        files[f"{role}_key"] = out / f"{role}.key"
        files[f"{role}_cert"].write_bytes(_pem(cert))
        files[f"{role}_key"].write_bytes(_pem(key))
    return files


def _creds(pki: dict[str, Path], *, client_cert: bool) -> grpc.ChannelCredentials:
    if not client_cert:
        return grpc.ssl_channel_credentials(root_certificates=pki["ca"].read_bytes())
    return grpc.ssl_channel_credentials(
        root_certificates=pki["ca"].read_bytes(),
        private_key=pki["client_key"].read_bytes(),
        certificate_chain=pki["client_cert"].read_bytes(),
    )


def _tls_server(server_factory, probe, pki, *, mutual: bool) -> Any:
    # server_factory waits on health over plaintext; a TLS server is started directly.
    from tienlen_service.server import Server

    server = Server(
        Config(
            host="127.0.0.1",
            port=0,
            metrics_port=None,
            web_port=None,
            tls_cert=str(pki["server_cert"]),
            tls_key=str(pki["server_key"]),
            tls_client_ca=str(pki["ca"]) if mutual else None,
        ),
        register=probe.register,
    )
    server.start()
    return server


def test_tls_serves_clients_that_trust_the_ca(server_factory, probe, pki, wait_for_serving) -> None:
    server = _tls_server(server_factory, probe, pki, mutual=False)
    try:
        address = f"127.0.0.1:{server.port}"
        wait_for_serving(address, credentials=_creds(pki, client_cert=False))
        with grpc.secure_channel(address, _creds(pki, client_cert=False)) as channel:
            assert probe.call(channel, "Echo", b"tls", timeout=TIMEOUT) == b"tls"
        with grpc.insecure_channel(address) as plain:
            error = rpc_error(probe.call, plain, "Echo", b"x", timeout=TIMEOUT)
            assert error.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0)


def test_mutual_tls_refuses_a_client_without_a_certificate(
    server_factory, probe, pki, wait_for_serving
) -> None:
    server = _tls_server(server_factory, probe, pki, mutual=True)
    try:
        address = f"127.0.0.1:{server.port}"
        wait_for_serving(address, credentials=_creds(pki, client_cert=True))
        with grpc.secure_channel(address, _creds(pki, client_cert=True)) as channel:
            assert probe.call(channel, "Echo", b"mtls", timeout=TIMEOUT) == b"mtls"
        with grpc.secure_channel(address, _creds(pki, client_cert=False)) as anonymous:
            error = rpc_error(probe.call, anonymous, "Echo", b"x", timeout=TIMEOUT)
            assert error.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0)


# -- the process: start-up, SIGTERM drain, exit status ------------------------------------------

PROBE_MAIN = """
import sys
sys.path.insert(0, "tests")
from conftest import ProbeService
from tienlen_service.__main__ import main
sys.exit(main(sys.argv[1:], register=ProbeService().register))
"""


def test_sigterm_lets_the_calls_in_flight_finish_then_exits_0(process_factory, probe) -> None:
    process = process_factory("--log-sample=1", "--grace=15", script=PROBE_MAIN)
    address = process.start_and_wait()
    calls_in_flight = 4
    with grpc.insecure_channel(address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(), timeout=TIMEOUT
        )
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        # Each call is inside the servicer (it has sent "started") and takes 1.5 s more.
        calls = [probe.open_hold(channel, b"1500", timeout=TIMEOUT) for _ in range(calls_in_flight)]
        for call in calls:
            assert next(call) == b"started"

        process.terminate()

        # The drain announces itself on the health service first ...
        assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
        watch.cancel()
        # ... and no call in flight fails.
        for call in calls:
            assert list(call) == [b"done"]
            assert call.code() is grpc.StatusCode.OK
    assert process.wait() == 0
    events = [r.get("event") for r in process.records()]
    assert events.index("shutdown_requested") < events.index("draining") < events.index("stopped")
    (requested,) = [r for r in process.records() if r.get("event") == "shutdown_requested"]
    assert requested["signal"] == "SIGTERM"
    # One canonical line per call, each with its outcome.
    holds = [r for r in process.records() if r.get("rpc") == f"{PROBE_SERVICE}/Hold"]
    assert [r["code"] for r in holds] == ["OK"] * calls_in_flight


def test_the_service_module_starts_serves_and_drains_on_sigterm(process_factory) -> None:
    from tienlen.v1 import service_pb2, service_pb2_grpc

    # Every call logged (--log-sample 1): the lines are counted against the client's answers.
    process = process_factory("--keys", KEYS, "--deployment", "test-deploy", "--log-sample", "1")
    address = process.start_and_wait()
    serving = process.wait_for_event("serving")
    assert serving["key_ids"] == ["test-kid"]
    assert serving["deployment"] == "test-deploy"
    assert serving["metrics_port"] is None  # --metrics-port 0 turns the exporter off

    codes: list[grpc.StatusCode] = []
    lock = threading.Lock()
    stop = threading.Event()

    def traffic() -> None:
        with grpc.insecure_channel(address) as channel:
            stub = service_pb2_grpc.TienLenEngineStub(channel)
            for _ in range(2000):  # bounded; normally ends when the port closes
                if stop.is_set():
                    return
                try:
                    stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=TIMEOUT)
                    code = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    code = error.code()
                with lock:
                    codes.append(code)
                if code is grpc.StatusCode.UNAVAILABLE:
                    return

    threads = [threading.Thread(target=traffic) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        process.wait_for_event("rpc")
        process.terminate()
        assert process.wait() == 0
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=TIMEOUT)
    handled = [r for r in process.records() if r.get("event") == "rpc"]
    # Every call that reached the engine finished OK, and the client got each of those answers.
    assert handled
    assert {r["code"] for r in handled} == {"OK"}
    assert codes.count(grpc.StatusCode.OK) == len(handled)
    # The others never reached a worker: refused once the port had closed (UNAVAILABLE), or
    # queued inside grpcio when it closed (CANCELLED) - both safe to retry, as every RPC is pure.
    assert set(codes) <= {
        grpc.StatusCode.OK,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
    }
    assert SECRET not in "".join(process.lines)


def test_a_drain_delay_keeps_serving_while_health_says_not_serving(
    server_factory, probe, log_stream
) -> None:
    # A delay far longer than the test: the port must still answer after NOT_SERVING however
    # slow the machine; the test then ends the delay itself (no waiting out a margin).
    running = server_factory(register=probe.register)
    stopper = threading.Thread(target=running.handle.stop, kwargs={"grace": 5, "drain_delay": 600})
    with grpc.insecure_channel(running.address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(), timeout=TIMEOUT
        )
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        stopper.start()
        assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
        # Within the delay the port still answers: clients that ignore health lose nothing.
        assert probe.call(channel, "Echo", b"still here", timeout=TIMEOUT) == b"still here"
        running.handle.end_drain_delay()
        stopper.join(TIMEOUT)
        assert not stopper.is_alive()
        watch.cancel()
    events = [r.get("event") for r in json_lines(log_stream)]
    assert events.index("not_serving") < events.index("draining") < events.index("stopped")


def test_no_keys_means_a_generated_key_and_a_loud_warning(process_factory) -> None:
    process = process_factory()
    process.start_and_wait()
    warning = process.wait_for_event("generated_key")
    assert warning["level"] == "warning"
    assert warning["kid"].startswith("local-")
    process.terminate()
    assert process.wait() == 0


def test_bad_keys_stop_the_start_with_exit_1_and_no_secret_in_the_output(process_factory) -> None:
    process = process_factory("--keys", "k:" + "A" * 8)  # 6 bytes: too short
    assert process.wait() == 1
    failed = process.wait_for_event("startup_failed")
    assert "at least 16" in failed["error"]
    assert "AAAAAAAA" not in "".join(process.lines)


def test_a_sigterm_right_after_start_up_still_drains(process_factory) -> None:
    # The handlers are installed before the port opens: a signal sent the instant the server
    # says "serving" must not meet Python's default action (death, exit -15).
    process = process_factory(script=PROBE_MAIN)
    process.wait_for_event("serving")
    process.terminate()
    assert process.wait() == 0
    assert process.wait_for_event("stopped")


def test_sigint_drains_too(process_factory) -> None:
    import signal

    process = process_factory(script=PROBE_MAIN)
    process.start_and_wait()
    process.proc.send_signal(signal.SIGINT)
    assert process.wait() == 0
    assert process.wait_for_event("shutdown_requested")["signal"] == "SIGINT"


def test_a_second_ctrl_c_stops_at_once_with_a_log_line_not_a_traceback(process_factory) -> None:
    import signal

    process = process_factory("--drain-delay", "600")
    process.start_and_wait()
    process.proc.send_signal(signal.SIGINT)
    process.wait_for_event("not_serving")  # draining: the delay has begun
    process.proc.send_signal(signal.SIGINT)
    assert process.wait() == 130
    assert process.wait_for_event("stop_interrupted")["level"] == "warning"
    assert not any("Traceback" in line for line in process.lines)


def _signal_a_thread_other_than_main(pid: int, signum: int) -> None:
    """What the kernel may do with a signal sent to the process: hand it to any thread that
    doesn't block it (a grpc core thread, a pool's worker), not to the main one."""
    import ctypes
    import platform

    tids = sorted(int(t.name) for t in Path(f"/proc/{pid}/task").iterdir() if int(t.name) != pid)
    assert tids, "the server runs threads beside its main one"
    sys_tgkill = {"x86_64": 234, "aarch64": 131}[platform.machine()]
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.syscall(sys_tgkill, pid, tids[-1], signum) == 0, ctypes.get_errno()


def test_a_second_ctrl_c_stops_at_once_whichever_thread_the_kernel_hands_it_to(
    process_factory,
) -> None:
    import signal

    process = process_factory("--drain-delay", "600")
    process.start_and_wait()
    _signal_a_thread_other_than_main(process.proc.pid, signal.SIGINT)
    process.wait_for_event("not_serving")
    _signal_a_thread_other_than_main(process.proc.pid, signal.SIGINT)
    assert process.wait() == 130
    assert process.wait_for_event("stop_interrupted")["level"] == "warning"


# -- configuration ------------------------------------------------------------------------------


def test_flags_override_environment_which_overrides_defaults() -> None:
    env = {"TIENLEN_PORT": "6000", "TIENLEN_WORKERS": "8", "TIENLEN_SEAL": "yes"}
    config, _ = parse_config([], env)
    assert (config.port, config.workers, config.seal) == (6000, 8, True)
    config, _ = parse_config(["--port", "7000", "--no-seal"], env)
    assert (config.port, config.workers, config.seal) == (7000, 8, False)
    default, _ = parse_config([], {})
    assert default == Config()
    assert (default.port, default.metrics_port, default.grace) == (50051, 9464, 10.0)


def test_every_setting_has_a_flag_and_an_environment_variable() -> None:
    env = {
        "TIENLEN_HOST": "127.0.0.2",
        "TIENLEN_METRICS_HOST": "127.0.0.3",
        "TIENLEN_METRICS_PORT": "0",
        "TIENLEN_KEYS": KEYS,
        "TIENLEN_DEPLOYMENT": "prod-eu",
        "TIENLEN_REQUIRE_SEALED": "1",
        "TIENLEN_REQUIRE_SEAT_TOKENS": "on",
        "TIENLEN_MAX_CONCURRENT_RPCS": "10",
        "TIENLEN_MAX_REQUEST_BYTES": "2048",
        "TIENLEN_MAX_CONNECTION_AGE": "0",
        "TIENLEN_MAX_CONNECTION_AGE_GRACE": "5",
        "TIENLEN_KEEPALIVE_TIME": "15",
        "TIENLEN_KEEPALIVE_TIMEOUT": "5",
        "TIENLEN_MIN_PING_INTERVAL": "1",
        "TIENLEN_REUSE_PORT": "true",
        "TIENLEN_DRAIN_DELAY": "2.5",
        "TIENLEN_SHUTDOWN_GRACE": "20",
        "TIENLEN_LOG_LEVEL": "debug",
        "TIENLEN_LOG_FORMAT": "console",
    }
    config, _ = parse_config([], env)
    assert config == Config(
        host="127.0.0.2",
        metrics_host="127.0.0.3",
        metrics_port=None,
        keys=KEYS,
        deployment="prod-eu",
        require_sealed=True,
        require_seat_tokens=True,
        max_concurrent_rpcs=10,
        max_request_bytes=2048,
        max_connection_age=0,
        max_connection_age_grace=5,
        keepalive_time=15,
        keepalive_timeout=5,
        min_ping_interval=1,
        reuse_port=True,
        drain_delay=2.5,
        grace=20,
        log_level="debug",
        log_format="console",
    )
    assert SECRET not in repr(config)
    assert {opt.dest for opt in OPTIONS} == set(Config.__dataclass_fields__)


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--port", "70000"], {}, "not a port"),
        ([], {"TIENLEN_PORT": "http"}, "TIENLEN_PORT"),
        ([], {"TIENLEN_SEAL": "maybe"}, "not a boolean"),
        (["--workers", "0"], {}, "at least 1"),
        (["--log-format", "xml"], {}, "invalid choice"),
        ([], {"TIENLEN_LOG_LEVEL": "loud"}, "choose from"),
        (["--tls-cert", "c.pem"], {}, "both --tls-cert and --tls-key"),
        (["--tls-client-ca", "ca.pem"], {}, "mutual TLS"),
        (["--keys", KEYS, "--keys-file", "k.txt"], {}, "not both"),
        (["--grace", "-1"], {}, "seconds"),
        (["--deployment", "prod eu"], {}, "deployment id"),
        ([], {"TIENLEN_DEPLOYMENT": "x" * 65}, "deployment id"),
    ],
)
def test_bad_settings_exit_2_with_a_message(argv, env, message, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_config(argv, env)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_generate_key_prints_a_usable_entry(capsys) -> None:
    from tienlen_service.__main__ import main
    from tienlen_service.tokens import KeyRing

    assert main(["--generate-key", "prod-1"]) == 0
    entry = capsys.readouterr().out.strip()
    assert KeyRing.from_spec(entry).kids == ("prod-1",)


def test_the_operations_configuration_table_lists_every_flag_and_variable() -> None:
    readme = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    for opt in OPTIONS:
        assert f"`{opt.flag}`" in readme, opt.flag
        assert f"`{opt.env}`" in readme, opt.env


def test_the_console_script_and_module_share_one_entry_point() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tienlen-service"] == "tienlen_service.__main__:main"
