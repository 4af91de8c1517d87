"""The gRPC server: the engine servicer wired with health, reflection, metrics, logs and limits.

`Server` is a small class around `grpc.server` (in the shape of MLServer's): build it from a
`Config`, `start()`, `wait()`, `stop(grace)`. Shutdown is the Kubernetes-friendly sequence:
health goes NOT_SERVING (so probes and health-checking clients move away), the port stops
accepting calls, the calls in flight get `grace` seconds to finish, then the process exits 0.
"""

from __future__ import annotations

import resource
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Self, TypeAlias

import grpc
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tienlen_service.budget import HEALTH_SERVICE, WorkerPools
from tienlen_service.draining import DrainingHealthServicer, StreamCloser
from tienlen_service.handlers import HandlerRecorder, wrapped_by
from tienlen_service.keys import DealKey
from tienlen_service.logs import AccessLog, get_logger
from tienlen_service.metrics import Metrics
from tienlen_service.metrics_server import MetricsServer, start_metrics_server
from tienlen_service.observability import CallObserver
from tienlen_service.reflection import enable_reflection
from tienlen_service.tokens import KeyConfigError, KeyRing, TokenCodec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from tienlen_service.config import Config
    from tienlen_service.web.serve import WebServer

    Registrar: TypeAlias = Callable[[grpc.Server, TokenCodec, Metrics, Config], Sequence[str]]
    """Registers services on a grpc server; returns their full names (health, reflection)."""
    _Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]

#: The long-lived streams a drain ends when the port closes (tienlen_service.draining).
CLOSED_ON_DRAIN: Final = ("/tienlen.v1.TienLenEngine/PlayStream",)


#: Open files kept for everything but the web port's connections (the gRPC port's connections,
#: the metrics port, logs, the interpreter's own files) before the rest is shared: the web port
#: holds at most half of what remains, so one client filling it never starves the gRPC port.
FD_RESERVE: Final = 64
#: The most the soft open-file limit is raised to when the hard limit is unlimited.
_NOFILE_CEILING: Final = 1 << 20


class PublishedKeyError(KeyConfigError):
    """The configured keys include the published example key, and this is no dev run."""


def version() -> str:
    """The installed package version (or "0+unknown" when running from a bare checkout)."""
    try:
        return metadata.version("tienlen-service")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def register_engine(
    server: grpc.Server, tokens: TokenCodec, metrics: Metrics, config: Config
) -> Sequence[str]:
    """Register the Tiến Lên engine servicer (the contract engineer's `servicer` module)."""
    from tienlen_service import registration, searches, servicer

    engine = servicer.TienLenServicer(
        tokens=tokens,
        metrics=metrics,
        require_seat_tokens=config.require_seat_tokens,
        deal_key=load_deal_key(config),
        max_streams=servicer.stream_slots(config.workers),
        max_searches=searches.search_slots(config.workers),
        max_request_bytes=config.max_request_bytes,
    )
    registration.add_to_server(engine, server)
    return (servicer.SERVICE_NAME,)


def load_keyring(config: Config) -> KeyRing:
    """The key ring from --keys or --keys-file; a generated one (logged loudly) without either."""
    if config.keys is not None:
        return KeyRing.from_spec(config.keys)
    if config.keys_file is not None:
        return KeyRing.from_file(config.keys_file)
    return KeyRing.generate()


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit (RLIMIT_NOFILE) to its hard limit, where the
    system allows it; returns the soft limit in force after (a container's default soft
    limit is often 1,024, its hard limit far higher)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _NOFILE_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return _NOFILE_CEILING if soft == resource.RLIM_INFINITY else soft


def connection_cap(configured: int, open_files: int) -> int:
    """A port's connection cap: `configured` (--max-connections for the gRPC port,
    --web-max-connections for the web port), but never more than half of the open files left
    after `FD_RESERVE`: each port has its half, so idle connections filling one never take the
    descriptors the other, the metrics port and the logs need."""
    return max(1, min(configured, (open_files - FD_RESERVE) // 2))


web_connection_cap = connection_cap
"""The web port's cap (`connection_cap` of --web-max-connections)."""


def load_deal_key(config: Config) -> DealKey | None:
    """The host's deal key from --deal-key-file, None without one (docs/SECURITY.md)."""
    return None if config.deal_key_file is None else DealKey.from_file(config.deal_key_file)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def grpc_options(config: Config, open_files: int = _NOFILE_CEILING) -> list[tuple[str, Any]]:
    """The channel arguments that carry the limits and keepalive settings of `config`: the
    connections the port holds (`connection_cap` of `open_files`; gRPC core closes one more as
    it is accepted) and how long a new one has to finish its handshake (gRPC core's default
    of 120 s let idle sockets hold the port)."""
    options: list[tuple[str, Any]] = [
        # Twice the limit: a message up to it is refused by the call observer, with a status
        # that says why and the limit, and counted and logged as RESOURCE_EXHAUSTED (grpc's own
        # refusal ends the call before the handler, which sees a cancelled call); a larger one
        # is still refused by grpc, unread.
        ("grpc.max_receive_message_length", 2 * config.max_request_bytes),
        (
            "grpc.max_allowed_incoming_connections",
            connection_cap(config.max_connections, open_files),
        ),
        ("grpc.server_handshake_timeout_ms", _ms(config.handshake_timeout)),
        ("grpc.keepalive_time_ms", _ms(config.keepalive_time)),
        ("grpc.keepalive_timeout_ms", _ms(config.keepalive_timeout)),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", _ms(config.min_ping_interval)),
        ("grpc.http2.min_ping_interval_without_data_ms", _ms(config.min_ping_interval)),
        # Without SO_REUSEPORT a second server on a taken port fails loudly instead of silently
        # sharing it; with --reuse-port several processes share one port on purpose.
        ("grpc.so_reuseport", 1 if config.reuse_port else 0),
    ]
    if config.max_connection_age > 0:
        options += [
            ("grpc.max_connection_age_ms", _ms(config.max_connection_age)),
            ("grpc.max_connection_age_grace_ms", _ms(config.max_connection_age_grace)),
        ]
    return options


def _server_credentials(config: Config) -> grpc.ServerCredentials:
    assert config.tls_cert is not None  # checked by Config
    assert config.tls_key is not None
    cert = Path(config.tls_cert).read_bytes()
    key = Path(config.tls_key).read_bytes()
    client_ca = Path(config.tls_client_ca).read_bytes() if config.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [(key, cert)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


def _hosts_shown(hosts: frozenset[str] | None) -> list[str]:
    return ["*"] if hosts is None else sorted(hosts)


def _method_types(service: str) -> dict[str, str]:
    """Method name -> grpc_type of a service known to the protobuf descriptor pool."""
    try:
        desc = descriptor_pool.Default().FindServiceByName(service)
    except KeyError:
        return {}
    kinds = {
        (False, False): "unary",
        (False, True): "server_stream",
        (True, False): "client_stream",
        (True, True): "bidi_stream",
    }
    return {m.name: kinds[m.client_streaming, m.server_streaming] for m in desc.methods}


@dataclass(frozen=True, slots=True)
class _Bound:
    grpc_port: int
    metrics: MetricsServer | None
    web: WebServer | None = None


class Server:
    """The running service: one gRPC port, one /metrics port, health and reflection.

    `register` adds the services (default: the engine servicer); tests pass their own.
    `keyring` overrides the configured keys (tests share one ring between servers).
    """

    def __init__(
        self,
        config: Config,
        *,
        keyring: KeyRing | None = None,
        metrics: Metrics | None = None,
        register: Registrar | None = None,
    ) -> None:
        self.config = config
        self.log = get_logger("tienlen.server")
        self.keyring = keyring if keyring is not None else load_keyring(config)
        if self.keyring.published_kids and not config.dev:
            raise PublishedKeyError(
                f"key {self.keyring.published_kids[0]!r} is the example key published in this "
                "repository (anyone can forge tokens with it): make your own with "
                "--generate-key, or pass --dev for a development run"
            )
        self.tokens = TokenCodec(
            self.keyring,
            seal=config.seal,
            deployment=config.deployment,
            require_sealed=config.require_sealed,
            max_age=config.max_token_age,
        )
        self.metrics = metrics if metrics is not None else Metrics()
        self.metrics.build_info.labels(version()).set(1)
        self._register = register if register is not None else register_engine
        # One access log for both ports: the same sampling and slow-call rule (observability).
        self.access_log = AccessLog(sample=config.log_sample, slow_ms=config.log_slow_ms)
        # Each kind of call on its own threads: streams, hints and health never take the
        # --workers threads of the other calls, nor one another's (budget.py).
        self._pools = WorkerPools(config.workers)
        self.health = DrainingHealthServicer(
            experimental_non_blocking=True, experimental_thread_pool=self._pools.health
        )
        self._streams = StreamCloser(CLOSED_ON_DRAIN)
        # What every handler of the gRPC port is wrapped in as it is registered (`handlers`):
        # counted, timed and logged (outermost), and a PlayStream's calls remembered so that a
        # drain can close them; then run on its kind's pool (`_wrap`).
        self._observe = CallObserver(
            self.metrics, access_log=self.access_log, max_request_bytes=config.max_request_bytes
        )
        self._wrap_handler = wrapped_by(self._observe.wrap, self._streams.wrap)
        self._open_files = raise_open_file_limit()
        self._grpc = grpc.server(
            self._pools.calls,
            options=grpc_options(config, self._open_files),
            maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        )
        self.service_names: tuple[str, ...] = ()
        self._bound: _Bound | None = None
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._drain_delay_over = threading.Event()

    def _wrap(self, method: str, handler: _Handler) -> _Handler:
        """A handler as the gRPC port serves it (`_wrap_handler`), run on its kind's pool."""
        wrapped = self._wrap_handler(method, handler)
        self._pools.assign(method, wrapped)
        return wrapped

    @property
    def port(self) -> int:
        """The bound gRPC port (after `start()`)."""
        if self._bound is None:
            raise RuntimeError("the server is not started")
        return self._bound.grpc_port

    @property
    def metrics_port(self) -> int | None:
        """The bound /metrics port, or None when the exporter is off."""
        if self._bound is None:
            raise RuntimeError("the server is not started")
        return None if self._bound.metrics is None else self._bound.metrics.port

    @property
    def web_port(self) -> int | None:
        """The bound web port (Connect, gRPC-Web, the web table), or None when it is off."""
        if self._bound is None:
            raise RuntimeError("the server is not started")
        return None if self._bound.web is None else self._bound.web.port

    @property
    def address(self) -> str:
        """host:port to dial (the configured host, or loopback for a wildcard host)."""
        host = self.config.host
        if host in {"0.0.0.0", "::", "[::]", ""}:  # noqa: S104 - comparing, not binding
            host = "127.0.0.1"
        return _address(host, self.port)

    def start(self) -> None:
        """Register the services, bind the ports and start serving (SERVING on health)."""
        config = self.config
        open_files = self._open_files
        web_connections = web_connection_cap(config.web_max_connections, open_files)
        recorder, names = self._register_services()
        self._bound = self._bind_ports(recorder, web_connections)
        self._grpc.start()
        for name in ("", *names):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._warn_about_keys()
        self._log_serving(open_files, web_connections)

    def _register_services(self) -> tuple[HandlerRecorder, tuple[str, ...]]:
        """Register the services (wrapped for the gRPC port, remembered for the web port),
        health and reflection, each NOT_SERVING until the ports are bound; the recorder, and
        the registered services' names."""
        config = self.config
        # The web port serves again what is registered here (recorded, not registered twice).
        recorder = HandlerRecorder(self._grpc, self._wrap)
        names = tuple(self._register(recorder, self.tokens, self.metrics, config))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, recorder)
        self.service_names = (*names, HEALTH_SERVICE)
        if config.serves_reflection:
            # Observed like every call, but not recorded: the web port does not serve it.
            reflected = HandlerRecorder(self._grpc, self._wrap)
            self.service_names = enable_reflection(self.service_names, reflected)
        for name in names:
            self.metrics.initialize_methods(name, _method_types(name))
            self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        self.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        return recorder, names

    def _bind_ports(self, recorder: HandlerRecorder, web_connections: int) -> _Bound:
        """Bind the gRPC port, then start the /metrics port and the web port (serving what
        `recorder` remembers); OSError when a port can't be bound (nothing left running)."""
        config = self.config
        address = _address(config.host, config.port)
        try:
            if config.tls:
                port = self._grpc.add_secure_port(address, _server_credentials(config))
            else:
                port = self._grpc.add_insecure_port(address)
        except RuntimeError as exc:  # grpcio's "Failed to bind to address"
            raise OSError(f"could not bind the gRPC port {address}: {exc}") from exc
        if port == 0:
            raise OSError(f"could not bind the gRPC port {address}")
        metrics_server = None
        if config.metrics_port is not None:
            metrics_server = start_metrics_server(
                config.metrics_port, self.metrics.registry, config.metrics_host or config.host
            )
        web_server = None
        if config.web_port is not None:
            from tienlen_service.registration import WIRE_METHODS
            from tienlen_service.web.transport import start_web_server

            try:
                web_server = start_web_server(
                    config,
                    handlers=recorder.handlers,
                    wire_methods=WIRE_METHODS,
                    pool_for=self._pools.pool_for,
                    metrics=self.metrics,
                    serving=self._serving,
                    access_log=self.access_log,
                    max_connections=web_connections,
                )
            except OSError:
                if metrics_server is not None:
                    metrics_server.stop()
                raise
        return _Bound(port, metrics_server, web_server)

    def _warn_about_keys(self) -> None:
        """Log, loudly, a key made at start-up or the published example key (--dev)."""
        if self.keyring.generated:
            self.log.warning(
                "generated_key",
                message="no --keys/--keys-file: using a random key made at start-up; tokens "
                "will not survive a restart nor work on another replica. Never in production.",
                kid=self.keyring.signing_kid,
            )
        if self.config.require_seat_tokens and not self.config.seal:
            self.log.warning(
                "seat_tokens_unsealed",
                message="--require-seat-tokens without --seal: a seat token is keyed by a "
                "secret the state token carries, so whoever holds an unsealed state token can "
                "make any seat's token (as it reads every hand). Seal tokens players hold.",
            )
        if self.keyring.published_kids:
            self.log.warning(
                "published_key",
                message="--dev: using the example key published in this repository; anyone "
                "can forge tokens with it. Never in production.",
                kids=list(self.keyring.published_kids),
            )

    def _log_serving(self, open_files: int, web_connections: int) -> None:
        """The `serving` line: the ports and every setting an operator checks at start-up."""
        config = self.config
        self.log.info(
            "serving",
            address=_address(config.host, config.port),
            port=self.port,
            metrics_port=self.metrics_port,
            web_port=self.web_port,
            cors_origins=list(config.cors_origins),
            allowed_hosts=_hosts_shown(config.web_allowed_hosts),
            web_max_connections=web_connections,
            max_connections=connection_cap(config.max_connections, open_files),
            open_files=open_files,
            tls=config.tls,
            mutual_tls=config.tls_client_ca is not None,
            services=list(self.service_names),
            key_ids=list(self.keyring.kids),
            deployment=config.deployment,
            seal=config.seal,
            require_sealed=config.require_sealed,
            require_seat_tokens=config.require_seat_tokens,
            max_token_age_s=config.max_token_age,
            dev=config.dev,
            reflection=config.serves_reflection,
            workers=config.workers,
            max_concurrent_rpcs=config.max_concurrent_rpcs,
            max_request_bytes=config.max_request_bytes,
            version=version(),
        )

    def _serving(self) -> bool:
        """Whether the server is serving (not stopping): the web port's /healthz."""
        return not self._stopped

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the server has stopped (True) or `timeout` seconds pass (False)."""
        timed_out: bool = self._grpc.wait_for_termination(timeout)
        return not timed_out

    def stop(self, grace: float | None = None, drain_delay: float | None = None) -> None:
        """Drain and stop: NOT_SERVING, refuse new calls, give in-flight calls `grace` seconds.

        NOT_SERVING comes `drain_delay` seconds before the port closes. Both default to the
        configured ones. Safe to call more than once.
        """
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
        grace = self.config.grace if grace is None else grace
        self.health.enter_graceful_shutdown()
        if drain_delay is None:
            drain_delay = self.config.drain_delay
        if drain_delay > 0:
            # Still serving, but NOT_SERVING on health: balancers and health-checking clients
            # move away before the port closes (calls that reach grpcio's queue but not yet a
            # worker when the port closes would be cancelled).
            self.log.info("not_serving", drain_delay_s=drain_delay)
            self._drain_delay_over.wait(drain_delay)
        self.log.info("draining", grace_s=grace)
        stopped = self._grpc.stop(grace)
        # The port is closed: end the streams that would hold the replica for its whole grace.
        watches = self.health.close_watches()
        streams = self._streams.close_streams()
        self.log.info("streams_closed", health_watches=watches, play_streams=streams)
        if self._bound is not None and self._bound.web is not None:
            self._bound.web.stop(grace)  # drains its calls in flight alongside gRPC's
        stopped.wait()
        if self._bound is not None and self._bound.metrics is not None:
            self._bound.metrics.stop()
        self._pools.shutdown()
        self.log.info("stopped")

    def end_drain_delay(self) -> None:
        """Close the port now, without waiting out the rest of the drain delay (for a caller
        that knows the clients have moved away: the tests, an operator's second signal)."""
        self._drain_delay_over.set()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(0, 0)
