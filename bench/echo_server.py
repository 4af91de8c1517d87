"""The echo baseline: the service's RPCs answered with recorded bytes and no work.

    python bench/echo_server.py --trace FILE [--bare | --aio] [service flags: --port 0 ...]

It serves `tienlen.v1.TienLenEngine`'s methods (unary ones and the `PlayStream` stream) with
raw-bytes handlers: each request is answered with the response recorded for it
(`traffic.answers`), so requests and responses have exactly our sizes. Hosting:

  (default)  the service's own `Server`: our interceptor (metrics + one log line per call),
             health, reflection, the same thread pool and options — the service minus the
             engine, codec and tokens
  --bare     plain `grpc.server` with the same pool size and options, nothing else: the floor
  --aio      grpc.aio with the same options (add --bare for no interceptor)
  --busy-us N  spin N µs of pure Python in each unary call before answering: a stand-in
             for a servicer's work, to tell its own cost from what the server model adds
  --work     run the real servicer's ApplyMove on each ApplyMove request (under the key of
             TIENLEN_KEYS, as the service would) and drop its answer before answering the
             recorded bytes: the service's exact work, to tell it from our answer path
  --engine   run only the rules engine's step, `engine.apply(state, move)`, on each ApplyMove
             request (its state and move decoded ahead of time): the pure-Python work no
             implementation of the service can skip, to tell it from the codec and the glue

Started and stopped by bench/load.py; SIGTERM stops it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
import hosting
import traffic

import tienlen_rules as engine
from tienlen.v1 import service_pb2
from tienlen_rules import SPECTATOR, view
from tienlen_service import codec
from tienlen_service.servicer import SERVICE_NAME
from tienlen_service.tokens import KeyRing, TokenCodec

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from tienlen_rules import GameState, Move

UNARY: Final = ("NewGame", "NextGame", "ApplyMove", "ValidateMove", "ListLegalMoves", "GetView")
STREAM: Final = "PlayStream"


def handlers(
    answers: dict[str, dict[bytes, bytes]],
    busy_us: float = 0.0,
    work: Callable[[bytes], object] | None = None,
) -> list[grpc.GenericRpcHandler[Any, Any]]:
    """Raw-bytes handlers answering each request with its recorded response (after `busy_us`
    µs of pure-Python busy work per unary call, holding the GIL as a servicer would, and
    `work(request)` on each ApplyMove request)."""
    busy_ns = int(busy_us * 1000)
    clock = time.perf_counter_ns

    def unary(method: str) -> grpc.RpcMethodHandler[Any, Any]:
        get = answers.get(method, {}).get
        apply_work = work if method == "ApplyMove" else None

        def answer(request: bytes, _context: grpc.ServicerContext) -> bytes:
            if busy_ns:
                end = clock() + busy_ns
                while clock() < end:
                    pass
            if apply_work is not None:
                apply_work(request)
            return get(request, b"")

        return grpc.unary_unary_rpc_method_handler(answer)

    get_framed = answers.get(STREAM, {}).get

    def stream(requests: Iterator[bytes], _context: grpc.ServicerContext) -> Iterator[bytes]:
        for request in requests:
            yield get_framed(request, b"")

    methods = {name: unary(name) for name in UNARY}
    methods[STREAM] = grpc.stream_stream_rpc_method_handler(stream)
    return [grpc.method_handlers_generic_handler(SERVICE_NAME, methods)]


def _servicer_work() -> Callable[[bytes], object]:
    """The servicer's ApplyMove, request bytes to response bytes, under TIENLEN_KEYS."""
    servicer = traffic.servicer(os.environ["TIENLEN_KEYS"])
    context: Any = traffic.Context()

    def work(request: bytes) -> object:
        message = service_pb2.ApplyMoveRequest.FromString(request)
        return servicer.apply_move_wire(message, context)  # what the port sends

    return work


PARTS: Final = ("apply", "view", "events", "state", "sign", "request")


def _engine_work(
    answers: dict[str, dict[bytes, bytes]], parts: Sequence[str]
) -> Callable[[bytes], object]:
    """Parts of the servicer's ApplyMove, on each ApplyMove request's state and move decoded
    at start-up under TIENLEN_KEYS: `apply` (the rules engine's step), `view` (the spectator
    view, as wire bytes), `events` (the events as wire bytes), `state` (the state payload),
    `sign` (its token), `request` (parse the request and decode its move)."""
    unknown = set(parts) - set(PARTS)
    if unknown:
        sys.exit(f"echo_server: --engine parts are {', '.join(PARTS)}, not {sorted(unknown)}")
    tokens = TokenCodec(KeyRing.from_spec(os.environ["TIENLEN_KEYS"]), seal=False)
    steps: dict[bytes, tuple[GameState, Move, bytes]] = {}
    for request in answers.get("ApplyMove", {}):
        message = service_pb2.ApplyMoveRequest.FromString(request)
        state, game_id = codec.decode_state(tokens.decode(message.state_token))
        steps[request] = (state, codec.move_from_pb(message.move, message.seat), game_id)
    step = steps.__getitem__
    apply = engine.apply
    with_view, with_events = "view" in parts, "events" in parts
    with_state, with_sign = "state" in parts, "sign" in parts
    with_request = "request" in parts
    parse = service_pb2.ApplyMoveRequest.FromString

    def work(request: bytes) -> object:
        state, move, game_id = step(request)
        if with_request:
            message = parse(request)
            codec.move_from_pb(message.move, message.seat)
        new_state, events = apply(state, move)
        out: list[bytes] = []
        if with_view:
            out.append(codec.view_to_wire(view(new_state, SPECTATOR), new_state))
        if with_events:
            out.append(codec.events_to_wire(events))
        if with_state:
            payload = codec.encode_state(new_state, game_id)
            out.append(tokens.encode(payload) if with_sign else payload)
        return out

    return work


def main(argv: Sequence[str] | None = None) -> int:
    mine, rest = hosting.split_argv(
        sys.argv[1:] if argv is None else argv,
        ["--trace", "--busy-us", "--bare!", "--aio!", "--work!", "--engine"],
    )
    if "--trace" not in mine:
        sys.exit("echo_server: --trace FILE is required (written by bench/load.py)")
    trace = Path(mine[mine.index("--trace") + 1])
    answers = traffic.answers(traffic.load(trace))
    busy = float(mine[mine.index("--busy-us") + 1]) if "--busy-us" in mine else 0.0
    work = (
        _servicer_work()
        if "--work" in mine
        else _engine_work(answers, mine[mine.index("--engine") + 1].split(","))
        if "--engine" in mine
        else None
    )
    found = handlers(answers, busy, work)
    if "--aio" in mine:
        return hosting.serve_aio(rest, found, interceptor="--bare" not in mine)
    if "--bare" in mine:
        return hosting.serve_bare(rest, found)
    return hosting.serve_service(rest, hosting.registrar([SERVICE_NAME], found))


if __name__ == "__main__":
    sys.exit(main())
