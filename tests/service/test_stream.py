"""PlayStream: ApplyMove over one bidirectional stream, for hosts that run many tables."""

from __future__ import annotations

import queue
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from helpers.dealing import DEAL_KEY

from tienlen.v1 import moves_pb2, service_pb2, service_pb2_grpc
from tienlen_service.config import Config
from tienlen_service.servicer import stream_slots
from tienlen_service.streams import MAX_REQUEST_BYTES_HEADER

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 20.0
PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())
FAILED_PRECONDITION = 9
INVALID_ARGUMENT = 3
PERMISSION_DENIED = 7


class Stream:
    """A PlayStream call fed one message at a time from the test."""

    def __init__(self, stub: Stub) -> None:
        self._requests: queue.Queue[service_pb2.PlayStreamRequest | None] = queue.Queue()
        self.call: Any = stub.PlayStream(iter(self._requests.get, None), timeout=TIMEOUT)

    def send(self, tag: str, move: service_pb2.ApplyMoveRequest) -> None:
        self._requests.put(service_pb2.PlayStreamRequest(tag=tag, move=move))

    def send_message(self, message: service_pb2.PlayStreamRequest) -> None:
        self._requests.put(message)

    def receive(self) -> service_pb2.PlayStreamResponse:
        response: service_pb2.PlayStreamResponse = next(self.call)
        return response

    def ask(self, tag: str, move: service_pb2.ApplyMoveRequest) -> service_pb2.PlayStreamResponse:
        self.send(tag, move)
        return self.receive()

    def close(self) -> None:
        self._requests.put(None)
        assert list(self.call) == []

    def cancel(self) -> None:
        """End the call from the client side (teardown of a test that failed midway)."""
        self._requests.put(None)
        self.call.cancel()


OpenStream = Callable[[Stub], Stream]


@pytest.fixture
def open_stream() -> Iterator[OpenStream]:
    """Open PlayStream calls; those still open when the test ends are cancelled."""
    opened: list[Stream] = []

    def start(stub: Stub) -> Stream:
        opened.append(Stream(stub))
        return opened[-1]

    yield start
    for stream in opened:
        stream.cancel()


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    with grpc.insecure_channel(server_factory().address) as channel:
        yield Stub(channel)


def new_game(stub: Stub, seed: int) -> service_pb2.NewGameResponse:
    response: service_pb2.NewGameResponse = stub.NewGame(
        service_pb2.NewGameRequest(players=4, seed=seed, deal_key=DEAL_KEY), timeout=TIMEOUT
    )
    return response


def refusal_info(error: grpc.RpcError, code: grpc.StatusCode) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo of a call that ended with `code` (asserted)."""
    assert error.code() is code  # type: ignore[attr-defined]
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return info


def first_legal_move(stub: Stub, token: bytes, seat: int) -> moves_pb2.Move:
    listing = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(state_token=token, seat=seat, page_size=1),
        timeout=TIMEOUT,
    )
    move: moves_pb2.Move = listing.moves[0].move
    return move


def test_each_message_is_answered_exactly_as_apply_move_answers_it(
    stub: Stub, open_stream: OpenStream
) -> None:
    game = new_game(stub, seed=7).game
    stream = open_stream(stub)
    moves = 0
    while not game.finished:
        seat = game.to_act
        request = service_pb2.ApplyMoveRequest(
            state_token=game.state_token,
            seat=seat,
            move=first_legal_move(stub, game.state_token, seat),
        )
        streamed = stream.ask(f"move {moves}", request)
        assert streamed.tag == f"move {moves}"
        assert streamed.WhichOneof("result") == "applied"
        assert streamed.applied == stub.ApplyMove(request, timeout=TIMEOUT)
        game = streamed.applied.game
        moves += 1
    stream.close()
    assert moves > 13
    assert game.settlement.zero_sum


def test_a_refused_move_is_answered_in_the_stream_and_the_stream_goes_on(
    stub: Stub, open_stream: OpenStream
) -> None:
    game = new_game(stub, seed=3).game
    seat = game.to_act
    other = (seat + 1) % 4
    stream = open_stream(stub)

    refused = stream.ask(
        "wrong seat",
        service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=other, move=PASS),
    )
    assert refused.tag == "wrong seat"
    assert refused.WhichOneof("result") == "error"
    assert refused.error.code == FAILED_PRECONDITION
    assert refused.error.reason == "NOT_YOUR_TURN"
    assert refused.error.metadata["seat"] == str(other)
    assert refused.error.message

    tampered = bytearray(game.state_token)
    tampered[-1] ^= 1
    bad = stream.ask(
        "tampered", service_pb2.ApplyMoveRequest(state_token=bytes(tampered), seat=seat, move=PASS)
    )
    assert (bad.error.code, bad.error.reason) == (INVALID_ARGUMENT, "TOKEN_BAD_SIGNATURE")
    assert bad.error.metadata["field"] == "state_token"

    move = first_legal_move(stub, game.state_token, seat)
    applied = stream.ask(
        "legal", service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=seat, move=move)
    )
    assert applied.WhichOneof("result") == "applied"
    assert applied.applied.game.view.move_count == 1
    stream.close()


def test_answers_come_in_request_order_with_their_tags(stub: Stub, open_stream: OpenStream) -> None:
    games = (new_game(stub, seed=seed).game for seed in range(100, 200))
    playing = [game for game in games if not game.finished]  # no instant win at the deal
    tables = {f"table {i}": game for i, game in enumerate(playing[:3])}
    stream = open_stream(stub)
    requests = []
    for round_ in range(2):
        for name, game in tables.items():
            # Both rounds send the same first move: each message is a pure function of itself.
            move = first_legal_move(stub, game.state_token, game.to_act)
            requests.append(
                (
                    f"{name}/{round_}",
                    service_pb2.ApplyMoveRequest(
                        state_token=game.state_token, seat=game.to_act, move=move
                    ),
                )
            )
    for tag, request in requests:  # all sent before any answer is read
        stream.send(tag, request)
    answers = [stream.receive() for _ in requests]
    stream.close()
    assert [a.tag for a in answers] == [tag for tag, _ in requests]
    for answer, (_, request) in zip(answers, requests, strict=True):
        assert answer.applied == stub.ApplyMove(request, timeout=TIMEOUT)


def test_a_batch_is_answered_move_by_move_exactly_as_messages_of_their_own(
    stub: Stub, open_stream: OpenStream
) -> None:
    games = (new_game(stub, seed=seed).game for seed in range(300, 400))
    playing = [game for game in games if not game.finished][:4]
    moves = [
        service_pb2.StreamMove(
            tag=f"table {i}",
            move=service_pb2.ApplyMoveRequest(
                state_token=game.state_token,
                seat=game.to_act,
                move=first_legal_move(stub, game.state_token, game.to_act),
            ),
        )
        for i, game in enumerate(playing)
    ]
    wrong_seat = (playing[0].to_act + 1) % 4
    moves.append(  # a refused move in a batch is refused alone
        service_pb2.StreamMove(
            tag="refused",
            move=service_pb2.ApplyMoveRequest(
                state_token=playing[0].state_token, seat=wrong_seat, move=PASS
            ),
        )
    )
    stream = open_stream(stub)
    stream.send_message(
        service_pb2.PlayStreamRequest(tag="batch 1", batch=service_pb2.MoveBatch(moves=moves))
    )
    for move in moves:  # the same moves as messages of their own
        stream.send(move.tag, move.move)
    batched = stream.receive()
    singles = [stream.receive() for _ in moves]
    stream.close()
    assert batched.tag == "batch 1"
    assert batched.WhichOneof("result") is None
    results = batched.batch.results
    # A move's result in a batch is, field for field, its answer as a message of its own.
    assert [r.SerializeToString() for r in results] == [a.SerializeToString() for a in singles]
    assert [r.tag for r in results] == [m.tag for m in moves]
    for result, move in zip(results[:-1], moves, strict=False):
        assert result.applied == stub.ApplyMove(move.move, timeout=TIMEOUT)
    assert (results[-1].error.code, results[-1].error.reason) == (
        FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    )


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            "a move beside the batch",
            service_pb2.PlayStreamRequest(
                move=service_pb2.ApplyMoveRequest(seat=0),
                batch=service_pb2.MoveBatch(moves=[service_pb2.StreamMove(tag="a")]),
            ),
        ),
        (
            "65 moves",
            service_pb2.PlayStreamRequest(
                batch=service_pb2.MoveBatch(
                    moves=[service_pb2.StreamMove(tag=str(i)) for i in range(65)]
                )
            ),
        ),
    ],
)
def test_a_malformed_batch_is_refused_as_a_whole_with_invalid_batch_and_the_stream_goes_on(
    stub: Stub, open_stream: OpenStream, case: str, message: service_pb2.PlayStreamRequest
) -> None:
    game = new_game(stub, seed=5).game
    stream = open_stream(stub)
    message.tag = case
    stream.send_message(message)
    refused = stream.receive()
    assert refused.tag == case
    assert not refused.HasField("batch")
    assert (refused.error.code, refused.error.reason) == (INVALID_ARGUMENT, "INVALID_BATCH")
    assert refused.error.metadata["field"] == "batch"
    move = first_legal_move(stub, game.state_token, game.to_act)
    applied = stream.ask(
        "after",
        service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=game.to_act, move=move),
    )
    assert applied.WhichOneof("result") == "applied"
    stream.close()


def test_a_batch_of_64_moves_is_answered_and_an_empty_batch_with_no_result(
    stub: Stub, open_stream: OpenStream
) -> None:
    game = new_game(stub, seed=11).game
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state_token,
        seat=game.to_act,
        move=first_legal_move(stub, game.state_token, game.to_act),
    )
    stream = open_stream(stub)
    moves = [service_pb2.StreamMove(tag=str(i), move=request) for i in range(64)]
    stream.send_message(service_pb2.PlayStreamRequest(batch=service_pb2.MoveBatch(moves=moves)))
    stream.send_message(service_pb2.PlayStreamRequest(tag="empty", batch=service_pb2.MoveBatch()))
    answer, empty = stream.receive(), stream.receive()
    stream.close()
    assert [r.tag for r in answer.batch.results] == [str(i) for i in range(64)]
    assert {r.applied.SerializeToString() for r in answer.batch.results} == {
        stub.ApplyMove(request, timeout=TIMEOUT).SerializeToString()
    }
    assert empty.tag == "empty"
    assert empty.HasField("batch")
    assert not empty.batch.results


def test_a_stream_is_told_the_request_size_limit_before_its_first_message(
    server_factory: Callable[..., Any],
) -> None:
    """A client batches by bytes under the limit: the service tells it in the stream's
    initial metadata, at the start, before any message is sent (an answer would come only
    after one)."""
    running = server_factory(max_request_bytes=9000)
    with grpc.insecure_channel(running.address) as channel:
        requests: queue.Queue[service_pb2.PlayStreamRequest | None] = queue.Queue()
        call: Any = Stub(channel).PlayStream(iter(requests.get, None), timeout=TIMEOUT)
        headers = dict(call.initial_metadata())
        requests.put(None)
        assert list(call) == []
    assert headers[MAX_REQUEST_BYTES_HEADER] == "9000"


def test_streams_beyond_the_replica_limit_are_refused_with_too_many_streams(
    stub: Stub, open_stream: OpenStream
) -> None:
    game = new_game(stub, seed=11).game
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state_token,
        seat=game.to_act,
        move=first_legal_move(stub, game.state_token, game.to_act),
    )
    slots = stream_slots(Config().workers)
    assert slots >= 1
    open_streams = [open_stream(stub) for _ in range(slots)]
    for stream in open_streams:  # an answer proves the stream holds its slot
        assert stream.ask("hold", request).WhichOneof("result") == "applied"

    extra = open_stream(stub)
    extra.send("one too many", request)
    with pytest.raises(grpc.RpcError) as caught:
        extra.receive()
    info = refusal_info(caught.value, grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert (info.reason, info.domain) == ("TOO_MANY_STREAMS", "tienlen.v1")
    # Unary calls still have workers to run on while the streams are open.
    assert stub.ApplyMove(request, timeout=TIMEOUT).game.state_token

    open_streams.pop().close()  # a slot frees up when a stream ends
    again = open_stream(stub)
    assert again.ask("again", request).WhichOneof("result") == "applied"
    again.close()
    for stream in open_streams:
        stream.close()


def test_every_message_needs_its_seat_token_when_the_service_requires_them(
    server_factory: Callable[..., Any], open_stream: OpenStream
) -> None:
    running = server_factory(require_seat_tokens=True)
    with grpc.insecure_channel(running.address) as channel:
        stub = Stub(channel)
        started = new_game(stub, seed=5)
        game, tokens = started.game, started.seat_tokens
        seat = game.to_act
        move = first_legal_move_with_token(stub, game.state_token, seat, tokens[seat])
        stream = open_stream(stub)
        missing = stream.ask(
            "no token",
            service_pb2.ApplyMoveRequest(state_token=game.state_token, seat=seat, move=move),
        )
        assert (missing.error.code, missing.error.reason) == (
            PERMISSION_DENIED,
            "SEAT_TOKEN_INVALID",
        )
        wrong = stream.ask(
            "other seat's token",
            service_pb2.ApplyMoveRequest(
                state_token=game.state_token,
                seat=seat,
                seat_token=tokens[(seat + 1) % 4],
                move=move,
            ),
        )
        assert wrong.error.reason == "SEAT_TOKEN_INVALID"
        right = stream.ask(
            "own token",
            service_pb2.ApplyMoveRequest(
                state_token=game.state_token, seat=seat, seat_token=tokens[seat], move=move
            ),
        )
        assert right.WhichOneof("result") == "applied"
        stream.close()


def first_legal_move_with_token(
    stub: Stub, token: bytes, seat: int, seat_token: str
) -> moves_pb2.Move:
    listing = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(
            state_token=token, seat=seat, seat_token=seat_token, page_size=1
        ),
        timeout=TIMEOUT,
    )
    move: moves_pb2.Move = listing.moves[0].move
    return move


def test_a_message_that_does_not_parse_ends_the_stream_with_malformed_request(
    server_factory: Callable[..., Any],
) -> None:
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        raw = channel.stream_stream("/tienlen.v1.TienLenEngine/PlayStream", None, None)
        with pytest.raises(grpc.RpcError) as caught:
            list(raw(iter([b"\x00"]), timeout=TIMEOUT))
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.reason == "MALFORMED_REQUEST"


def test_a_stream_message_over_the_limit_ends_the_stream_counted_and_logged_as_refused(
    server_factory: Callable[..., Any], log_stream: Any
) -> None:
    """Issue 36 (5): a PlayStream message over the request limit ended the stream
    RESOURCE_EXHAUSTED for the client but was logged and counted CANCELLED. The service refuses
    it unread with a status that says why (REQUEST_TOO_LARGE, the limit), and the stream's
    line and metrics say RESOURCE_EXHAUSTED."""
    from helpers.logs import json_lines

    running = server_factory(max_request_bytes=4096)
    with grpc.insecure_channel(running.address) as channel:
        stream = Stream(Stub(channel))
        big = service_pb2.ApplyMoveRequest(state_token=bytes(5000))
        stream.send("too large", big)
        with pytest.raises(grpc.RpcError) as caught:
            stream.receive()
    info = refusal_info(caught.value, grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert (info.reason, info.metadata["max_request_bytes"]) == ("REQUEST_TOO_LARGE", "4096")
    lines = [
        r
        for r in json_lines(log_stream)
        if r.get("event") == "rpc" and r["rpc"].endswith("/PlayStream")
    ]
    assert [line["code"] for line in lines] == ["RESOURCE_EXHAUSTED"]
    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    handled = [
        line
        for line in text.splitlines()
        if line.startswith("grpc_server_handled_total{") and 'grpc_method="PlayStream"' in line
    ]
    assert [line for line in handled if not line.endswith(" 0.0")] == [
        line for line in handled if 'grpc_code="RESOURCE_EXHAUSTED"' in line
    ]
    assert any(line.endswith(" 1.0") for line in handled)
