"""Refusals: the one place a domain error becomes a gRPC status.

Every refusal is a gRPC code plus exactly one `ErrorInfo` (domain ``tienlen.v1``, reason = a
stable code) and, for malformed input, a `BadRequest` naming the field; the servicer's RPCs
raise domain errors and `error_status` maps them:

===========================  ======================  ===========================================
error                        gRPC code               ErrorInfo.reason
===========================  ======================  ===========================================
IllegalMove                  FAILED_PRECONDITION     the engine's Reason (NOT_YOUR_TURN, ...)
GAME_NOT_OVER, MATCH_OVER,  FAILED_PRECONDITION     (NextGame on a game still being played ...;
BANKROLL_TOO_LOW                                     metadata seat, shortfall)
CardParseError / bad card    INVALID_ARGUMENT        INVALID_CARD (+ BadRequest)
other malformed field        INVALID_ARGUMENT        INVALID_ARGUMENT (+ BadRequest)
SetupError                   INVALID_ARGUMENT        its code: UNKNOWN_VARIANT, ... (+ BadRequest)
TokenError                   INVALID_ARGUMENT        TOKEN_* (+ BadRequest on state_token)
seat token missing/wrong     PERMISSION_DENIED       SEAT_TOKEN_INVALID
seeded/explicit deal, no     PERMISSION_DENIED       DEAL_NOT_ALLOWED (+ BadRequest on deal_key)
host's deal key
unknown bot                  INVALID_ARGUMENT        UNKNOWN_BOT (+ BadRequest on bot)
IllegalRecordMove            INVALID_ARGUMENT        RECORD_ILLEGAL_MOVE (+ BadRequest, move_number)
too many open PlayStreams    RESOURCE_EXHAUSTED      TOO_MANY_STREAMS
malformed PlayStream batch   INVALID_ARGUMENT        INVALID_BATCH (in the stream: `streams`)
too many bot searches        RESOURCE_EXHAUSTED      TOO_MANY_SEARCHES
search of a call gone        CANCELLED / DEADLINE_   CALL_ABANDONED (nobody reads it: the caller
                             EXCEEDED                cancelled, or its deadline passed)
===========================  ======================  ===========================================

Every text a status carries is bounded (`bounded`): an error often echoes the caller's input,
and it travels in the trailers, which clients cap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from tienlen.v1 import service_pb2
from tienlen_rules import CardParseError, IllegalMove, SetupError
from tienlen_service import codec, records
from tienlen_service.codec import FieldError, StateDecodeError
from tienlen_service.logs import note_reason
from tienlen_service.tokens import TokenError

if TYPE_CHECKING:
    from collections.abc import Sequence

DOMAIN: Final = "tienlen.v1"
SEAT_TOKEN_INVALID: Final = "SEAT_TOKEN_INVALID"  # noqa: S105 - a reason code, not a secret
UNKNOWN_BOT: Final = "UNKNOWN_BOT"
DEAL_NOT_ALLOWED: Final = "DEAL_NOT_ALLOWED"
TOO_MANY_STREAMS: Final = "TOO_MANY_STREAMS"
INVALID_BATCH: Final = "INVALID_BATCH"
TOO_MANY_SEARCHES: Final = "TOO_MANY_SEARCHES"
CALL_ABANDONED: Final = "CALL_ABANDONED"
TOKEN_MALFORMED: Final = "TOKEN_MALFORMED"  # noqa: S105 - a reason code, not a secret

#: SetupError codes that describe the game's progress (or the table's chips), not the
#: request's shape.
PRECONDITION_CODES: Final = frozenset({"GAME_NOT_OVER", "MATCH_OVER", "BANKROLL_TOO_LOW"})

#: Engine field names (SetupError.field) -> request field paths.
_FIELD_PATHS: Final = {"hands": "explicit.hands", "state": "state_token", "deal": "deal"}


class SeatTokenError(Exception):
    """The seat token of a call made for a seat is missing or wrong."""


class DealNotAllowed(Exception):  # noqa: N818 - a refusal named for its reason code
    """A seeded or explicit deal without the host's deal key (docs/SECURITY.md)."""


#: The errors a request can cause (anything else is a bug and ends the call with UNKNOWN).
DOMAIN_ERRORS: Final = (
    IllegalMove,
    FieldError,
    CardParseError,
    SetupError,
    TokenError,
    StateDecodeError,
    SeatTokenError,
    DealNotAllowed,
    records.IllegalRecordMove,
)


#: Bounds of what an error may carry, in UTF-8 bytes. An error often echoes the caller's input
#: (an unknown variant, bot or option name) and travels in the trailers, which a client caps
#: (grpc's default soft limit is 8 KiB; past it calls fail at random with RESOURCE_EXHAUSTED and
#: no ErrorInfo, which clients then retry as transient). The message is sent twice (in
#: grpc-message, percent-encoded: up to 3 bytes per byte, and in the details) and the details
#: are base64: with these bounds the whole error stays under 4 KiB (tests/service/
#: test_bounded_errors.py measures the worst case).
MAX_MESSAGE_BYTES: Final = 400
MAX_TEXT_BYTES: Final = 200
MAX_METADATA_ENTRIES: Final = 4
MAX_VIOLATIONS: Final = 4
_ELLIPSIS: Final = "…"


def bounded(text: str, limit: int = MAX_TEXT_BYTES) -> str:
    """`text` cut to at most `limit` UTF-8 bytes (on a character boundary, "…" marking the cut)."""
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text
    cut = data[: limit - len(_ELLIPSIS.encode())].decode("utf-8", "ignore")
    return cut + _ELLIPSIS


def rich_status(
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    violations: Sequence[tuple[str, str]] = (),
) -> status_pb2.Status:
    """The rich status of an error; every text in it bounded (`bounded`), whatever the caller
    sent: this is the one place every refusal passes through."""
    details = []
    info = any_pb2.Any()
    meta = {
        bounded(k): bounded(v) for k, v in list((metadata or {}).items())[:MAX_METADATA_ENTRIES]
    }
    info.Pack(error_details_pb2.ErrorInfo(reason=bounded(reason), domain=DOMAIN, metadata=meta))
    details.append(info)
    if violations:
        bad = any_pb2.Any()
        bad.Pack(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=bounded(f), description=bounded(d, MAX_MESSAGE_BYTES)
                    )
                    for f, d in violations[:MAX_VIOLATIONS]
                ]
            )
        )
        details.append(bad)
    return status_pb2.Status(
        code=_CODES[code], message=bounded(message, MAX_MESSAGE_BYTES), details=details
    )


_CODES: Final = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.CANCELLED: code_pb2.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED: code_pb2.DEADLINE_EXCEEDED,
}


def _field_path(field: str) -> str:
    """Request field path of an engine SetupError field (``hands[2]`` -> ``explicit.hands[2]``)."""
    head, sep, rest = field.partition("[")
    return _FIELD_PATHS.get(head, head) + sep + rest if field else ""


def error_status(exc: Exception, seat: int | None) -> status_pb2.Status | None:
    """The status of a domain error, or None for an exception that is not one (a bug)."""
    seat_meta = {} if seat is None else {"seat": str(seat)}
    match exc:
        case IllegalMove():
            return rich_status(
                grpc.StatusCode.FAILED_PRECONDITION,
                str(exc.reason),
                exc.message,
                seat_meta,
            )
        case FieldError():
            return rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                exc.reason,
                str(exc),
                {"field": exc.field},
                [(exc.field, exc.description)],
            )
        case CardParseError():
            return rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                codec.INVALID_CARD,
                str(exc),
                {},
                [("cards", str(exc))],
            )
        case SetupError():
            path = _field_path(exc.field)
            code = (
                grpc.StatusCode.FAILED_PRECONDITION
                if exc.code in PRECONDITION_CODES
                else grpc.StatusCode.INVALID_ARGUMENT
            )
            violations = (
                [(path, exc.message)] if path and code is grpc.StatusCode.INVALID_ARGUMENT else []
            )
            metadata = {"field": path} if path else {}
            if exc.constraint:  # the broken constraint, as DescribeRules lists it
                metadata["constraint"] = exc.constraint
            metadata |= exc.metadata  # e.g. BANKROLL_TOO_LOW's seat and shortfall
            return rich_status(code, exc.code, exc.message, metadata, violations)
        case TokenError():
            return rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                str(exc.reason),
                exc.message,
                {"field": "state_token"},
                [("state_token", exc.message)],
            )
        case StateDecodeError():
            message = f"the state token holds no game this server can read: {exc}"
            return rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                TOKEN_MALFORMED,
                message,
                {"field": "state_token"},
                [("state_token", message)],
            )
        case SeatTokenError():
            return rich_status(
                grpc.StatusCode.PERMISSION_DENIED, SEAT_TOKEN_INVALID, str(exc), seat_meta
            )
        case DealNotAllowed():
            return rich_status(
                grpc.StatusCode.PERMISSION_DENIED,
                DEAL_NOT_ALLOWED,
                str(exc),
                violations=[("deal_key", str(exc))],
            )
        case records.IllegalRecordMove():
            return rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                records.RECORD_ILLEGAL_MOVE,
                exc.message,
                exc.metadata,
                [(exc.field, exc.message)],
            )
    return None


def abort(context: grpc.ServicerContext, status: status_pb2.Status) -> NoReturn:
    """End the call with this status (grpcio raises out of the handler); the call's log line
    gets its `ErrorInfo.reason`."""
    info = error_details_pb2.ErrorInfo()
    if any(detail.Unpack(info) for detail in status.details):
        note_reason(info.reason)
    context.abort_with_status(rpc_status.to_status(status))
    raise AssertionError("abort_with_status returned")  # pragma: no cover - it raises


def stream_refusal(tag: str, status: status_pb2.Status) -> bytes:
    """The bytes of a PlayStream answer that refuses its message in-band with `status`."""
    return service_pb2.PlayStreamResponse(tag=tag, error=stream_error(status)).SerializeToString()


def stream_error(status: status_pb2.Status) -> service_pb2.PlayStreamError:
    """The in-band form of an error status: its code, and its ErrorInfo's reason and metadata."""
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return service_pb2.PlayStreamError(
        code=status.code, reason=info.reason, message=status.message, metadata=info.metadata
    )
