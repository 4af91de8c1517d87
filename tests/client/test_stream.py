"""`MoveStream` (the client's PlayStream) against real servers over real channels."""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from tienlen_client import (
    Game,
    InvalidToken,
    MoveRejected,
    MoveStream,
    TienLenClient,
    TienLenError,
    Unavailable,
    UpdateView,
)

from tienlen.v1 import service_pb2
from tienlen_service.config import Config
from tienlen_service.tokens import KeyRing

HANDS = ["3S 9S", "4S 10S", "5S JS", "6S QS"]


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    return server_factory()


@pytest.fixture
def client(running: Any) -> Iterator[TienLenClient]:
    with TienLenClient(running.address) as client:
        yield client


def lowest_play(client: TienLenClient, game: Game) -> list[str] | None:
    """The seat to act's first legal play, None to pass."""
    assert game.to_act is not None
    plays = [m for m in client.legal_moves(game, game.to_act) if not m.is_pass]
    return list(plays[0].cards) if plays else None


def test_a_game_over_a_move_stream_ends_exactly_as_over_unary_calls(client: TienLenClient) -> None:
    start = client.new_game(players=4, seed=21)
    unary = streamed = start
    with client.play_stream() as stream:
        for _ in range(300):
            if unary.finished:
                break
            seat = unary.to_act
            assert seat is not None
            cards = lowest_play(client, unary)
            if cards is None:
                unary = client.pass_turn(unary, seat)
                streamed = stream.pass_turn(streamed, seat)
            else:
                unary = client.play(unary, seat, cards)
                streamed = stream.play(streamed, seat, cards)
            assert streamed.state == unary.state  # the same token, byte for byte
    assert streamed.finished
    assert streamed.settlement == unary.settlement
    assert streamed.seat_tokens == start.seat_tokens


def test_a_time_out_and_a_leave_over_a_move_stream_are_the_unary_calls_answers(
    client: TienLenClient,
) -> None:
    # RULES §9.3, §9.4: the host's reports are moves like any other on PlayStream, answered
    # byte for byte as ApplyMove answers them.
    start = client.new_game(players=4, seed=21)
    seat = start.to_act
    assert seat is not None
    with client.play_stream() as stream:
        unary, streamed = client.timeout(start, seat), stream.timeout(start, seat)
        assert streamed.state == unary.state
        unary, streamed = client.leave(unary, seat), stream.leave(streamed, seat)
        assert streamed.state == unary.state
    assert not streamed.finished


def test_a_refused_move_raises_what_apply_move_raises_and_the_stream_goes_on(
    client: TienLenClient,
) -> None:
    game = client.new_game(hands=HANDS, leader=0)
    with client.play_stream() as stream:
        with pytest.raises(MoveRejected) as rejected:
            stream.play(game, 1, ["4S"])
        assert rejected.value.reason == "NOT_YOUR_TURN"
        assert rejected.value.code == grpc.StatusCode.FAILED_PRECONDITION
        forged = dataclasses.replace(game, state=game.state[:-1] + bytes([game.state[-1] ^ 1]))
        with pytest.raises(InvalidToken):
            stream.play(forged, 0, ["3S"])
        after = stream.play(game, 0, ["3S"])
    assert after.to_act == 1
    assert after.view.seats[0].cards_left == 1


@pytest.mark.parametrize("update_view", ["full", "basic"])
@pytest.mark.parametrize("batch", [False, True], ids=["one-per-message", "batched"])
def test_threads_share_one_stream_and_each_gets_its_own_answers(
    client: TienLenClient, update_view: UpdateView, batch: bool
) -> None:
    """Each table's answers (and, with basic answers, each table's followed view) are its own,
    whether the moves go one per message or in batches."""
    tables = [client.new_game(players=4, seed=seed) for seed in range(6)]
    finished: dict[int, Game] = {}
    errors: list[BaseException] = []

    def host(index: int, game: Game, stream: MoveStream) -> None:
        try:
            for _ in range(300):
                if game.finished:
                    finished[index] = game
                    return
                assert game.to_act is not None
                cards = lowest_play(client, game)
                game = (
                    stream.pass_turn(game, game.to_act)
                    if cards is None
                    else stream.play(game, game.to_act, cards)
                )
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(exc)

    with client.play_stream(update_view=update_view, batch=batch) as stream:
        threads = [threading.Thread(target=host, args=(i, g, stream)) for i, g in enumerate(tables)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert errors == []
    assert sorted(finished) == list(range(6))
    assert all(g.settlement is not None and sum(g.settlement.net) == 0 for g in finished.values())
    for game in finished.values():
        assert game.view.raw == client.view(game).raw


def test_close_answers_every_move_sent_before_it(client: TienLenClient) -> None:
    games = [client.new_game(hands=HANDS, leader=0) for _ in range(5)]
    stream = client.play_stream()
    futures = [stream.submit(g, 0, ["3S"]) for g in games]
    stream.close()
    assert all(f.done() for f in futures)
    assert [f.result().to_act for f in futures] == [1] * 5
    with pytest.raises(RuntimeError, match="closed"):
        stream.submit(games[0], 0, ["3S"])


def test_moves_waiting_while_the_replica_is_down_are_answered_when_one_is_back(
    server_factory: Callable[..., Any],
) -> None:
    keys = KeyRing.generate()
    first = server_factory(keyring=keys)
    port = int(first.address.rsplit(":", 1)[1])
    with TienLenClient(first.address, max_attempts=60) as client:
        game = client.new_game(hands=HANDS, leader=0)
        with client.play_stream() as stream:
            after = stream.play(game, 0, ["3S"])
            first.handle.stop(0, 0)
            waiting = stream.submit(after, 1, ["4S"])  # sent while no replica listens
            assert not waiting.done()
            server_factory(keyring=keys, port=port)
            answered = waiting.result(timeout=30)
    assert answered.to_act == 2
    assert answered.view.seats[1].cards_left == 1


def test_a_move_sent_while_no_replica_listens_waits_for_one_instead_of_failing(
    server_factory: Callable[..., Any],
) -> None:
    # Two attempts only: the refused connections while no replica listens must not use them up
    # (a rolling restart once failed a move 2 s after it was sent, well within its deadline).
    keys = KeyRing.generate()
    first = server_factory(keyring=keys)
    port = int(first.address.rsplit(":", 1)[1])
    with TienLenClient(first.address, max_attempts=2, timeout=60) as client:
        game = client.new_game(hands=HANDS, leader=0)
        refused = threading.Event()
        client._channel.subscribe(  # the test watches the client's own channel
            lambda state: (
                refused.set() if state is grpc.ChannelConnectivity.TRANSIENT_FAILURE else None
            )
        )
        with client.play_stream() as stream:
            after = stream.play(game, 0, ["3S"])
            first.handle.stop(0, 0)
            waiting = stream.submit(after, 1, ["4S"])
            assert refused.wait(30), "the client never saw the port refuse it"
            assert not waiting.done()
            server_factory(keyring=keys, port=port)
            answered = waiting.result(timeout=30)
    assert answered.to_act == 2


def test_moves_fail_with_unavailable_when_no_replica_comes_back(
    server_factory: Callable[..., Any],
) -> None:
    running = server_factory()
    # The moves wait for a replica up to their deadline (the client's 1 s timeout), then fail.
    with TienLenClient(running.address, max_attempts=2, timeout=1.0) as client:
        game = client.new_game(hands=HANDS, leader=0)
        stream = client.play_stream()
        stream.play(game, 0, ["3S"])
        running.handle.stop(0, 0)
        with pytest.raises(Unavailable):
            stream.play(game, 0, ["3S"], timeout=30)
        with pytest.raises(Unavailable):  # the stream stays failed: open a new one
            stream.submit(game, 0, ["3S"])
        stream.close()


class _DrainingStub:
    """A fake stub whose first PlayStream ends cleanly (a drain), once told to, without taking
    a move; the next ones take every move and refuse it in-band (NOT_YOUR_TURN)."""

    def __init__(self) -> None:
        self.first_may_end = threading.Event()
        self.calls = 0

    def PlayStream(
        self, requests: Iterator[service_pb2.PlayStreamRequest], metadata: object = None
    ) -> Iterator[service_pb2.PlayStreamResponse]:
        del metadata
        self.calls += 1
        if self.calls == 1:
            return self._ends_untouched()
        return self._refuses(requests)

    def _ends_untouched(self) -> Iterator[service_pb2.PlayStreamResponse]:
        self.first_may_end.wait(10)
        yield from ()

    @staticmethod
    def _refuses(
        requests: Iterator[service_pb2.PlayStreamRequest],
    ) -> Iterator[service_pb2.PlayStreamResponse]:
        for request in requests:
            error = service_pb2.PlayStreamError(code=9, reason="NOT_YOUR_TURN", message="test")
            yield service_pb2.PlayStreamResponse(tag=request.tag, error=error)


def test_a_move_sent_as_a_drained_stream_ends_goes_to_the_next_stream_not_counted_a_failure(
    client: TienLenClient,
) -> None:
    # The stream's status is in (the replica ended it cleanly) but its end is not handled yet
    # when the move comes: the move was never sent on that stream, so even with one attempt it
    # is sent on the next stream, not failed with "the stream ended before answering".
    game = client.new_game(hands=HANDS)
    stub = _DrainingStub()
    stream = MoveStream(stub, timeout=5, max_attempts=1)  # type: ignore[arg-type]
    try:
        future = stream.submit(game, 0, ["3S"])
        stub.first_may_end.set()
        with pytest.raises(MoveRejected) as refused:
            future.result(5)
        assert refused.value.reason == "NOT_YOUR_TURN"
        assert stub.calls == 2
    finally:
        stub.first_may_end.set()
        stream.close(2)


class ResetFirstStream:
    """A PlayStream that takes one move on its first stream and then resets it, as nginx does
    when the replica behind it dies mid-answer; later streams go to a real server."""

    RESET = "Received RST_STREAM with error code 2"

    def __init__(self, upstream: grpc.Channel) -> None:
        self.forward = upstream.stream_stream("/tienlen.v1.TienLenEngine/PlayStream")
        self.streams = 0

    def play_stream(
        self, requests: Iterator[bytes], context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        self.streams += 1
        if self.streams == 1:
            next(requests)
            context.abort(grpc.StatusCode.INTERNAL, self.RESET)
        yield from self.forward(requests)

    def register(self, server: grpc.Server, *_args: object) -> tuple[str, ...]:
        handler = grpc.stream_stream_rpc_method_handler(self.play_stream)
        service = "tienlen.v1.TienLenEngine"
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {"PlayStream": handler}),)
        )
        return (service,)


def test_a_move_whose_stream_was_reset_is_sent_again_on_a_new_stream(
    server_factory: Callable[..., Any],
) -> None:
    keys = KeyRing.generate()
    real = server_factory(keyring=keys)
    with grpc.insecure_channel(real.address) as upstream, TienLenClient(real.address) as host:
        reset = ResetFirstStream(upstream)
        proxy = server_factory(keyring=keys, register=reset.register)
        game = host.new_game(hands=HANDS, leader=0)
        with TienLenClient(proxy.address, max_attempts=2) as client, client.play_stream() as stream:
            after = stream.play(game, 0, ["3S"], timeout=30)
    assert reset.streams == 2
    assert after.to_act == 1
    assert after.view.seats[0].cards_left == 1


def _queued(*moves: service_pb2.PlayStreamRequest | None) -> queue.SimpleQueue[Any]:
    requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
    for item in moves:
        requests.put(item)
    return requests


def _move(tag: str, token_bytes: int) -> service_pb2.PlayStreamRequest:
    apply = service_pb2.ApplyMoveRequest(state_token=bytes(token_bytes), seat_token="s" * 40)
    return service_pb2.PlayStreamRequest(tag=tag, move=apply)


def test_a_batched_stream_packs_the_moves_queued_by_bytes_under_the_request_limit() -> None:
    from tienlen_client.batching import MAX_BATCH, RequestLimit, Sent, drain

    moves = [_move(str(i), 200) for i in range(MAX_BATCH + 2)]  # ~250 bytes each
    sent = Sent()
    limit = RequestLimit(4096)
    messages = list(drain(_queued(*moves, None), sent, limit=limit))
    assert max(m.ByteSize() for m in messages) <= 4096
    assert min(len(m.batch.moves) for m in messages[:-1]) > 1
    tags = [
        t for message in messages for t in [m.tag for m in message.batch.moves] or [message.tag]
    ]
    assert tags == [m.tag for m in moves]  # every move once, in order
    assert [t for tags_, _ in sent.messages for t in tags_] == [m.tag for m in moves]
    wide = list(
        drain(
            _queued(*[_move(str(i), 8) for i in range(MAX_BATCH + 2)], None),
            Sent(),
            limit=RequestLimit(1 << 20),
        )
    )
    assert [len(m.batch.moves) for m in wide] == [MAX_BATCH, 2]  # and never past MAX_BATCH
    # Alone, or while the limit is unknown, a move goes as a message of its own.
    assert list(drain(_queued(moves[0], None), Sent(), limit=limit)) == [moves[0]]
    assert list(drain(_queued(*moves[:3], None), Sent(), limit=RequestLimit())) == moves[:3]


def test_the_limit_is_the_lower_of_the_one_told_and_the_one_the_service_says() -> None:
    from tienlen_client.batching import MAX_REQUEST_BYTES_HEADER, RequestLimit

    told = RequestLimit(20000)
    told.hear([("other", "1"), (MAX_REQUEST_BYTES_HEADER, "16384")])
    assert told.value == 16384
    heard = RequestLimit()
    heard.hear(None)  # a replica that says nothing: still unknown
    assert heard.value is None
    heard.hear([(MAX_REQUEST_BYTES_HEADER, "9000")])
    heard.refused(8000, "SERVER: Received message larger than max (8000 vs. 4096)")
    assert heard.value == 4096  # what grpc's refusal names
    heard.refused(4000, "refused")
    assert heard.value == 2000  # else half the refused size
    heard.refused(1800, "RESOURCE_EXHAUSTED", 1500)
    assert heard.value == 1500  # the service's refusal names its limit (REQUEST_TOO_LARGE)


class _Gated:
    """The client's stub, with PlayStream's messages held until the test has queued its moves
    (so that they go out together) and counted; `tell=False` hides the limit the service says
    at the start of a stream (a replica from before it said one)."""

    def __init__(self, stub: Any, *, tell: bool = True) -> None:
        self._stub = stub
        self._tell = tell
        self.release = threading.Event()
        self.messages: list[tuple[tuple[str, ...], int]] = []
        self.streams = 0

    def PlayStream(self, requests: Iterator[Any], **kwargs: Any) -> Any:
        self.streams += 1

        def gated() -> Iterator[Any]:
            self.release.wait(30)
            for message in requests:
                tags = tuple(m.tag for m in message.batch.moves) or (message.tag,)
                self.messages.append((tags, message.ByteSize()))
                yield message

        call = self._stub.PlayStream(gated(), **kwargs)
        return call if self._tell else _Untold(call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stub, name)


class _Untold:
    """A call whose initial metadata says no limit."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def initial_metadata(self) -> tuple[()]:
        return ()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)


def _tables(client: TienLenClient, count: int) -> list[Game]:
    games = (client.new_game(players=4) for _ in range(3 * count))  # random deals: no deal key
    return [game for game in games if not game.finished][:count]


def _first_moves_together(
    client: TienLenClient, gated: _Gated, tables: list[Game], **options: Any
) -> list[Game]:
    """Each table's first move, all queued before the stream takes one (batching on, one
    attempt: a broken stream would fail them); the games after them."""
    stream = MoveStream(gated, channel=None, timeout=30, max_attempts=1, batch=True, **options)  # type: ignore[arg-type]
    try:
        futures = [stream.submit(g, g.to_act, lowest_play(client, g)) for g in tables]  # type: ignore[arg-type]
        gated.release.set()
        return [future.result(30) for future in futures]
    finally:
        gated.release.set()
        stream.close(10)


def test_sealed_moves_in_a_full_batch_fit_the_services_request_limit(
    server_factory: Callable[..., Any],
) -> None:
    """Issue 36 (5): 64 moves with sealed tokens and seat tokens came to ~16.7 KB in one
    message, over the service's 16 KiB, and every move failed. The stream hears the limit from
    the service and packs by bytes: every move is answered, in messages within the limit."""
    running = server_factory(seal=True, require_seat_tokens=True)
    with TienLenClient(running.address) as client:
        gated = _Gated(client._stub)
        tables = _tables(client, 96)
        after = _first_moves_together(client, gated, tables)
    assert [g.raw.move_number for g in after] == [1] * len(tables)
    assert max(size for _, size in gated.messages) <= Config().max_request_bytes
    assert max(len(tags) for tags, _ in gated.messages) > 32  # batched, not one per message
    assert gated.streams == 1


def test_a_message_refused_for_its_size_is_not_sent_again_nor_counted_as_a_broken_stream(
    server_factory: Callable[..., Any],
) -> None:
    """A replica that says no limit, and a caller who told one above the replica's: a batch
    over the replica's limit ends the stream (RESOURCE_EXHAUSTED). It is not a broken stream
    (one attempt is enough): its moves go again at once in smaller messages, never in that
    message again, under the limit the refusal names, and every move is answered."""
    running = server_factory(seal=True, max_request_bytes=4096)
    with TienLenClient(running.address) as client:
        gated = _Gated(client._stub, tell=False)
        tables = _tables(client, 40)
        after = _first_moves_together(client, gated, tables, max_request_bytes=16384)
    assert [g.raw.move_number for g in after] == [1] * len(tables)
    # Refused first by grpc (past twice the service's limit: no reason, grpc's own limit in
    # its words), then by the service (REQUEST_TOO_LARGE, naming 4096): each message once.
    refused = [(tags, size) for tags, size in gated.messages if size > 4096]
    assert 1 <= len(refused) <= 2
    assert all(gated.messages.count(message) == 1 for message in refused)
    assert max(size for _, size in gated.messages[gated.messages.index(refused[-1]) + 1 :]) <= 4096
    assert gated.streams == len(refused) + 1  # one attempt was enough: none counted broken


def test_a_move_refused_alone_for_its_size_fails_with_the_refusal_and_the_stream_goes_on(
    server_factory: Callable[..., Any],
) -> None:
    running = server_factory(max_request_bytes=256)
    with TienLenClient(running.address) as client:
        game = client.new_game(hands=HANDS, leader=0)
        gated = _Gated(client._stub, tell=False)
        stream = MoveStream(gated, channel=None, timeout=30, max_attempts=1, batch=True)  # type: ignore[arg-type]
        try:
            big = dataclasses.replace(game, state=game.state + bytes(300))
            too_big = stream.submit(big, 0, ["3S"])
            gated.release.set()
            with pytest.raises(TienLenError) as refused:
                too_big.result(30)
            assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            after = stream.play(game, 0, ["3S"], timeout=30)
        finally:
            gated.release.set()
            stream.close(10)
    assert after.to_act == 1
    assert sum(1 for tags, _ in gated.messages if tags == ("1",)) == 1  # never sent again


def test_the_clients_batch_limits_are_the_services() -> None:
    from tienlen_client.batching import MAX_BATCH, MAX_REQUEST_BYTES_HEADER

    from tienlen_service import streams

    assert MAX_BATCH == streams.MAX_BATCH
    assert MAX_REQUEST_BYTES_HEADER == streams.MAX_REQUEST_BYTES_HEADER
