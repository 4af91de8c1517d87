"""The engine service hosted in the server models that bench/load.py compares.

    python bench/model_server.py --model aio|aio-bare [service flags: --port 0 ...]

  aio       grpc.aio, the engine servicer run inline on the event loop, wrapped by our
            interceptor (metrics + one log line per call) through `hosting.AioAdapter`
  aio-bare  the same without the interceptor

The sync thread-pool model with N workers is the service itself (`--workers N`), and
SO_REUSEPORT is the service started N times with `--reuse-port` on one port.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import grpc
import hosting

from tienlen_service.config import parse_config
from tienlen_service.metrics import Metrics
from tienlen_service.registration import method_handlers
from tienlen_service.server import load_keyring
from tienlen_service.servicer import SERVICE_NAME, TienLenServicer
from tienlen_service.tokens import TokenCodec

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_service.config import Config

MODELS = ("aio", "aio-bare")


def engine_handlers(config: Config) -> list[grpc.GenericRpcHandler[Any, Any]]:
    """The engine servicer's handlers, built as `tienlen_service.server` builds them."""
    tokens = TokenCodec(
        load_keyring(config),
        seal=config.seal,
        deployment=config.deployment,
        require_sealed=config.require_sealed,
    )
    servicer = TienLenServicer(
        tokens=tokens, metrics=Metrics(), require_seat_tokens=config.require_seat_tokens
    )
    return [grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(servicer))]


def main(argv: Sequence[str] | None = None) -> int:
    mine, rest = hosting.split_argv(sys.argv[1:] if argv is None else argv, ["--model"])
    model = mine[1] if mine else ""
    if model not in MODELS:
        sys.exit(f"model_server: --model must be one of {', '.join(MODELS)}")
    config, _ = parse_config(rest)
    return hosting.serve_aio(rest, engine_handlers(config), interceptor=model == "aio")


if __name__ == "__main__":
    sys.exit(main())
