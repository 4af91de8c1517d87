"""How the client reaches the service: the channel target of one or several replicas and the
gRPC service config (round_robin, retries of the transient codes, optional health checks)."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from typing import Final

SERVICE: Final = "tienlen.v1.TienLenEngine"
DEFAULT_ATTEMPTS: Final = 4
#: The retry policy's backoff before the second attempt (seconds); it doubles up to the maximum.
RETRY_BACKOFF_INITIAL: Final = 0.05
RETRY_BACKOFF_MAX: Final = 1.0


def service_config(max_attempts: int = DEFAULT_ATTEMPTS, *, health_check: bool = False) -> str:
    """The gRPC service config: round_robin over every resolved address, and retries of the
    transient codes for every method (safe: every RPC is pure). CANCELLED is retried too: a
    replica that gets SIGTERM cancels the calls grpcio had queued but not started. With
    `health_check`, round_robin skips replicas whose health service says NOT_SERVING, so a
    draining replica gets no new calls. `max_attempts` 1 means no retries: no retryPolicy at
    all (gRPC refuses a policy of fewer than 2 attempts, and would fail every call)."""
    if max_attempts < 1:
        raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
    method: dict[str, object] = {"name": [{"service": SERVICE}]}
    if max_attempts > 1:
        method["retryPolicy"] = {
            "maxAttempts": max_attempts,
            "initialBackoff": f"{RETRY_BACKOFF_INITIAL}s",
            "maxBackoff": f"{RETRY_BACKOFF_MAX}s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED", "CANCELLED"],
        }
    config: dict[str, object] = {
        "loadBalancingConfig": [{"round_robin": {}}],
        "methodConfig": [method],
    }
    if health_check:
        config["healthCheckConfig"] = {"serviceName": SERVICE}
    return json.dumps(config)


def channel_target(address: str | Sequence[str]) -> str:
    """The channel target of one address or target URI, or of several ``host:port``
    addresses: IP literals become one ``ipv4:///a,b`` (or ``ipv6:///``) target so that
    round_robin spreads calls over them. (For host names use one ``dns:///name:port`` target:
    every address DNS returns is balanced.)"""
    if isinstance(address, str):
        return address
    addresses = list(address)
    if not addresses:
        raise ValueError("no address given")
    if len(addresses) == 1:
        return addresses[0]
    versions = {_ip_version(a) for a in addresses}
    if versions == {4}:
        return "ipv4:///" + ",".join(addresses)
    if versions == {6}:
        return "ipv6:///" + ",".join(addresses)
    raise ValueError(
        "several addresses must all be IPv4 or all IPv6 literals with ports (e.g. 10.0.0.1:50051); "
        "for host names give one dns:///name:port target"
    )


def _ip_version(address: str) -> int:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return 0
    try:
        return ipaddress.ip_address(host.strip("[]")).version
    except ValueError:
        return 0
