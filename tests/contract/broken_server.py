"""A deliberately broken copy of the service, to prove that both contract runners can fail.

    python tests/contract/broken_server.py --break refusal-code [server flags...]
    python tests/contract/broken_server.py --break to-act       [server flags...]

It is the real server (`tienlen_service.server.Server`, same flags, same "serving" log line)
with the real servicer subclassed so that one RPC answers wrongly:

* ``refusal-code``: ApplyMove refuses illegal moves with INVALID_ARGUMENT instead of
  FAILED_PRECONDITION (the ErrorInfo is unchanged) — a wrong error mapping;
* ``to-act``: ApplyMove answers with the wrong seat to act — a wrong field.

The production code has no fault switch: the fault lives only here.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import grpc
from google.rpc import status_pb2

from tienlen.v1 import service_pb2
from tienlen_service import registration, servicer
from tienlen_service.config import parse_config
from tienlen_service.logs import configure_logging
from tienlen_service.server import Server, load_deal_key

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_service.config import Config
    from tienlen_service.metrics import Metrics
    from tienlen_service.tokens import TokenCodec

FAULTS = ("refusal-code", "to-act")


class _Recoded(grpc.Status):
    """The same refusal under another code (in the status and in its rich details alike)."""

    def __init__(self, status: Any, code: grpc.StatusCode) -> None:
        self.code = code
        self.details = status.details
        metadata = []
        for key, value in status.trailing_metadata:
            if key == "grpc-status-details-bin":
                rich = status_pb2.Status.FromString(value)
                rich.code = code.value[0]
                metadata.append((key, rich.SerializeToString()))
            else:
                metadata.append((key, value))
        self.trailing_metadata = tuple(metadata)


class _RecodingContext:
    """A servicer context whose FAILED_PRECONDITION refusals go out as INVALID_ARGUMENT."""

    def __init__(self, context: grpc.ServicerContext) -> None:
        self._context = context

    def abort_with_status(self, status: grpc.Status) -> None:
        if status.code is grpc.StatusCode.FAILED_PRECONDITION:
            status = _Recoded(status, grpc.StatusCode.INVALID_ARGUMENT)
        self._context.abort_with_status(status)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class RefusalCodeServicer(servicer.TienLenServicer):
    """ApplyMove refuses with the wrong gRPC code (as the ports call it: `apply_move_wire`)."""

    def apply_move_wire(
        self, request: service_pb2.ApplyMoveRequest, context: grpc.ServicerContext
    ) -> bytes:
        return super().apply_move_wire(request, _RecodingContext(context))  # type: ignore[arg-type]


class ToActServicer(servicer.TienLenServicer):
    """ApplyMove names the wrong seat to act."""

    def apply_move_wire(
        self, request: service_pb2.ApplyMoveRequest, context: grpc.ServicerContext
    ) -> bytes:
        response = service_pb2.ApplyMoveResponse.FromString(
            super().apply_move_wire(request, context)
        )
        game = response.game
        if game.HasField("to_act"):
            game.to_act = (game.to_act + 1) % game.view.players
        return response.SerializeToString()


def _register(fault: str) -> Any:
    cls = RefusalCodeServicer if fault == "refusal-code" else ToActServicer

    def register(
        server: grpc.Server, tokens: TokenCodec, metrics: Metrics, config: Config
    ) -> Sequence[str]:
        engine = cls(
            tokens=tokens,
            metrics=metrics,
            require_seat_tokens=config.require_seat_tokens,
            deal_key=load_deal_key(config),
        )
        registration.add_to_server(engine, server)
        return (servicer.SERVICE_NAME,)

    return register


def main(argv: Sequence[str]) -> int:
    """Run the broken server until SIGTERM or SIGINT."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--break", dest="fault", choices=FAULTS, required=True)
    ns, rest = parser.parse_known_args(argv)
    config, _ = parse_config(rest)
    configure_logging(config.log_level, config.log_format)
    # Block the signals before grpc starts its threads, then wait for one in this thread.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    server = Server(config, register=_register(ns.fault))
    server.start()
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
