"""What wraps a handler before a port serves it (`tienlen_service.handlers`): the recorder the
registrars get remembers the handlers as given (the web port's) and registers them wrapped
(the gRPC port's), and the methods answered with wire bytes are the ones named."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from tienlen_service import codec, registration
from tienlen_service.handlers import HandlerRecorder, wrapped_by
from tienlen_service.metrics import Metrics
from tienlen_service.servicer import SERVICE_NAME, TienLenServicer
from tienlen_service.tokens import KeyRing, TokenCodec


class _Port:
    """What the recorder registers on: the handlers by service, as the port gets them."""

    def __init__(self) -> None:
        self.registered: dict[str, dict[str, Any]] = {}

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.registered[service] = dict(handlers)

    def add_generic_rpc_handlers(self, generic: object) -> None:
        del generic


def _echo(request: bytes, _context: object) -> bytes:
    return request


def _marked(label: str) -> Any:
    """A wrap that records, in the handler's behaviour, that it was applied."""

    def wrap(method: str, handler: Any) -> Any:
        inner = handler.unary_unary

        def behaviour(request: Any, context: Any) -> Any:
            answer = inner(request, context)
            return [label, *answer] if isinstance(answer, list) else [label, answer]

        del method
        return grpc.unary_unary_rpc_method_handler(behaviour)

    return wrap


def test_the_recorder_keeps_the_handlers_as_given_and_registers_them_wrapped() -> None:
    port = _Port()
    recorder = HandlerRecorder(port, wrapped_by(_marked("observed"), _marked("closer")))  # type: ignore[arg-type]
    handler = grpc.unary_unary_rpc_method_handler(_echo)
    recorder.add_registered_method_handlers("t.S", {"Echo": handler})
    assert recorder.handlers == {"t.S": {"Echo": handler}}  # the web port's: as given
    served = port.registered["t.S"]["Echo"].unary_unary
    assert served(b"x", None) == ["observed", "closer", b"x"]  # the first wrap outermost


def test_a_recorder_without_a_port_only_records() -> None:
    recorder = HandlerRecorder()
    recorder.add_registered_method_handlers(
        "t.S", {"Echo": grpc.unary_unary_rpc_method_handler(_echo)}
    )
    assert set(recorder.handlers["t.S"]) == {"Echo"}
    with pytest.raises(RuntimeError, match="no port"):
        recorder.add_insecure_port("127.0.0.1:0")


def test_the_wire_methods_are_the_handlers_that_answer_with_wire_bytes() -> None:
    """The web port parses the answers of `WIRE_METHODS`: they must be exactly the handlers
    whose serializer passes the codec's bytes through."""
    servicer = TienLenServicer(tokens=TokenCodec(KeyRing.generate(), seal=False), metrics=Metrics())
    handlers = registration.method_handlers(servicer)
    wire = {
        f"/{SERVICE_NAME}/{name}"
        for name, h in handlers.items()
        if h.response_serializer is codec.wire_answer
    }
    assert wire == registration.WIRE_METHODS
