"""The servicer's `grpc.ServicerContext`, as a web call gives it.

The servicer is written once, against grpcio's context. A web call (Connect or gRPC-Web) hands
it a `WebContext` instead: the same calls work (`abort`, `abort_with_status`, `set_code`,
`invocation_metadata`, `time_remaining`, `is_active`, ...), and an abort becomes the
`ConnectError` the connectrpc library writes in the web protocol's own form (Connect's error
JSON, or gRPC-Web trailers with ``grpc-status-details-bin``). No rule and no error mapping is
repeated here: the status the servicer builds is the status the browser gets.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Final, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.rpc import status_pb2
from protobuf.wkt import Any as AnyPb

from tienlen_service.call_context import expired

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from connectrpc.request import RequestContext

STATUS_DETAILS_KEY: Final = "grpc-status-details-bin"

#: grpc status codes -> Connect codes (the same numbers; Connect spells CANCELLED "canceled").
CONNECT_CODES: Final[dict[grpc.StatusCode, Code]] = {
    status: Code.CANCELED if status is grpc.StatusCode.CANCELLED else Code[status.name]
    for status in grpc.StatusCode
    if status is not grpc.StatusCode.OK
}
_BY_NUMBER: Final[dict[int, grpc.StatusCode]] = {s.value[0]: s for s in grpc.StatusCode}


class WebAbort(Exception):  # noqa: N818 - it is how an abort leaves the servicer, not a fault
    """Raised by `WebContext.abort*`: the call ends with `code` and `error` (sent as is)."""

    def __init__(self, code: grpc.StatusCode, error: ConnectError) -> None:
        super().__init__(error.message)
        self.code = code
        self.error = error


def connect_error(code: grpc.StatusCode, message: str, details: Sequence[Any] = ()) -> ConnectError:
    """A Connect error of a gRPC code; `details` are `google.protobuf.Any` messages (Google's
    runtime), passed on as the bytes they hold."""
    return ConnectError(
        CONNECT_CODES.get(code, Code.UNKNOWN),
        message,
        [ErrorDetail(AnyPb(type_url=d.type_url, value=d.value)) for d in details],
    )


def status_error(status: status_pb2.Status) -> tuple[grpc.StatusCode, ConnectError]:
    """The gRPC code and Connect error of a `google.rpc.Status` (its details kept)."""
    code = _BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
    return code, connect_error(code, status.message, status.details)


class WebContext(grpc.ServicerContext):
    """A `grpc.ServicerContext` over a connectrpc `RequestContext` (one web call), honouring
    the `call_context.CallContext` contract as grpcio's context does.

    `deadline` is the call's absolute `time.monotonic()` deadline (from ``Connect-Timeout-Ms``
    or ``grpc-timeout``), None without one. The web port calls `cancel` when the client hangs
    up or the deadline passes mid-call (the connectrpc library cancels the handler's task),
    and `run_callbacks` when the call is over.
    """

    def __init__(self, ctx: RequestContext[Any, Any], deadline: float | None) -> None:
        self._ctx = ctx
        self._deadline = deadline
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._ended = False
        self._lock = threading.Lock()
        self.cancelled = False

    # --- what the servicer and interceptors read -------------------------------------------

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        """The request's HTTP headers, as gRPC metadata (lower-case keys)."""
        return tuple(self._ctx.request_headers.allitems())

    def peer(self) -> str:
        """The client's address, in gRPC's ``ipv4:host:port`` spelling."""
        address = self._ctx.client_address
        if not address:
            return "unknown"
        host, _, port = address.rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{address}"

    def peer_identities(self) -> None:
        """No TLS client identities on the web port."""
        return

    def peer_identity_key(self) -> None:
        """No TLS client identities on the web port."""
        return

    def auth_context(self) -> dict[str, bytes]:
        """No TLS client identities on the web port."""
        return {}

    def time_remaining(self) -> float | None:  # type: ignore[override] # grpcio's is too
        """Seconds left before the call's deadline, never negative (None without one)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - time.monotonic())

    def is_active(self) -> bool:
        """False once the deadline passed or the client went away."""
        return not self.cancelled and not expired(self)

    def add_callback(self, callback: Callable[[], None]) -> bool:
        """Run `callback` once when the call ends (`run_callbacks`), or at once when it is cancelled
        (`cancel`), as grpcio does; False (and never run) if the call already ended."""
        with self._lock:
            if self._ended:
                return False
            self._callbacks.append(callback)
        return True

    def run_callbacks(self) -> None:
        """The call has ended: run the callbacks not run yet (each runs once)."""
        with self._lock:
            self._ended = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def cancel(self) -> None:
        """The client went away or the deadline passed while the call ran: it is no longer
        active, and its callbacks run now (long work waiting on one learns it at once)."""
        self.cancelled = True
        self.run_callbacks()

    # --- what the servicer sets ------------------------------------------------------------

    def send_initial_metadata(self, initial_metadata: Sequence[tuple[str, Any]]) -> None:
        """Response headers."""
        for key, value in initial_metadata:
            self._ctx.response_headers.add(key, _text(value))

    def set_trailing_metadata(self, trailing_metadata: Sequence[tuple[str, Any]]) -> None:
        """Trailers (gRPC-Web) or headers (Connect unary) of the response."""
        for key, value in trailing_metadata:
            self._ctx.response_trailers.add(key, _text(value))

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        """The trailers set so far."""
        return tuple(self._ctx.response_trailers.allitems())

    def set_code(self, code: grpc.StatusCode) -> None:
        """The call's status code (used when the handler returns)."""
        self._code = code

    def code(self) -> grpc.StatusCode | None:
        """The code given to `set_code` or an abort, None when none was."""
        return self._code

    def set_details(self, details: str) -> None:
        """The call's status message."""
        self._details = details

    def details(self) -> str | None:
        """The message given to `set_details` or an abort."""
        return self._details

    def set_compression(self, compression: grpc.Compression) -> None:
        """The library negotiates compression with the browser; nothing to do."""

    def disable_next_message_compression(self) -> None:
        """The library negotiates compression with the browser; nothing to do."""

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        """End the call with `code` and the message `details`."""
        self._code, self._details = code, details
        raise WebAbort(code, connect_error(code, details))

    def abort_with_status(self, status: grpc.Status) -> NoReturn:
        """End the call with a rich status (`grpc_status.rpc_status.to_status`): its code, its
        message and the details of its ``grpc-status-details-bin`` trailer."""
        for key, value in status.trailing_metadata or ():
            if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
                code, error = status_error(status_pb2.Status.FromString(value))
                break
        else:
            code = status.code
            error = connect_error(code, status.details or "")
        self._code, self._details = code, error.message
        raise WebAbort(code, error)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii").rstrip("=")
    return str(value)
