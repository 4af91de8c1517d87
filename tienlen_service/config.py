"""The server's settings: command-line flags, each with an environment variable behind it.

Precedence: a flag on the command line, else its ``TIENLEN_*`` variable, else the default.
`OPTIONS` is the single list of settings: it builds the parser, and the README's table is
checked against it (tests/test_readme.py), flags, variables and defaults.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from tienlen_service.tokens import deployment_problem

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

LOG_LEVELS: Final = ("debug", "info", "warning", "error")
LOG_FORMATS: Final = ("json", "console")
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})
#: The names of this machine that the web port answers without --allowed-hosts.
LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the server needs to start; built by `parse_config` or directly in tests.

    `metrics_port`: None turns the exporter off; 0 picks a free port (from code — on the
    command line 0 means off, as is usual for an exporter port). `port` 0 picks a free port.
    """

    host: str = "0.0.0.0"  # noqa: S104 - a service in a container listens on every address
    port: int = 50051
    metrics_host: str | None = None
    metrics_port: int | None = 9464
    keys: str | None = field(default=None, repr=False)
    keys_file: str | None = None
    deployment: str = "tienlen"
    seal: bool = False
    require_sealed: bool = False
    require_seat_tokens: bool = False
    deal_key_file: str | None = None
    max_token_age: float = 0.0
    dev: bool = False
    reflection: bool | None = None
    workers: int = 2
    max_concurrent_rpcs: int = 256
    max_request_bytes: int = 16384
    max_connections: int = 512
    handshake_timeout: float = 10.0
    max_connection_age: float = 300.0
    max_connection_age_grace: float = 30.0
    keepalive_time: float = 60.0
    keepalive_timeout: float = 20.0
    min_ping_interval: float = 10.0
    reuse_port: bool = False
    drain_delay: float = 0.0
    grace: float = 10.0
    log_level: str = "info"
    log_format: str | None = None
    log_sample: int = 100
    log_slow_ms: float = 100.0
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    web_host: str | None = None
    web_port: int | None = 8080
    web_root: str | None = None
    cors_origins: tuple[str, ...] = ()
    # The web port under hostile clients (tienlen_service/web/guard.py, docs/SECURITY.md).
    allowed_hosts: tuple[str, ...] = ()
    web_max_connections: int = 512
    web_read_timeout: float = 10.0
    web_keepalive_timeout: float = 5.0
    web_max_header_bytes: int = 16384
    web_max_headers: int = 100

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def tls(self) -> bool:
        """Whether the gRPC port serves TLS."""
        return self.tls_cert is not None

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        """The origins the web port lets call it: `cors_origins`, and on a dev run each loopback
        origin's other spellings too (``http://localhost:5173`` also allows
        ``http://127.0.0.1:5173`` and ``http://[::1]:5173``, and back), since a browser sends
        whichever the page was opened with."""
        if not self.dev:
            return self.cors_origins
        out = list(self.cors_origins)
        for origin in self.cors_origins:
            scheme, _, rest = origin.partition("://")
            host, port = _split_host_port(rest)
            if host in _LOOPBACK_HOSTS:
                out.extend(
                    f"{scheme}://{alias}{port}" for alias in _LOOPBACK_HOSTS if alias != host
                )
        return tuple(dict.fromkeys(out))

    @property
    def serves_reflection(self) -> bool:
        """Whether gRPC server reflection is served: as `reflection` says, else on a dev run."""
        return self.dev if self.reflection is None else self.reflection

    @property
    def web_allowed_hosts(self) -> frozenset[str] | None:
        """The ``Host`` names the web port answers (None: any): `allowed_hosts` as given
        (``*`` among them: any), else any on a dev run, else the loopback names and the
        address the web port binds to."""
        if self.allowed_hosts:
            hosts = frozenset(h.lower().rstrip(".") for h in self.allowed_hosts)
            return None if "*" in hosts else hosts
        if self.dev:
            return None
        bound = (self.web_host or self.host).strip("[]").lower()
        wildcard = bound in {"", "0.0.0.0", "::"}  # noqa: S104 - comparing, not binding
        return LOOPBACK_HOSTS | (frozenset() if wildcard else {bound})


def _problems(c: Config) -> Sequence[str]:
    out: list[str] = []
    if not 0 <= c.port <= 65535:
        out.append(f"port {c.port} is not 0..65535")
    if c.metrics_port is not None and not 0 <= c.metrics_port <= 65535:
        out.append(f"metrics port {c.metrics_port} is not 0..65535")
    if c.web_port is not None and not 0 <= c.web_port <= 65535:
        out.append(f"web port {c.web_port} is not 0..65535")
    out.extend(
        f"CORS origin {o!r} is not scheme://host[:port] (no path, no trailing slash)"
        for o in c.cors_origins
        if not _is_origin(o)
    )
    # Checked here, not only when the token codec is built, so that a bad id is a bad setting
    # (exit 2, with the others) rather than a start-up failure.
    deployment = deployment_problem(c.deployment)
    if deployment is not None:
        out.append(deployment)
    if c.keys is not None and c.keys_file is not None:
        out.append("give the keys either inline (--keys) or in a file (--keys-file), not both")
    if c.workers < 1:
        out.append("workers must be at least 1")
    if c.max_concurrent_rpcs < 1:
        out.append("max concurrent RPCs must be at least 1")
    if c.max_connections < 1:
        out.append("max connections must be at least 1")
    if c.handshake_timeout <= 0:
        out.append("the handshake timeout must be positive")
    if c.max_request_bytes < 256:
        out.append("max request bytes must be at least 256")
    durations = (
        "max_connection_age",
        "max_connection_age_grace",
        "keepalive_time",
        "keepalive_timeout",
        "min_ping_interval",
        "max_token_age",
        "drain_delay",
        "grace",
    )
    out.extend(
        f"{name.replace('_', ' ')} must not be negative"
        for name in durations
        if getattr(c, name) < 0
    )
    out.extend(_web_guard_problems(c))
    if c.log_level not in LOG_LEVELS:
        out.append(f"log level {c.log_level!r} is not one of {', '.join(LOG_LEVELS)}")
    if c.log_format is not None and c.log_format not in LOG_FORMATS:
        out.append(f"log format {c.log_format!r} is not one of {', '.join(LOG_FORMATS)}")
    if c.log_sample < 1:
        out.append("log sample must be at least 1 (1 logs every call)")
    if not c.log_slow_ms >= 0:  # also refuses NaN
        out.append("log slow ms must not be negative")
    if (c.tls_cert is None) != (c.tls_key is None):
        out.append("TLS needs both --tls-cert and --tls-key")
    if c.tls_client_ca is not None and c.tls_cert is None:
        out.append("mutual TLS (--tls-client-ca) needs --tls-cert and --tls-key too")
    return out


def _web_guard_problems(c: Config) -> Sequence[str]:
    out = [
        f"allowed host {h!r} is not a host name (no scheme, port, path or spaces; "
        "'.example.com' for its subdomains too, '*' for any)"
        for h in c.allowed_hosts
        if not h or any(ch in h for ch in "/ \t@") or h.startswith("[")
    ]
    if c.web_max_connections < 1:
        out.append("web max connections must be at least 1")
    if not c.web_read_timeout > 0:  # also refuses NaN
        out.append("web read timeout must be more than 0")
    if not c.web_keepalive_timeout > 0:
        out.append("web keepalive timeout must be more than 0")
    if c.web_max_header_bytes < 1024:
        out.append("web max header bytes must be at least 1024")
    if c.web_max_headers < 8:
        out.append("web max headers must be at least 8")
    return out


_LOOPBACK_HOSTS: Final = ("localhost", "127.0.0.1", "[::1]")


def _split_host_port(rest: str) -> tuple[str, str]:
    """("host", ":port" or "") of an origin's host[:port] part (IPv6 hosts in brackets)."""
    if rest.startswith("["):
        host, _, tail = rest.partition("]")
        return f"{host}]", tail
    host, sep, port = rest.partition(":")
    return host, f"{sep}{port}"


def _is_origin(text: str) -> bool:
    """Whether `text` is a browser origin as sent in ``Origin``: scheme://host[:port]."""
    scheme, sep, rest = text.partition("://")
    return bool(sep) and scheme in {"http", "https"} and bool(rest) and "/" not in rest


# --------------------------------------------------------------------------------------------
# The settings as data


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not a boolean (1/0, true/false, yes/no, on/off)")


def _integer(text: str, what: str) -> int:
    """`text` as a whole number, or argparse's error naming what was expected (not Python's
    "invalid _port value")."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _port(text: str) -> int:
    value = _integer(text, "a port number (0..65535)")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0..65535)")
    return value


def _positive_int(text: str) -> int:
    value = _integer(text, "a whole number (1 or more)")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _milliseconds(text: str) -> float:
    value = _number(text, "a number of milliseconds >= 0")
    if not value >= 0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of milliseconds >= 0")
    return value


def _seconds(text: str) -> float:
    value = _number(text, "a number of seconds >= 0")
    if not value >= 0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


@dataclass(frozen=True, slots=True)
class Option:
    """One setting: its flag, its environment variable, its default (as shown) and meaning."""

    flag: str
    env: str
    dest: str
    parse: Callable[[str], object]
    default: str
    help: str
    choices: tuple[str, ...] | None = None
    boolean: bool = False
    repeat: bool = False
    """A flag given once per value; its variable holds the values separated by commas."""


OPTIONS: Final[tuple[Option, ...]] = (
    Option("--host", "TIENLEN_HOST", "host", str, "0.0.0.0", "address the gRPC port binds to"),  # noqa: S104
    Option("--port", "TIENLEN_PORT", "port", _port, "50051", "gRPC port; 0 picks a free port (logged)"),
    Option("--metrics-host", "TIENLEN_METRICS_HOST", "metrics_host", str, "(--host)", "address of the Prometheus /metrics endpoint"),
    Option("--metrics-port", "TIENLEN_METRICS_PORT", "metrics_port", _port, "9464", "Prometheus /metrics port; 0 turns it off"),
    Option("--keys", "TIENLEN_KEYS", "keys", str, "(none)", "token keys kid:base64url[,kid:base64url...]; the first signs, all verify"),
    Option("--keys-file", "TIENLEN_KEYS_FILE", "keys_file", str, "(none)", "file of token keys, one kid:base64url per line (# comments)"),
    Option("--deployment", "TIENLEN_DEPLOYMENT", "deployment", str, "tienlen", "deployment id bound into every token; other deployments' tokens are refused"),
    Option("--seal", "TIENLEN_SEAL", "seal", _bool, "off", "encrypt state tokens (AES-GCM) so holders can't read the hands", boolean=True),
    Option("--require-sealed", "TIENLEN_REQUIRE_SEALED", "require_sealed", _bool, "off", "refuse unsealed state tokens (turn on after --seal has run longer than a game lasts)", boolean=True),
    Option("--require-seat-tokens", "TIENLEN_REQUIRE_SEAT_TOKENS", "require_seat_tokens", _bool, "off", "every call made for a seat (ApplyMove, PlayStream, ValidateMove, ListLegalMoves, SuggestMove, GetView of a seat) must carry that seat's token", boolean=True),
    Option("--deal-key-file", "TIENLEN_DEAL_KEY_FILE", "deal_key_file", str, "(none)", "file of the host's deal keys, one key a line (blank lines and # comments skipped; any is accepted, so a rotation overlaps): seeded and explicit deals (NewGame, NextGame) need one in deal_key; without it, NewGame's and NextGame's are refused where --require-seat-tokens is on"),
    Option("--max-token-age", "TIENLEN_MAX_TOKEN_AGE", "max_token_age", _seconds, "0", "seconds a state token is accepted after it was issued (TOKEN_EXPIRED after); 0 = no limit"),
    Option("--dev", "TIENLEN_DEV", "dev", _bool, "off", "a development run: the published example key is allowed and reflection is on (never in production)", boolean=True),
    Option("--reflection", "TIENLEN_REFLECTION", "reflection", _bool, "(--dev)", "serve gRPC server reflection (v1 and v1alpha) for grpcurl and the like", boolean=True),
    Option("--workers", "TIENLEN_WORKERS", "workers", _positive_int, "2", "threads handling calls (2 measured best: bench/README.md)"),
    Option("--max-concurrent-rpcs", "TIENLEN_MAX_CONCURRENT_RPCS", "max_concurrent_rpcs", _positive_int, "256", "calls admitted at once; more are refused with RESOURCE_EXHAUSTED"),
    Option("--max-request-bytes", "TIENLEN_MAX_REQUEST_BYTES", "max_request_bytes", _positive_int, "16384", "largest request message; larger is refused with RESOURCE_EXHAUSTED"),
    Option("--max-connections", "TIENLEN_MAX_CONNECTIONS", "max_connections", _positive_int, "512", "connections the gRPC port holds at once (more are closed as they are accepted); at most half the open-file limit less 64"),
    Option("--handshake-timeout", "TIENLEN_HANDSHAKE_TIMEOUT", "handshake_timeout", _seconds, "10", "seconds a new gRPC connection has to finish its HTTP/2 (and TLS) handshake; then it is closed"),
    Option("--max-connection-age", "TIENLEN_MAX_CONNECTION_AGE", "max_connection_age", _seconds, "300", "seconds before a connection is asked to go away (clients re-balance); 0 = never"),
    Option("--max-connection-age-grace", "TIENLEN_MAX_CONNECTION_AGE_GRACE", "max_connection_age_grace", _seconds, "30", "seconds a connection past its age gets to finish its calls"),
    Option("--keepalive-time", "TIENLEN_KEEPALIVE_TIME", "keepalive_time", _seconds, "60", "seconds between the server's keepalive pings on an idle connection"),
    Option("--keepalive-timeout", "TIENLEN_KEEPALIVE_TIMEOUT", "keepalive_timeout", _seconds, "20", "seconds to wait for a ping's answer before closing the connection"),
    Option("--min-ping-interval", "TIENLEN_MIN_PING_INTERVAL", "min_ping_interval", _seconds, "10", "shortest interval between client pings the server tolerates"),
    Option("--reuse-port", "TIENLEN_REUSE_PORT", "reuse_port", _bool, "off", "SO_REUSEPORT on the gRPC and web ports: several processes share them (the kernel balances connections)", boolean=True),
    Option("--drain-delay", "TIENLEN_DRAIN_DELAY", "drain_delay", _seconds, "0", "seconds between NOT_SERVING and closing the port, for health-checking balancers and clients to move away (on Kubernetes, after the preStop sleep)"),
    Option("--grace", "TIENLEN_SHUTDOWN_GRACE", "grace", _seconds, "10", "seconds in-flight calls get to finish after SIGTERM"),
    Option("--log-level", "TIENLEN_LOG_LEVEL", "log_level", str, "info", "log level", choices=LOG_LEVELS),
    Option("--log-format", "TIENLEN_LOG_FORMAT", "log_format", str, "json (console on a terminal)", "log line format", choices=LOG_FORMATS),
    Option("--log-sample", "TIENLEN_LOG_SAMPLE", "log_sample", _positive_int, "100", "log one successful unary call in N (its line says sampled=N); failed, slow and streaming calls are always logged; 1 = every call"),
    Option("--log-slow-ms", "TIENLEN_LOG_SLOW_MS", "log_slow_ms", _milliseconds, "100", "a call handled in this many milliseconds or more is always logged"),
    Option("--tls-cert", "TIENLEN_TLS_CERT", "tls_cert", str, "(none)", "PEM certificate chain: serve gRPC over TLS"),
    Option("--tls-key", "TIENLEN_TLS_KEY", "tls_key", str, "(none)", "PEM private key of --tls-cert"),
    Option("--tls-client-ca", "TIENLEN_TLS_CLIENT_CA", "tls_client_ca", str, "(none)", "PEM CA bundle: require client certificates signed by it (mutual TLS)"),
    Option("--web-host", "TIENLEN_WEB_HOST", "web_host", str, "(--host)", "address the web port (Connect, gRPC-Web, the web table) binds to"),
    Option("--web-port", "TIENLEN_WEB_PORT", "web_port", _port, "8080", "HTTP/1.1 port for browsers: Connect and gRPC-Web calls, the web table; 0 turns it off"),
    Option("--web-root", "TIENLEN_WEB_ROOT", "web_root", str, "clients/web/dist (if built)", "directory of static files the web port serves at / (the web table)"),
    Option("--cors-origin", "TIENLEN_CORS_ORIGINS", "cors_origins", str, "(none: same origin only)", "a browser origin (https://host[:port]) allowed to call the web port; repeat the flag, or separate by commas in the variable", repeat=True),
    Option("--allowed-hosts", "TIENLEN_ALLOWED_HOSTS", "allowed_hosts", str, "(loopback names and --web-host; any with --dev)", "a Host name the web port answers (others: 403, against DNS rebinding); .example.com also takes its subdomains, * any; repeat the flag, or separate by commas in the variable", repeat=True),
    Option("--web-max-connections", "TIENLEN_WEB_MAX_CONNECTIONS", "web_max_connections", _positive_int, "512", "connections the web port holds at once (more are answered 503 and closed); at most half the open-file limit"),
    Option("--web-read-timeout", "TIENLEN_WEB_READ_TIMEOUT", "web_read_timeout", _seconds, "10", "seconds a web client has to send a whole request, from its connection or the request's first byte (then 408 and closed)"),
    Option("--web-keepalive-timeout", "TIENLEN_WEB_KEEPALIVE_TIMEOUT", "web_keepalive_timeout", _seconds, "5", "seconds an idle kept-alive web connection stays open"),
    Option("--web-max-header-bytes", "TIENLEN_WEB_MAX_HEADER_BYTES", "web_max_header_bytes", _positive_int, "16384", "largest request line and headers the web port reads (more: 431 and closed)"),
    Option("--web-max-headers", "TIENLEN_WEB_MAX_HEADERS", "web_max_headers", _positive_int, "100", "most header lines in one web request (more: 431 and closed)"),
)  # fmt: skip


# --help's headings: each setting by its dest; one this table does not name goes by its flag's
# first word (--web-*, --cors-*: "web port"), else under "other settings".
HELP_GROUPS: Final[dict[str, tuple[str, ...]]] = {
    "listening": ("host", "port", "metrics_host", "metrics_port", "reuse_port"),
    "web port": ("web_host", "web_port", "web_root", "cors_origins"),
    "tokens and keys": (
        "keys",
        "keys_file",
        "deployment",
        "seal",
        "require_sealed",
        "require_seat_tokens",
        "max_token_age",
    ),
    "limits and connections": (
        "workers",
        "max_concurrent_rpcs",
        "max_request_bytes",
        "max_connections",
        "handshake_timeout",
        "max_connection_age",
        "max_connection_age_grace",
        "keepalive_time",
        "keepalive_timeout",
        "min_ping_interval",
    ),
    "stopping": ("drain_delay", "grace"),
    "logging": ("log_level", "log_format", "log_sample", "log_slow_ms"),
    "TLS": ("tls_cert", "tls_key", "tls_client_ca"),
    "development": ("dev", "reflection"),
}
_PREFIX_GROUPS: Final = {"web": "web port", "cors": "web port", "log": "logging", "tls": "TLS"}


def _help_group(opt: Option) -> str:
    for title, dests in HELP_GROUPS.items():
        if opt.dest in dests:
            return title
    return _PREFIX_GROUPS.get(opt.flag.lstrip("-").split("-")[0], "other settings")


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser of `python -m tienlen_service` (without environment defaults)."""
    parser = argparse.ArgumentParser(
        prog="tienlen-service",
        description="Stateless gRPC rules engine for Tiến Lên. Every flag has an environment "
        "variable (shown in brackets); a flag given on the command line wins.",
    )
    groups: dict[str, argparse._ArgumentGroup] = {}
    for title in [*HELP_GROUPS, *sorted({_help_group(opt) for opt in OPTIONS} - set(HELP_GROUPS))]:
        groups[title] = parser.add_argument_group(title)
    for opt in OPTIONS:
        help_text = f"{opt.help} [{opt.env}; default: {opt.default}]"
        group = groups[_help_group(opt)]
        if opt.repeat:
            group.add_argument(
                opt.flag,
                dest=opt.dest,
                action="append",
                default=None,
                metavar=opt.flag.lstrip("-").upper().replace("-", "_"),
                help=help_text,
            )
        elif opt.boolean:
            group.add_argument(
                opt.flag,
                dest=opt.dest,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=help_text,
            )
        else:
            group.add_argument(
                opt.flag,
                dest=opt.dest,
                type=opt.parse,
                choices=opt.choices,
                default=None,
                metavar=opt.dest.upper(),
                help=help_text,
            )
    parser.add_argument(
        "--generate-key",
        metavar="KID",
        help="print a new key entry KID:base64url (32 random bytes) for --keys, and exit",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def parse_config(
    argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None
) -> tuple[Config, argparse.Namespace]:
    """Read flags, then environment variables; returns the config and the parsed namespace.

    Errors (a bad flag, a bad variable, an impossible combination) exit with status 2 and a
    message, as argparse does.
    """
    environ = os.environ if env is None else env
    parser = build_parser()
    ns = parser.parse_args(argv)
    values: dict[str, object] = {}
    for opt in OPTIONS:
        given = getattr(ns, opt.dest)
        if given is None and opt.env in environ:
            text = environ[opt.env]
            shown = "(hidden)" if opt.dest == "keys" else repr(text)  # never echo a secret
            try:
                given = (
                    [part.strip() for part in text.split(",") if part.strip()]
                    if opt.repeat
                    else opt.parse(text)
                )
            except (argparse.ArgumentTypeError, ValueError) as exc:
                parser.error(f"{opt.env}={shown}: {exc}")
            if opt.choices is not None and given not in opt.choices:
                parser.error(f"{opt.env}={shown}: choose from {', '.join(opt.choices)}")
        if given is not None:
            values[opt.dest] = tuple(given) if opt.repeat else given
    # On the command line and in the environment, metrics port 0 means "no exporter" (and web
    # port 0 no web port).
    for port in ("metrics_port", "web_port"):
        if values.get(port) == 0:
            values[port] = None
    # An empty variable means "not set" for the optional paths and key settings.
    for name in (
        "keys",
        "keys_file",
        "deal_key_file",
        "tls_cert",
        "tls_key",
        "tls_client_ca",
        "metrics_host",
        "web_host",
        "web_root",
    ):
        if values.get(name) == "":
            del values[name]
    try:
        config = Config(**values)  # type: ignore[arg-type]
    except ValueError as exc:
        parser.error(str(exc))
    return config, ns
