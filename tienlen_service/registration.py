"""The engine service's registration on a grpc server: its method handlers, by name.

They are the generated ones (`service_pb2_grpc`), but ApplyMove and PlayStream answer with
their responses' wire bytes, written by the codec (`codec.update_to_wire`) and sent as they
are: `codec.wire_answer` is their serializer. Parsing those bytes into the response message
only for grpc to serialise it again was an eighth of a move's work in process (bench/README.md,
issue 28). They are named in `WIRE_METHODS`: the web port serves the same handlers and parses
such an answer for connectrpc (`web.calls`); in-process callers use the servicer's typed
methods (`ApplyMove`, `PlayStream`). What wraps the handlers on each port is `handlers`.
"""

from __future__ import annotations

from typing import Any, Final

import grpc

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_service import codec
from tienlen_service.handlers import HandlerRecorder
from tienlen_service.servicer import SERVICE_NAME, TienLenServicer

#: The methods whose handlers answer with their response's wire bytes (full paths).
WIRE_METHODS: Final = frozenset({f"/{SERVICE_NAME}/ApplyMove", f"/{SERVICE_NAME}/PlayStream"})


def method_handlers(servicer: TienLenServicer) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The service's method handlers, by method name (see the module's docstring)."""
    captured = HandlerRecorder()
    service_pb2_grpc.add_TienLenEngineServicer_to_server(servicer, captured)
    handlers = dict(captured.handlers[SERVICE_NAME])
    handlers["ApplyMove"] = grpc.unary_unary_rpc_method_handler(
        servicer.apply_move_wire,
        request_deserializer=service_pb2.ApplyMoveRequest.FromString,
        response_serializer=codec.wire_answer,
    )
    handlers["PlayStream"] = grpc.stream_stream_rpc_method_handler(
        servicer.play_stream_wire,
        request_deserializer=service_pb2.PlayStreamRequest.FromString,
        response_serializer=codec.wire_answer,
    )
    return handlers


def add_to_server(servicer: TienLenServicer, server: grpc.Server) -> None:
    """Register the servicer on a grpc server (`method_handlers`)."""
    handlers = method_handlers(servicer)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)  # type: ignore[attr-defined]
