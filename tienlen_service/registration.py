"""The engine service's registration on a grpc server: its method handlers, by name.

They are the generated ones (`service_pb2_grpc`), but ApplyMove and PlayStream answer with
their responses' wire bytes, written by the codec (`codec.update_to_wire`) and sent as they
are: `codec.wire_answer` is their serializer. Parsing those bytes into the response message
only for grpc to serialise it again was an eighth of a move's work in process (bench/README.md,
issue 28). The web port serves the same handlers and parses such an answer for connectrpc
(`web.calls`); in-process callers use the servicer's typed methods (`ApplyMove`, `PlayStream`).
"""

from __future__ import annotations

from typing import Any

import grpc

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_service import codec
from tienlen_service.servicer import SERVICE_NAME, TienLenServicer


def method_handlers(servicer: TienLenServicer) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The service's method handlers, by method name (see the module's docstring)."""
    captured = _Handlers()
    service_pb2_grpc.add_TienLenEngineServicer_to_server(servicer, captured)  # type: ignore[arg-type]
    handlers = dict(captured.handlers)
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


class _Handlers:
    """What the generated registration gives a server: its handlers, kept."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, generic: object) -> None:
        """The same handlers by name (registered from `handlers` instead)."""

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        """Keep them (the service's name is SERVICE_NAME)."""
        del service
        self.handlers.update(handlers)


def add_to_server(servicer: TienLenServicer, server: grpc.Server) -> None:
    """Register the servicer on a grpc server (`method_handlers`)."""
    handlers = method_handlers(servicer)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)  # type: ignore[attr-defined]
