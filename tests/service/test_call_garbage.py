"""A call's objects are freed by reference counting as soon as it ends: the observer keeps the
call's metadata, not grpcio's bound `invocation_metadata`, so that its record (set in the
call's contextvars context, which grpcio's call state holds) ties nothing back to the call.
A cycle there left ~20 objects a call to the cyclic collector (bench/README.md: ~13k
instructions an ApplyMove)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

import grpc

from tienlen_service.logs import CallFields

if TYPE_CHECKING:
    from collections.abc import Callable

PROBE = "tienlen.test.Probe"
CALLS = 8


def _left_to_the_collector(run: Callable[[], None]) -> list[Any]:
    """The objects `run` left in reference cycles: unreachable, freed only by a collection."""
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
    return garbage


def _call_state(garbage: list[Any]) -> list[str]:
    return sorted(
        {
            type(o).__qualname__
            for o in garbage
            if isinstance(o, CallFields) or type(o).__module__ == "grpc._server"
        }
    )


def test_unary_and_streaming_calls_leave_no_cycles_behind(server_factory, probe) -> None:
    server = server_factory(register=probe.register)

    def calls() -> None:
        with grpc.insecure_channel(server.address) as channel:
            echo = channel.unary_unary(f"/{PROBE}/Echo")
            chat = channel.stream_stream(f"/{PROBE}/Chat")
            total = channel.stream_unary(f"/{PROBE}/Total")
            for i in range(CALLS):
                metadata = (("x-request-id", f"call-{i}"),)
                assert echo(b"x", metadata=metadata, timeout=20) == b"x"
                assert list(chat(iter([b"a", b"b"]), metadata=metadata, timeout=20)) == [b"A", b"B"]
                assert total(iter([b"a", b"b"]), metadata=metadata, timeout=20) == b"ab"
        server.handle.stop(0, 0)  # every call ended, its threads done with it

    assert _call_state(_left_to_the_collector(calls)) == []
