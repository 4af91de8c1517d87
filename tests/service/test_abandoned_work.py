"""Cancelled and expired calls stop working, and searches are bounded.

A Monte-Carlo suggestion plays hundreds of games out. When its caller cancels or its deadline
passes, nobody will read the answer: the search must stop at its next playout and free the
worker (six abandoned calls once held both default workers for seconds). And at most
`search_slots(workers)` searches run at once: one more is refused at once with
RESOURCE_EXHAUSTED (TOO_MANY_SEARCHES), while cheap calls go on. Each search is counted under
its bot by how it ended (tienlen_bot_searches_total): abandoned, refused or suggested.

The playouts are replaced by one that counts itself and, the first time, waits until the
server has seen its call end (a callback on the call's context): so "the search stopped" is
"exactly one playout ran per search", proved without timing anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_rules.bots import montecarlo
from tienlen_service import searches

from .rich_status import rich

Stub = service_pb2_grpc.TienLenEngineStub
WAIT = 20.0
"""Seconds any event may take (never reached when the code works)."""


@dataclass
class Playouts:
    """Counts the searches and their playouts. Every playout waits until its call has ended
    (cancel, deadline or status: a callback on the call's context) or the test releases it."""

    searches: int = 0
    count: int = 0
    started: threading.Event = field(default_factory=threading.Event)
    released: bool = False
    ends: list[threading.Event] = field(default_factory=list)
    current: threading.local = field(default_factory=threading.local)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, context: grpc.ServicerContext) -> None:
        """A search starts on this worker thread for the call of `context`."""
        end = threading.Event()
        with self.lock:
            self.searches += 1
            self.ends.append(end)
            if self.released:
                end.set()
        context.add_callback(end.set)
        self.current.end = end

    def rollout(self, *_args: Any) -> float:
        with self.lock:
            self.count += 1
        self.started.set()
        self.current.end.wait(WAIT)
        return 0.0

    def release(self) -> None:
        """Let every playout, now and later, return at once."""
        with self.lock:
            self.released = True
            for end in self.ends:
                end.set()


@pytest.fixture
def playouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Playouts]:
    counted = Playouts()
    monkeypatch.setattr(montecarlo, "rollout_value", counted.rollout)
    real_call_gone = searches.call_gone

    def call_gone(context: grpc.ServicerContext) -> Callable[[], bool]:
        counted.watch(context)
        return real_call_gone(context)

    monkeypatch.setattr(searches, "call_gone", call_gone)
    yield counted
    counted.release()


def start(
    server_factory: Callable[..., Any], workers: int
) -> tuple[Stub, bytes, grpc.Channel, Any]:
    """A server with `workers` workers, a channel to it, and a dealt game's state token; the
    running server last (its metrics registry)."""
    running = server_factory(workers=workers)
    channel = grpc.insecure_channel(running.address)
    stub = Stub(channel)
    # Seed 0: the seat to act has several candidate plays, so the bot searches.
    game = stub.NewGame(service_pb2.NewGameRequest(seed=0), timeout=WAIT).game
    return stub, game.state_token, channel, running


def search(token: bytes, seat: int = -1) -> service_pb2.SuggestMoveRequest:
    return service_pb2.SuggestMoveRequest(state_token=token, seat=max(seat, 0), bot="montecarlo")


def to_act(stub: Stub, token: bytes) -> int:
    view = stub.GetView(service_pb2.GetViewRequest(state_token=token), timeout=WAIT).view
    return int(view.to_act)


def outcomes(running: Any, bot: str = "montecarlo") -> dict[str, float]:
    """The server's count of `bot`'s searches by outcome (its registry: the series exist at 0
    from the start), and how many were timed."""
    registry = running.handle.metrics.registry

    def value(name: str, **labels: str) -> float:
        found = registry.get_sample_value(name, {"bot": bot, **labels})
        assert found is not None, (name, labels)
        return float(found)

    counted = {
        o: value("tienlen_bot_searches_total", outcome=o)
        for o in ("suggested", "no_move", "abandoned", "refused")
    }
    return counted | {"timed": value("tienlen_bot_search_seconds_count")}


def test_a_cancelled_search_stops_at_its_next_playout_frees_the_worker_and_counts_abandoned(
    server_factory: Callable[..., Any], playouts: Playouts
) -> None:
    stub, token, channel, running = start(server_factory, workers=1)
    with channel:
        call = stub.SuggestMove.future(search(token, to_act(stub, token)), timeout=WAIT)
        assert playouts.started.wait(WAIT)
        call.cancel()
        # One worker: this cheap call is served only once the search has let go of it.
        stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
    assert (playouts.searches, playouts.count) == (1, 1)
    assert outcomes(running)["abandoned"] == 1
    assert outcomes(running)["suggested"] == 0


def test_an_expired_search_stops_at_its_next_playout_and_is_counted_abandoned_and_timed(
    server_factory: Callable[..., Any], playouts: Playouts
) -> None:
    stub, token, channel, running = start(server_factory, workers=1)
    with channel:
        seat = to_act(stub, token)
        with pytest.raises(grpc.RpcError) as info:
            stub.SuggestMove(search(token, seat), timeout=1.0)
        assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
    # The deadline may pass before the first playout on a busy machine (then none ran).
    assert playouts.searches == 1
    assert playouts.count <= 1
    assert outcomes(running) == {
        "suggested": 0,
        "no_move": 0,
        "abandoned": 1,
        "refused": 0,
        "timed": 1,
    }


def test_six_abandoned_searches_leave_the_workers_free(
    server_factory: Callable[..., Any], playouts: Playouts
) -> None:
    # The probe: six montecarlo calls with 0.1 s deadlines, then a cheap call.
    stub, token, channel, _ = start(server_factory, workers=2)
    with channel:
        seat = to_act(stub, token)
        calls = [stub.SuggestMove.future(search(token, seat), timeout=0.1) for _ in range(6)]
        codes = {call.exception().code() for call in calls}  # type: ignore[union-attr]
        assert codes <= {grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED}
        for _ in range(2):  # both workers free
            stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
    # Each search that got a slot ran at most the one playout its deadline interrupted.
    assert 1 <= playouts.searches <= 6
    assert playouts.count <= playouts.searches


def test_one_search_too_many_is_resource_exhausted_and_counted_while_cheap_calls_go_on(
    server_factory: Callable[..., Any], playouts: Playouts
) -> None:
    stub, token, channel, running = start(server_factory, workers=2)  # one search slot
    with channel:
        seat = to_act(stub, token)
        first = stub.SuggestMove.future(search(token, seat), timeout=WAIT)
        assert playouts.started.wait(WAIT)
        with pytest.raises(grpc.RpcError) as info:
            stub.SuggestMove(search(token, seat), timeout=WAIT)
        error = rich(info.value)
        assert (error.code, error.reason, error.metadata) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "TOO_MANY_SEARCHES",
            {"bot": "montecarlo"},
        )
        greedy = service_pb2.SuggestMoveRequest(state_token=token, seat=seat, bot="greedy")
        assert stub.SuggestMove(greedy, timeout=WAIT).HasField("move")
        playouts.release()
        assert first.result().HasField("move")
        # The slot is free again once the first search is done.
        assert stub.SuggestMove(search(token, seat), timeout=WAIT).HasField("move")
    # The refused search is counted but not timed: it never ran.
    assert outcomes(running) == {
        "suggested": 2,
        "no_move": 0,
        "abandoned": 0,
        "refused": 1,
        "timed": 2,
    }


def test_search_slots_leave_a_worker_for_cheap_calls() -> None:
    assert [searches.search_slots(w) for w in (1, 2, 3, 4, 8)] == [1, 1, 1, 2, 4]
