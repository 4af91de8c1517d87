"""Cheap calls always find a worker: the worker budget (tienlen_service/budget.py).

Streams, hints and health each run on threads of their own, so that long work never takes the
`--workers` threads the other calls need: with the default 2 workers, one open PlayStream and
one Monte-Carlo search once took both, and health then waited hundreds of times its latency.
Here every stream slot and every search slot is held (a stream answered once and left open, a
search whose playouts wait for the test), and health, ValidateMove and ApplyMove are still
answered; then every worker is held by an ApplyMove too, and health still is. Nothing is timed:
a call that found no thread would wait out `WAIT` and fail.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

import tienlen_rules
from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_rules.bots import montecarlo
from tienlen_service.budget import WorkerPools
from tienlen_service.config import Config
from tienlen_service.searches import search_slots
from tienlen_service.servicer import stream_slots

Stub = service_pb2_grpc.TienLenEngineStub
WAIT = 20.0
"""Seconds any call may take (never reached when the code works)."""
HOLD = 3 * WAIT
"""Seconds held work lasts at most: longer than any call the test waits for, so that a call
queued behind it fails instead of being let through when it ends."""
WORKERS = Config().workers


class Held:
    """Work the test holds in place: each entry waits until `release()` (or WAIT)."""

    def __init__(self) -> None:
        self._entered = 0
        self._changed = threading.Condition()
        self._released = threading.Event()

    def enter(self) -> None:
        with self._changed:
            self._entered += 1
            self._changed.notify_all()
        self._released.wait(HOLD)

    def wait_for(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self._entered >= count, WAIT)

    def release(self) -> None:
        self._released.set()


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    held = Held()

    def rollout(*_args: Any) -> float:
        held.enter()
        return 0.0

    monkeypatch.setattr(montecarlo, "rollout_value", rollout)
    yield held
    held.release()


def health_status(channel: grpc.Channel) -> int:
    check = health_pb2_grpc.HealthStub(channel).Check
    return int(check(health_pb2.HealthCheckRequest(), timeout=WAIT).status)


def deal(stub: Stub) -> tuple[bytes, service_pb2.ApplyMoveRequest]:
    """A new game's token and a legal first move for the seat to act."""
    # Seed 0: no instant win, and the seat to act has several candidate plays to search.
    game = stub.NewGame(service_pb2.NewGameRequest(seed=0), timeout=WAIT).game
    seat = game.view.to_act
    listing = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(state_token=game.state_token, seat=seat, page_size=1),
        timeout=WAIT,
    )
    move = service_pb2.ApplyMoveRequest(
        state_token=game.state_token, seat=seat, move=listing.moves[0].move
    )
    return game.state_token, move


class HeldSlots(NamedTuple):
    """A server whose every stream slot and search slot is held, and how to call it."""

    channel: grpc.Channel
    stub: Stub
    token: bytes
    move: service_pb2.ApplyMoveRequest
    held: list[Any]


@contextmanager
def every_long_slot_held(server_factory: Callable[..., Any], searches: Held) -> Iterator[HeldSlots]:
    """A server with a PlayStream per stream slot (each answered once, then left open) and a
    search per search slot (their playouts wait): every long slot taken. Released at the end."""
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        stub = Stub(channel)
        token, move = deal(stub)
        held: list[Any] = []
        for _ in range(stream_slots(WORKERS)):
            requests: queue.Queue[service_pb2.PlayStreamRequest | None] = queue.Queue()
            call = stub.PlayStream(iter(requests.get, None), timeout=HOLD)
            requests.put(service_pb2.PlayStreamRequest(tag="hold", move=move))
            assert next(call).WhichOneof("result") == "applied"
            held.append(call)
        search = service_pb2.SuggestMoveRequest(state_token=token, seat=move.seat, bot="montecarlo")
        slots = search_slots(WORKERS)
        held += [stub.SuggestMove.future(search, timeout=HOLD) for _ in range(slots)]
        searches.wait_for(slots)
        try:
            yield HeldSlots(channel, stub, token, move, held)
        finally:
            searches.release()
            for call in held:
                call.cancel()


def test_health_validate_and_apply_are_answered_while_every_stream_and_search_slot_is_taken(
    server_factory: Callable[..., Any], searches: Held
) -> None:
    with every_long_slot_held(server_factory, searches) as server:
        assert health_status(server.channel) == health_pb2.HealthCheckResponse.SERVING
        move = server.move
        validate = service_pb2.ValidateMoveRequest(
            state_token=server.token, seat=move.seat, move=move.move
        )
        assert server.stub.ValidateMove(validate, timeout=WAIT).legal
        assert server.stub.ApplyMove(move, timeout=WAIT).game.move_number == 1


def test_health_is_answered_while_every_worker_and_every_slot_holds_game_work(
    server_factory: Callable[..., Any], searches: Held, monkeypatch: pytest.MonkeyPatch
) -> None:
    with every_long_slot_held(server_factory, searches) as server:
        moves = Held()
        real_apply = tienlen_rules.apply

        def apply(*args: Any) -> Any:
            moves.enter()
            return real_apply(*args)

        monkeypatch.setattr(tienlen_rules, "apply", apply)
        server.held.extend(
            server.stub.ApplyMove.future(server.move, timeout=HOLD) for _ in range(WORKERS)
        )
        moves.wait_for(WORKERS)  # every --workers thread holds an ApplyMove
        assert health_status(server.channel) == health_pb2.HealthCheckResponse.SERVING
        moves.release()


def test_each_kind_of_call_has_its_own_threads() -> None:
    pools = WorkerPools(2)
    try:
        engine = "/tienlen.v1.TienLenEngine/"
        assert pools.pool_for(engine + "ApplyMove") is pools.calls
        assert pools.pool_for(engine + "PlayStream") is pools.streams
        assert pools.pool_for(engine + "SuggestMove") is pools.hints
        assert pools.pool_for("/grpc.health.v1.Health/Check") is pools.health
        # A slot per stream and per search, and one more thread to refuse the next at once.
        assert pools.streams._max_workers == pools.stream_slots + 1
        assert pools.hints._max_workers == pools.search_slots + 1
        assert pools.calls._max_workers == 2
    finally:
        pools.shutdown()
