"""The rich error model as the service tests read it: a gRPC status with exactly one
`google.rpc.ErrorInfo` (domain ``tienlen.v1``, an UPPER_SNAKE reason) and, for field problems,
a `BadRequest` naming the fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

TIMEOUT = 10.0


class Rich(NamedTuple):
    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str]
    fields: list[str]


def rich(error: grpc.RpcError) -> Rich:
    """The status of a failed call; asserts the rich error model's shape."""
    assert isinstance(error, grpc.Call)
    status = rpc_status.from_call(error)
    assert status is not None, f"no rich status: {error.code()} {error.details()}"
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1, "exactly one ErrorInfo"
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    assert info.domain == "tienlen.v1"
    assert info.reason.isupper()
    fields: list[str] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
            assert all(v.description for v in bad.field_violations)
    assert status.message
    return Rich(error.code(), info.reason, status.message, dict(info.metadata), fields)


def fails(call: Callable[..., Any], request: Any) -> Rich:
    """The rich status of a call that must fail."""
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=TIMEOUT)
    return rich(info.value)
