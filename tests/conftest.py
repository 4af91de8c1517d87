"""Fixtures that start real servers on loopback: in-process (`server_factory`) or as a process.

Every server binds 127.0.0.1 port 0 and is waited for on its health service (a Watch stream
that returns as soon as it says SERVING) — never by sleeping.

    def test_something(server_factory):
        running = server_factory(seal=True, require_seat_tokens=True)
        with grpc.insecure_channel(running.address) as channel: ...
        running.metrics_url   # http://127.0.0.1:PORT/metrics
        running.handle        # the tienlen_service.server.Server

Keyword arguments are `tienlen_service.config.Config` fields, plus `keyring=` (share keys
between servers) and `register=` (services to serve instead of the engine).

`ProbeService` (the `probe` fixture) is a tiny service of the runtime tests
(tienlen.test.Probe): it answers with the request, aborts, crashes, or holds a call open —
what the runtime's behaviour (codes, drain, limits) is tested with, independently of the
engine. Test modules reach these helpers through fixtures, never `from conftest import`:
several conftest.py files share that module name.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.deadlines import STARTUP_TIMEOUT
from helpers.dealing import DEAL_KEY_FILE

from tienlen_service.config import Config
from tienlen_service.logs import configure_logging, reset_logging
from tienlen_service.metrics import Metrics
from tienlen_service.server import Server, register_engine
from tienlen_service.tokens import KeyRing, TokenCodec

ROOT = Path(__file__).resolve().parent.parent
#: Every listener a test server opens: loopback, and port 0 (a free port) for gRPC; the
#: metrics exporter and the web port off unless a test asks (`--metrics-port 0`/`--web-port 0`
#: turn them off; from code, `metrics_port=0` picks a free port). Never a default port: 9464
#: or 8080 may be held by another process on the machine.
LISTENERS = ("--host", "127.0.0.1", "--port", "0", "--metrics-port", "0", "--web-port", "0")

PROBE_SERVICE = "tienlen.test.Probe"


class RunningServer(NamedTuple):
    """A started server: where to call it, where to scrape it, and the handle to stop it."""

    address: str
    metrics_url: str | None
    handle: Any


def wait_for_serving(
    address: str,
    service: str = "",
    *,
    timeout: float = STARTUP_TIMEOUT,
    credentials: grpc.ChannelCredentials | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> None:
    """Block until `address` reports SERVING for `service` (a Health.Watch stream; no polling)."""
    channel = (
        grpc.secure_channel(address, credentials, options=options)
        if credentials is not None
        else grpc.insecure_channel(address, options=options)
    )
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        stream = stub.Watch(
            health_pb2.HealthCheckRequest(service=service), timeout=timeout, wait_for_ready=True
        )
        try:
            for update in stream:
                if update.status == health_pb2.HealthCheckResponse.SERVING:
                    return
        finally:
            stream.cancel()
    raise AssertionError(f"{address} closed the health stream before SERVING")


# --------------------------------------------------------------------------------------------
# The probe service


@dataclass
class ProbeService:
    """Raw-bytes methods for testing the runtime (not the engine).

    - Echo: answers the request bytes.
    - Hold: unary-stream; sends b"started", then waits until `release` is set (in-process) or
      for the number of milliseconds written in the request (in a child process), then b"done".
    - Abort / AbortWithStatus / Crash / SetCode: end with INVALID_ARGUMENT, FAILED_PRECONDITION
      (rich status), an exception (UNKNOWN), or set_code(NOT_FOUND) and a normal return.
    - Parse: its request is a grpc.health.v1.HealthCheckRequest (a real protobuf message, so
      bytes that don't parse can be sent to it).
    - Chat (bidi: each message back in capitals) and Total (client stream: the concatenation).
    """

    NAME: ClassVar[str] = PROBE_SERVICE

    release: threading.Event = field(default_factory=threading.Event)
    started: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))

    @staticmethod
    def call(channel: grpc.Channel, method: str, request: bytes = b"", **kwargs: Any) -> Any:
        """Call a unary method of the probe service with raw bytes."""
        return channel.unary_unary(f"/{PROBE_SERVICE}/{method}", None, None)(request, **kwargs)

    @staticmethod
    def open_hold(channel: grpc.Channel, request: bytes = b"", **kwargs: Any) -> Any:
        """Open a Hold call (an iterator of b"started", b"done")."""
        return channel.unary_stream(f"/{PROBE_SERVICE}/Hold", None, None)(request, **kwargs)

    def echo(self, request: bytes, _context: grpc.ServicerContext) -> bytes:
        return request

    def hold(self, request: bytes, _context: grpc.ServicerContext) -> Iterator[bytes]:
        self.started.release()
        yield b"started"
        if request:
            time.sleep(int(request) / 1000.0)  # a call that takes this long: the drain's subject
        else:
            self.release.wait(STARTUP_TIMEOUT)
        yield b"done"

    def abort(self, _request: bytes, context: grpc.ServicerContext) -> bytes:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "probe abort")

    def abort_with_status(self, _request: bytes, context: grpc.ServicerContext) -> bytes:
        from google.rpc import code_pb2, error_details_pb2, status_pb2
        from grpc_status import rpc_status

        status = status_pb2.Status(code=code_pb2.FAILED_PRECONDITION, message="probe rich abort")
        status.details.add().Pack(
            error_details_pb2.ErrorInfo(reason="PROBE_REASON", domain="tienlen.v1")
        )
        context.abort_with_status(rpc_status.to_status(status))

    def crash(self, _request: bytes, _context: grpc.ServicerContext) -> bytes:
        raise ValueError("probe crash")

    def set_code(self, _request: bytes, context: grpc.ServicerContext) -> bytes:
        context.set_code(grpc.StatusCode.NOT_FOUND)
        context.set_details("probe not found")
        return b""

    def parse(self, request: Any, _context: grpc.ServicerContext) -> bytes:
        return request.SerializeToString()  # type: ignore[no-any-return]

    def chat(self, requests: Iterator[bytes], _context: grpc.ServicerContext) -> Iterator[bytes]:
        for request in requests:
            yield request.upper()

    def total(self, requests: Iterator[bytes], _context: grpc.ServicerContext) -> bytes:
        return b"".join(requests)

    def handler(self) -> grpc.GenericRpcHandler[Any, Any]:
        return grpc.method_handlers_generic_handler(
            PROBE_SERVICE,
            {
                "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
                "Hold": grpc.unary_stream_rpc_method_handler(self.hold),
                "Abort": grpc.unary_unary_rpc_method_handler(self.abort),
                "AbortWithStatus": grpc.unary_unary_rpc_method_handler(self.abort_with_status),
                "Crash": grpc.unary_unary_rpc_method_handler(self.crash),
                "SetCode": grpc.unary_unary_rpc_method_handler(self.set_code),
                "Parse": grpc.unary_unary_rpc_method_handler(
                    self.parse, request_deserializer=health_pb2.HealthCheckRequest.FromString
                ),
                "Chat": grpc.stream_stream_rpc_method_handler(self.chat),
                "Total": grpc.stream_unary_rpc_method_handler(self.total),
            },
        )

    def register(
        self, server: grpc.Server, tokens: TokenCodec, metrics: Metrics, config: Config
    ) -> Sequence[str]:
        """A `Server` registrar: the probe, plus the engine when its servicer exists."""
        server.add_generic_rpc_handlers((self.handler(),))
        return (PROBE_SERVICE, *engine_if_available(server, tokens, metrics, config))


def engine_if_available(
    server: grpc.Server, tokens: TokenCodec, metrics: Metrics, config: Config
) -> Sequence[str]:
    """Register the engine servicer if the module exists yet (it is built in parallel)."""
    try:
        import tienlen_service.servicer  # noqa: F401
    except ImportError:
        return ()
    return register_engine(server, tokens, metrics, config)


# --------------------------------------------------------------------------------------------
# In-process servers


@pytest.fixture
def server_factory() -> Iterator[Callable[..., RunningServer]]:
    """Start in-process servers on 127.0.0.1:0 (metrics on a free port); stopped after the test."""
    servers: list[Server] = []

    def start(
        *,
        keyring: KeyRing | None = None,
        register: Callable[..., Sequence[str]] | None = None,
        **settings: Any,
    ) -> RunningServer:
        settings.setdefault("host", "127.0.0.1")
        settings.setdefault("port", 0)
        settings.setdefault("metrics_port", 0)
        settings.setdefault("web_port", None)  # tests of the web port ask for one (0: free)
        settings.setdefault("grace", 2.0)
        if settings.get("require_seat_tokens"):
            # Seeded and explicit deals are the host's (helpers/dealing.py): the test is it.
            settings.setdefault("deal_key_file", str(DEAL_KEY_FILE))
        server = Server(Config(**settings), keyring=keyring, register=register)
        server.start()
        servers.append(server)
        wait_for_serving(server.address)
        metrics_port = server.metrics_port
        metrics_url = None if metrics_port is None else f"http://127.0.0.1:{metrics_port}/metrics"
        return RunningServer(server.address, metrics_url, server)

    yield start
    for server in servers:
        server.stop(0, 0)


@pytest.fixture(name="wait_for_serving")
def wait_for_serving_fixture() -> Callable[..., None]:
    """`wait_for_serving(address, service="", credentials=None)` for tests (test modules can't
    import from conftest: several conftest.py files share that module name)."""
    return wait_for_serving


@pytest.fixture
def probe() -> Iterator[ProbeService]:
    """A probe service; whatever it holds is released at the end of the test."""
    service = ProbeService()
    yield service
    service.release.set()


# --------------------------------------------------------------------------------------------
# Servers in a child process


class ServerProcess:
    """`python -m tienlen_service` (or a given script) as a child process, JSON logs collected."""

    def __init__(self, args: Sequence[str], env: dict[str, str] | None = None) -> None:
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        for name in [k for k in full_env if k.startswith("TIENLEN_") and k not in (env or {})]:
            del full_env[name]  # the caller's shell settings must not leak into a test
        self.proc = subprocess.Popen(  # our own interpreter and module
            [sys.executable, *args],
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port: int | None = None

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def records(self) -> list[dict[str, Any]]:
        """Every stdout line that is a JSON object (the log records)."""
        out = []
        for line in list(self.lines):
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    out.append(record)
        return out

    def wait_for_event(
        self, event: str, timeout: float = STARTUP_TIMEOUT, **fields: Any
    ) -> dict[str, Any]:
        """The first log record with this event name and these `fields` (reading as lines
        arrive)."""

        def wanted(record: dict[str, Any]) -> bool:
            return record.get("event") == event and all(
                record.get(k) == v for k, v in fields.items()
            )

        for record in self.records():
            if wanted(record):
                return record
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                break
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and wanted(record):
                    return record
        output = "".join(self.lines)
        raise AssertionError(f"no {event!r} log line within {timeout} s; output:\n{output}")

    def start_and_wait(self) -> str:
        """Wait for the "serving" line and for SERVING on health; return host:port."""
        record = self.wait_for_event("serving")
        self.port = int(record["port"])
        address = f"127.0.0.1:{self.port}"
        wait_for_serving(address)
        return address

    def terminate(self) -> None:
        """Send SIGTERM."""
        self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = STARTUP_TIMEOUT) -> int:
        """Wait for the exit status (and for the output to be read to its end)."""
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        return code

    def kill(self) -> None:
        """SIGKILL if still running."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=STARTUP_TIMEOUT)


@pytest.fixture
def process_factory() -> Iterator[Callable[..., ServerProcess]]:
    """Start `python -m tienlen_service ARGS` (or `python -c script ARGS`, a main of its own)
    with `LISTENERS` (loopback, port 0, no metrics or web port unless ARGS ask) and JSON logs;
    killed after."""
    started: list[ServerProcess] = []

    def start(
        *args: str, env: dict[str, str] | None = None, script: str | None = None
    ) -> ServerProcess:
        program = ["-m", "tienlen_service"] if script is None else ["-c", script]
        process = ServerProcess([*program, *LISTENERS, "--log-format", "json", *args], env=env)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


@pytest.fixture
def command_factory() -> Iterator[Callable[..., ServerProcess]]:
    """Start `python ARGS` (a script of the repository that runs a server, e.g.
    ``scripts/image.py run IMAGE``) with its output collected as for `process_factory`; after
    the test, SIGTERM (which such a script passes on to its server), SIGKILL only if that does
    not end it."""
    started: list[ServerProcess] = []

    def start(*args: str) -> ServerProcess:
        process = ServerProcess(list(args))
        started.append(process)
        return process

    yield start
    for process in started:
        if process.proc.poll() is None:
            process.terminate()
            try:
                process.wait()
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def server_metrics() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every metric a server registers (its `Metrics`, its web port's `WebMetrics` and
    `WebConnectionMetrics`): its
    name (without the `_total` a counter is exposed with) -> (type, label names). What the docs
    and dashboards are checked against."""
    from prometheus_client.metrics import MetricWrapperBase

    from tienlen_service.metrics import Metrics, WebConnectionMetrics, WebMetrics
    from tienlen_service.web.guard import REASONS

    metrics = Metrics()
    sources = (
        metrics,
        WebMetrics(metrics.registry),
        WebConnectionMetrics(metrics.registry, REASONS),
    )
    found = {
        metric._name: (metric._type, tuple(metric._labelnames))
        for source in sources
        for metric in vars(source).values()
        if isinstance(metric, MetricWrapperBase)
    }
    # The families the service exports from collectors of its own (the standard gRPC series,
    # the in-flight gauge), as they describe themselves to the registry.
    for collector in list(metrics.registry._collector_to_names):
        if not type(collector).__module__.startswith("tienlen_service.metrics"):
            continue  # prometheus_client's own (the wrappers above, process and platform)
        for family in collector.describe():
            found[family.name] = (family.type, tuple(getattr(family, "_labelnames", ())))
    return found


@pytest.fixture
def log_stream() -> Any:
    """JSON logs into a buffer for the test; the default configuration is restored after."""
    stream = io.StringIO()
    configure_logging("info", "json", stream)
    yield stream
    reset_logging()
