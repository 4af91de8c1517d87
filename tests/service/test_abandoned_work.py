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

The search's life (answered without a deadline, the caller hanging up, the deadline passing)
is run through every transport's context: grpcio's on the gRPC port, the web port's on
Connect and gRPC-Web (`call_context.CallContext`, the one contract both honour).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc
import pytest

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_rules.bots import greedy, montecarlo
from tienlen_service import searches, servicer

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
    waits: list[bool] = field(default_factory=list)
    """Per playout that waited: whether its call's end (not the test's WAIT) woke it."""
    started: threading.Event = field(default_factory=threading.Event)
    released: bool = False
    ends: list[threading.Event] = field(default_factory=list)
    current: threading.local = field(default_factory=threading.local)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ended: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    """Released as each SuggestMove's bot work ends (answered, abandoned or refused): hints
    run on threads of their own (budget.py), so a cheap call answered says nothing of them."""

    def wait_ended(self, count: int = 1) -> None:
        """Wait until `count` more SuggestMove calls have ended on the server."""
        for _ in range(count):
            assert self.ended.acquire(timeout=WAIT)

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
        woken = self.current.end.wait(WAIT)
        with self.lock:
            self.waits.append(woken)
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
    real_call = searches.Search.__call__

    def ending(self: searches.Search, *args: Any) -> Any:
        try:
            return real_call(self, *args)
        finally:
            counted.ended.release()

    monkeypatch.setattr(searches.Search, "__call__", ending)
    yield counted
    counted.release()


def start(
    server_factory: Callable[..., Any], workers: int, **settings: Any
) -> tuple[Stub, bytes, grpc.Channel, Any]:
    """A server with `workers` workers, a channel to it, and a dealt game's state token; the
    running server last (its metrics registry)."""
    running = server_factory(workers=workers, **settings)
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


# --- one search's life, through every transport's context ----------------------------------


class Search(Protocol):
    """A SuggestMove call in flight, on one transport."""

    def hang_up(self) -> None:
        """The caller goes away (gRPC: cancels; web: closes the connection)."""

    def outcome(self) -> tuple[grpc.StatusCode, service_pb2.SuggestMoveResponse | None]:
        """The call's status code and, when OK, its answer."""


class GrpcSearch:
    def __init__(
        self, running: Any, request: service_pb2.SuggestMoveRequest, timeout: float | None
    ):
        self._channel = grpc.insecure_channel(running.address)
        # No timeout: no deadline at all (the outcome waits WAIT at most).
        self._call = Stub(self._channel).SuggestMove.future(request, timeout=timeout)

    def hang_up(self) -> None:
        self._call.cancel()
        self._channel.close()

    def outcome(self) -> tuple[grpc.StatusCode, service_pb2.SuggestMoveResponse | None]:
        try:
            return grpc.StatusCode.OK, self._call.result(WAIT)
        except grpc.RpcError as error:
            return error.code(), None
        finally:
            self._channel.close()


_CODES = {s.value[0]: s for s in grpc.StatusCode}


class WebSearch:
    """A SuggestMove over one HTTP/1.1 connection to the web port (Connect's binary protocol,
    or gRPC-Web), written out by hand so that hanging up is closing the socket."""

    def __init__(
        self,
        running: Any,
        request: service_pb2.SuggestMoveRequest,
        timeout: float | None,
        *,
        grpc_web: bool,
    ) -> None:
        self._grpc_web = grpc_web
        raw = request.SerializeToString()
        if grpc_web:
            body = b"\x00" + struct.pack(">I", len(raw)) + raw
            headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}
            if timeout is not None:
                headers["grpc-timeout"] = f"{round(timeout * 1000)}m"
        else:
            body = raw
            headers = {"content-type": "application/proto"}
            if timeout is not None:
                headers["connect-timeout-ms"] = str(round(timeout * 1000))
        port = running.handle.web_port
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        self._sock.sendall(
            f"POST /{servicer.SERVICE_NAME}/SuggestMove HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
            f"{head}content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body
        )

    def hang_up(self) -> None:
        self._sock.close()

    def outcome(self) -> tuple[grpc.StatusCode, service_pb2.SuggestMoveResponse | None]:
        data = b""
        with self._sock:
            while chunk := self._sock.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])
        }
        if headers.get("transfer-encoding") == "chunked":
            body = _unchunk(body)
        if not self._grpc_web:
            if status != 200:
                return grpc.StatusCode[json.loads(body)["code"].upper()], None
            return grpc.StatusCode.OK, service_pb2.SuggestMoveResponse.FromString(body)
        message, trailers = None, dict(headers)
        while body:
            flag, (length,) = body[0], struct.unpack(">I", body[1:5])
            payload, body = body[5 : 5 + length], body[5 + length :]
            if flag & 0x80:
                for line in payload.decode().split("\r\n"):
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
            else:
                message = service_pb2.SuggestMoveResponse.FromString(payload)
        code = _CODES[int(trailers["grpc-status"])]
        return code, message if code is grpc.StatusCode.OK else None


def _unchunk(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        length = int(size, 16)
        if not length:
            break
        out, body = out + rest[:length], rest[length + 2 :]
    return out


TRANSPORTS = ("grpc", "connect", "grpc_web")


def open_search(
    transport: str, running: Any, request: service_pb2.SuggestMoveRequest, timeout: float | None
) -> Search:
    if transport == "grpc":
        return GrpcSearch(running, request, timeout)
    return WebSearch(running, request, timeout, grpc_web=transport == "grpc_web")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_search_without_a_deadline_is_answered_and_counted_suggested(
    server_factory: Callable[..., Any], playouts: Playouts, transport: str
) -> None:
    # The probe: a web SuggestMove with montecarlo and no Connect-Timeout-Ms failed
    # with UNKNOWN (the deadline check compared None with 0).
    stub, token, channel, running = start(server_factory, workers=1, web_port=0)
    with channel:
        seat = to_act(stub, token)
        playouts.release()
        code, answer = open_search(transport, running, search(token, seat), None).outcome()
    assert code == grpc.StatusCode.OK
    assert answer is not None
    assert answer.HasField("move")
    assert answer.bot == "montecarlo"
    assert outcomes(running)["suggested"] == 1
    assert outcomes(running)["abandoned"] == 0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_search_whose_caller_hangs_up_stops_at_its_next_playout_frees_the_worker_and_counts_abandoned(
    server_factory: Callable[..., Any], playouts: Playouts, transport: str
) -> None:
    stub, token, channel, running = start(server_factory, workers=1, web_port=0)
    with channel:
        call = open_search(transport, running, search(token, to_act(stub, token)), None)
        assert playouts.started.wait(WAIT)
        call.hang_up()
        # Cheap calls are answered meanwhile (on threads searches never take); the search
        # stops at its next playout and lets go of its thread.
        stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
        playouts.wait_ended()
    assert (playouts.searches, playouts.count) == (1, 1)
    # The playout was woken by the call's end (a callback run at the hang-up), not by WAIT.
    assert playouts.waits == [True]
    assert outcomes(running)["abandoned"] == 1
    assert outcomes(running)["suggested"] == 0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_expired_search_stops_at_its_next_playout_and_is_counted_abandoned_and_timed(
    server_factory: Callable[..., Any], playouts: Playouts, transport: str
) -> None:
    stub, token, channel, running = start(server_factory, workers=1, web_port=0)
    with channel:
        seat = to_act(stub, token)
        code, _ = open_search(transport, running, search(token, seat), 1.0).outcome()
        assert code == grpc.StatusCode.DEADLINE_EXCEEDED
        stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
        playouts.wait_ended()
    # The deadline may pass before the first playout on a busy machine (then none ran).
    assert playouts.searches == 1
    assert playouts.count <= 1
    assert all(playouts.waits)
    assert outcomes(running) == {
        "suggested": 0,
        "no_move": 0,
        "abandoned": 1,
        "refused": 0,
        "timed": 1,
    }


def test_a_cheap_hint_whose_caller_hangs_up_is_abandoned_too(
    server_factory: Callable[..., Any], playouts: Playouts, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not only searches: greedy's hint once computed on for seconds after its caller's 504.
    # Its choice here waits for the call's end, as a long one would run past it.
    real = greedy.GreedyBot.choose

    def choose(self: greedy.GreedyBot, *args: Any) -> Any:
        playouts.rollout()
        return real(self, *args)

    monkeypatch.setattr(greedy.GreedyBot, "choose", choose)
    stub, token, channel, running = start(server_factory, workers=1)
    with channel:
        hint = service_pb2.SuggestMoveRequest(state_token=token, bot="greedy")
        hint.seat = to_act(stub, token)
        call = GrpcSearch(running, hint, None)
        assert playouts.started.wait(WAIT)
        call.hang_up()
        stub.DescribeRules(service_pb2.DescribeRulesRequest(), timeout=WAIT)
        playouts.wait_ended()
    assert playouts.waits == [True]
    assert outcomes(running, "greedy")["abandoned"] == 1
    assert outcomes(running, "greedy")["suggested"] == 0


# --- the gRPC port's limits -------------------------------------------------------------------


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
        playouts.wait_ended(6)  # every one refused, or stopped at its deadline
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
