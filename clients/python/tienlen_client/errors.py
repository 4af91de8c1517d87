"""Errors of the service as Python exceptions, from the rich status (`grpc_status`).

Every error the service returns carries a gRPC code and a `google.rpc.ErrorInfo` whose `reason`
is a stable code (e.g. ``NOT_YOUR_TURN``, ``TOKEN_BAD_SIGNATURE``); malformed input also carries a
`BadRequest` naming the fields. `from_rpc_error` maps them:

====================  ===================  =================================================
exception             gRPC code            when
====================  ===================  =================================================
MoveRejected          FAILED_PRECONDITION  the rules refuse the move (or the game is over)
InvalidToken          INVALID_ARGUMENT     a state token that is altered/foreign (TOKEN_*)
InvalidRequest        INVALID_ARGUMENT     a malformed field, rules or deal
PermissionDenied      PERMISSION_DENIED    a missing or wrong seat token
Unavailable           UNAVAILABLE, ...     transient: no server answered (after retries)
TienLenError          anything else
====================  ===================  =================================================
"""

from __future__ import annotations

from typing import Final

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tienlen.v1 import service_pb2

DOMAIN: Final = "tienlen.v1"


class TienLenError(Exception):
    """An error returned by the service: `code`, `reason` (ErrorInfo), `message`, `metadata`,
    and `field_violations` ((field path, description) pairs from BadRequest)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
        field_violations: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__(f"{reason or code.name}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}
        self.field_violations = field_violations


class MoveRejected(TienLenError):  # noqa: N818 - the public API's names (the issue's MoveRejected)
    """The rules refuse the move; `reason` is the engine's code (``DOES_NOT_BEAT``, ...)."""


class InvalidRequest(TienLenError):  # noqa: N818 - the public API's names (the issue's MoveRejected)
    """A malformed request: a bad card, option, deal or field (see `field_violations`)."""


class InvalidToken(InvalidRequest):
    """The state token was refused (``TOKEN_MALFORMED``, ``TOKEN_BAD_SIGNATURE``, ...)."""


class PermissionDenied(TienLenError):  # noqa: N818 - the public API's names (the issue's MoveRejected)
    """The seat token is missing or is not the acting seat's (``SEAT_TOKEN_INVALID``)."""


class Unavailable(TienLenError):  # noqa: N818 - the public API's names (the issue's MoveRejected)
    """The service could not be reached or was overloaded, even after retries."""


def connection_lost(error: grpc.RpcError) -> bool:
    """Whether a call ended because the stream under it was torn down before its answer was
    whole: the INTERNAL gRPC reports for an HTTP/2 RST_STREAM ("Received RST_STREAM with error
    code 2"), which a proxy such as nginx sends when the replica behind it dies after it began
    to answer. The service itself never ends a call that way, and every RPC is pure, so the
    client sends such a call again (gRPC's own retry policy cannot: the call had its answer's
    headers, so it counts as committed)."""
    return (
        isinstance(error, grpc.Call)
        and error.code() == grpc.StatusCode.INTERNAL
        and "RST_STREAM" in (error.details() or "")
    )


_TRANSIENT: Final = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)


def from_rpc_error(error: grpc.RpcError) -> TienLenError:
    """The typed exception of a failed call."""
    code: grpc.StatusCode = (
        error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    )
    message = error.details() if isinstance(error, grpc.Call) else str(error)
    reason = ""
    metadata: dict[str, str] = {}
    violations: list[tuple[str, str]] = []
    status = rpc_status.from_call(error) if isinstance(error, grpc.Call) else None
    if status is not None:
        message = status.message
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, metadata = info.reason, dict(info.metadata)
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations += [(v.field, v.description) for v in bad.field_violations]
    return error_for(code, reason, message or "", metadata, tuple(violations))


_CODES_BY_NUMBER: Final = {status.value[0]: status for status in grpc.StatusCode}


def from_stream_error(error: service_pb2.PlayStreamError) -> TienLenError:
    """The typed exception of a move PlayStream refused in-band: the one ApplyMove would have
    raised (the in-band error carries the code, reason, message and metadata of its status)."""
    code = _CODES_BY_NUMBER.get(error.code, grpc.StatusCode.UNKNOWN)
    return error_for(code, error.reason, error.message, dict(error.metadata))


def error_for(
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    violations: tuple[tuple[str, str], ...] = (),
) -> TienLenError:
    """The exception class the table above gives to a code and reason, instantiated."""
    cls: type[TienLenError] = TienLenError
    if code == grpc.StatusCode.FAILED_PRECONDITION:
        cls = MoveRejected
    elif code == grpc.StatusCode.INVALID_ARGUMENT:
        cls = InvalidToken if reason.startswith("TOKEN_") else InvalidRequest
    elif code == grpc.StatusCode.PERMISSION_DENIED:
        cls = PermissionDenied
    elif code in _TRANSIENT:
        cls = Unavailable
    return cls(code, reason, message, metadata, violations)
