"""The calls of a client: one channel to the service (one address or several, balanced), each
call within one deadline, the transient failures retried, errors raised as typed exceptions.

`ServiceCalls` is what `TienLenClient` is built on; it decides nothing about games.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Final, Self, TypeVar

import grpc

from tienlen.v1 import service_pb2_grpc
from tienlen_client.channel import (
    DEFAULT_ATTEMPTS,
    RETRY_BACKOFF_INITIAL,
    RETRY_BACKOFF_MAX,
    channel_target,
    service_config,
)
from tienlen_client.errors import connection_lost, from_rpc_error
from tienlen_client.request_ids import request_metadata

DEFAULT_TIMEOUT: Final = 5.0

_Resp = TypeVar("_Resp")

_log = logging.getLogger("tienlen_client")


class ServiceCalls:
    """A channel to the service and its calls (see `TienLenClient` for the arguments); use it
    as a context manager. The default deadline of a call is `default_timeout` (seconds)."""

    def __init__(
        self,
        address: str | Sequence[str],
        *,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = DEFAULT_ATTEMPTS,
        health_check: bool | None = None,
        options: Iterable[tuple[str, object]] = (),
    ) -> None:
        target = channel_target(address)
        if health_check is None:
            health_check = not isinstance(address, str) and len(address) > 1
        channel_options: list[tuple[str, object]] = [
            ("grpc.service_config", service_config(max_attempts, health_check=health_check)),
            ("grpc.enable_retries", 1),
            *options,
        ]
        if credentials is None:
            self._channel = grpc.insecure_channel(target, options=channel_options)
        else:
            self._channel = grpc.secure_channel(target, credentials, options=channel_options)
        self._stub = service_pb2_grpc.TienLenEngineStub(self._channel)
        self.default_timeout = timeout
        self.max_attempts = max_attempts

    # --- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the channel."""
        self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _call(
        self,
        method: Callable[..., _Resp],
        request: object,
        timeout: float | None,
        game_id: bytes = b"",
    ) -> _Resp:
        """One call, within one deadline for all its attempts. The channel's retry policy
        re-sends the transient codes; a call whose stream was torn down after its answer began
        (`connection_lost`: a replica killed behind a proxy) is sent again here, up to
        `max_attempts` in all, with the same backoff and the same request id. `game_id`: the
        game the call is about (call metadata a balancer hashes: `request_ids`)."""
        deadline = time.monotonic() + (self.default_timeout if timeout is None else timeout)
        metadata = request_metadata(game_id)
        for attempt in range(1, self.max_attempts + 1):
            try:
                return method(
                    request, timeout=max(0.0, deadline - time.monotonic()), metadata=metadata
                )
            except grpc.RpcError as error:
                if attempt == self.max_attempts or not connection_lost(error):
                    raise from_rpc_error(error) from None
                backoff = random.uniform(0.5, 1.0) * min(  # noqa: S311 - jitter, not a secret
                    RETRY_BACKOFF_MAX, RETRY_BACKOFF_INITIAL * 2 ** (attempt - 1)
                )
                if time.monotonic() + backoff >= deadline:
                    raise from_rpc_error(error) from None
                _log.info("sending the call again: its stream was reset (%s)", error.details())
                time.sleep(backoff)
        raise AssertionError("unreachable: the last attempt returns or raises")
