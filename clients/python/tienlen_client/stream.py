"""`MoveStream`: the moves of many tables over one `PlayStream` call (for game hosts).

    with client.play_stream() as stream:
        game = stream.play(game, game.to_act, ["3S"])     # one move, its answer
        futures = [stream.submit(g, g.to_act, None) for g in tables]   # many in flight

PlayStream is ApplyMove on a bidirectional stream: each message still carries its state
token, so the service stays stateless, and a replica spends about half the CPU per move of a
unary ApplyMove (bench/README.md §3). A refused move is answered in the stream and raised here
as the exception ApplyMove would have raised (`MoveRejected`, `InvalidToken`, ...); the
stream goes on.

Any number of threads may share one stream: each move is sent with its own tag and its
answer is matched by that tag. Every move is a pure function of its request, so when the
stream breaks (the replica drains, restarts, or has no stream slot free:
UNAVAILABLE, CANCELLED, RESOURCE_EXHAUSTED) the moves still waiting are sent again on a new
stream, with backoff, up to `max_attempts` times in a row; after that they fail with
`Unavailable`. A stream that broke with UNAVAILABLE (the replica went away, or no replica
answers: a rolling restart) does not count: the moves wait for a ready replica, up to their
deadline (the stream's `timeout` from their submission), and fail with `Unavailable` only
then. Nothing sent is lost: every `submit` gets an answer or an exception.

With ``batch=True`` (`TienLenClient.play_stream(batch=True)`) the moves queued by the time the
stream takes one go with it as one message (PlayStreamRequest.batch), each answered as if
alone, as many as fit the service's request limit (`tienlen_client.batching`); off by
default, since a replica older than batches would not answer one. A message the service
refused for its size ends the stream, but it is not a broken stream: its moves go again at
once in smaller messages (a move refused alone fails with the refusal), and the stream does
not count as an attempt.

With ``update_view="basic"`` the answers carry no spectator view and the stream follows it from
the events (`tienlen_client.follow`), on its reader thread; an answer that can't be followed
gets its view from a GetView call (asynchronous: the reader goes on meanwhile).
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import queue
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from types import TracebackType
from typing import TYPE_CHECKING, Final, Self

import grpc

from tienlen.v1 import game_pb2, moves_pb2, service_pb2
from tienlen_client.batching import RequestLimit, Sent, drain, refused_for_size
from tienlen_client.cards import CardsLike, move
from tienlen_client.checks import check_move
from tienlen_client.errors import (
    TienLenError,
    Unavailable,
    connection_lost,
    from_rpc_error,
    from_stream_error,
)
from tienlen_client.follow import (
    CannotFollow,
    UpdateView,
    apply_request,
    check_update_view,
    follow_game,
)
from tienlen_client.models import Game, View
from tienlen_client.request_ids import request_metadata
from tienlen_client.table import LEAVE_MOVE, TIMEOUT_MOVE

if TYPE_CHECKING:
    from tienlen.v1 import service_pb2_grpc

#: Status codes after which the waiting moves are sent again on a new stream (so is a stream
#: reset under them: `connection_lost`).
RETRYABLE: Final = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
BACKOFF_INITIAL: Final = 0.1
BACKOFF_MAX: Final = 1.0
CLOSE_TIMEOUT: Final = 10.0

_END: Final = None  # the end of one attempt's requests

_log = logging.getLogger("tienlen_client")


class _Pending:
    """A move sent and not yet answered."""

    __slots__ = ("deadline", "future", "game", "request")

    def __init__(
        self,
        request: service_pb2.PlayStreamRequest,
        game: Game,
        future: Future[Game],
        deadline: float,
    ) -> None:
        self.request = request
        self.game = game  # the game the move was made on: a basic answer is followed from it
        self.future = future
        self.deadline = deadline  # time.monotonic() after which it no longer waits for a replica


class MoveStream:
    """One PlayStream call shared by any number of tables and threads; see the module doc.

    Made by `TienLenClient.play_stream()`. `timeout` is the default wait for one move's
    answer; `max_attempts` how many streams in a row may break before the waiting moves fail;
    `update_view` how moves are answered by default; `channel` the stub's channel (to wait for
    a ready replica after a break; without it a break counts as an attempt whatever its code);
    `batch` whether moves go in batches, and `max_request_bytes` the service's request limit
    if the caller knows it (else the service tells it: `tienlen_client.batching`); `deal_key`
    the host's, sent with every move (the chop seats, RULES §9.5). The default wait is kept as
    `default_timeout` (`timeout` is the host's time-out move).
    """

    def __init__(
        self,
        stub: service_pb2_grpc.TienLenEngineStub,
        *,
        channel: grpc.Channel | None = None,
        timeout: float,
        max_attempts: int,
        update_view: UpdateView = "full",
        batch: bool = False,
        max_request_bytes: int | None = None,
        deal_key: str = "",
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.update_view = check_update_view(update_view)
        self._stub = stub
        self._deal_key = deal_key
        self._limit = RequestLimit(max_request_bytes) if batch else None
        self._channel = channel
        self.default_timeout = timeout
        self._max_attempts = max_attempts
        self._fetching: set[Future[Game]] = set()  # answers waiting for GetView
        self._lock = threading.Lock()
        self._tags = itertools.count(1)
        self._pending: dict[str, _Pending] = {}
        self._closing = False
        self._failed: TienLenError | None = None
        self._requests: queue.SimpleQueue[service_pb2.PlayStreamRequest | None]
        self._requests = queue.SimpleQueue()
        self._work = threading.Event()  # set when a move (or the close) is queued
        self._reader = threading.Thread(target=self._run, name="tienlen-play-stream", daemon=True)
        self._call: grpc.Call | None = None
        self._reader.start()

    # --- moves --------------------------------------------------------------------------------

    def submit(
        self,
        game: Game,
        seat: int,
        cards_: CardsLike | None,
        *,
        update_view: UpdateView | None = None,
    ) -> Future[Game]:
        """Send a move (cards to play, or None to pass) without waiting: a future of the game
        after it. The future raises what ApplyMove would raise (`MoveRejected`, ...).
        `update_view`: ``"full"`` or ``"basic"`` (default: the stream's)."""
        return self._send(game, seat, move(cards_), update_view)

    def _send(
        self,
        game: Game,
        seat: int,
        wire_move: moves_pb2.Move,
        update_view: UpdateView | None,
    ) -> Future[Game]:
        """Queue one move: a future of the game after it (see `submit`)."""
        check_move(game, seat)
        wanted = self.update_view if update_view is None else check_update_view(update_view)
        apply = apply_request(game, seat, wire_move, wanted, self._deal_key)
        future: Future[Game] = Future()
        with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._closing:
                raise RuntimeError("the move stream is closed")
            tag = str(next(self._tags))
            request = service_pb2.PlayStreamRequest(tag=tag, move=apply)
            deadline = time.monotonic() + self.default_timeout
            self._pending[tag] = _Pending(request, game, future, deadline)
            self._requests.put(request)
            self._work.set()
        return future

    def play(
        self,
        game: Game,
        seat: int,
        cards_: CardsLike,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """Play cards for `seat` and wait for the answer; raises `MoveRejected` when illegal."""
        return self._wait(self.submit(game, seat, cards_, update_view=update_view), timeout)

    def pass_turn(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """Pass for `seat` and wait for the answer; raises `MoveRejected` when it may not."""
        return self._wait(self.submit(game, seat, None, update_view=update_view), timeout)

    def timeout(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """The host's time-out of `seat` (the seat to act), as `TienLenClient.timeout`."""
        return self._wait(self._send(game, seat, TIMEOUT_MOVE, update_view), timeout)

    def leave(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """`seat`'s player left during the game, as `TienLenClient.leave`."""
        return self._wait(self._send(game, seat, LEAVE_MOVE, update_view), timeout)

    def _wait(self, future: Future[Game], timeout: float | None) -> Game:
        limit = self.default_timeout if timeout is None else timeout
        try:
            return future.result(limit)
        except FutureTimeout:
            raise Unavailable(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                "",
                f"no answer to the move within {limit} s (it may still be answered)",
            ) from None

    # --- lifetime -----------------------------------------------------------------------------

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """End the stream once every move sent is answered (waits up to `timeout` seconds,
        then cancels the call: moves still unanswered then fail with `Unavailable`)."""
        with self._lock:
            if not self._closing:
                self._closing = True
                self._requests.put(_END)
                self._work.set()
        self._reader.join(timeout)
        if self._reader.is_alive():
            call = self._call
            if call is not None:
                call.cancel()  # type: ignore[no-untyped-call] # grpc-stubs leaves it untyped
            self._reader.join(timeout)
        with self._lock:
            fetching = list(self._fetching)
        concurrent.futures.wait(fetching, timeout)  # answers still waiting for their view

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- the reader thread --------------------------------------------------------------------

    def _run(self) -> None:
        """Open streams one after the other while moves are waiting; route every answer."""
        failures = 0
        while True:
            requests = self._requests
            sent = Sent()  # what grpc took from this stream's queue
            call = self._stub.PlayStream(
                drain(requests, sent, limit=self._limit), metadata=request_metadata()
            )
            self._call = call
            error: grpc.RpcError | None = None
            try:
                if self._limit is not None:  # the service tells its limit as the stream starts
                    self._limit.hear(call.initial_metadata())
                for response in call:
                    failures = 0
                    self._answer(response)
            except grpc.RpcError as exc:
                error = exc
            with self._lock:
                refused = self._refused_for_size(error, sent)
                if self._closing and not self._pending:
                    return
                code = error.code() if isinstance(error, grpc.Call) else None
                retryable = error is None or code in RETRYABLE or connection_lost(error)
                # Idle: no move waits, or the replica ended the stream cleanly (a drain) without
                # losing a move it took, or refused a message for its size (not a break); the
                # moves waiting go to the next stream at once. A stream that broke still counts
                # as an attempt.
                lost = any(tag in sent.tags for tag in self._pending)
                idle = (
                    not self._closing
                    and retryable
                    and (not self._pending or (error is None and not lost) or refused)
                )
                # UNAVAILABLE: the replica went away or none answers. Not an attempt: wait for a
                # ready one (below), within the waiting moves' deadline.
                waits_for_replica = (
                    self._channel is not None
                    and code == grpc.StatusCode.UNAVAILABLE
                    and not self._closing
                )
                failures = 0 if idle else failures + (0 if waits_for_replica else 1)
                if not idle and (
                    not retryable
                    or failures >= self._max_attempts
                    or (self._closing and code == grpc.StatusCode.CANCELLED)
                ):
                    self._fail_all(
                        from_rpc_error(error)
                        if error is not None
                        else Unavailable(
                            grpc.StatusCode.UNAVAILABLE, "", "the stream ended before answering"
                        )
                    )
                    return
                # A new queue for the next stream: grpc may still be reading the old one, and
                # must not take the moves meant for the new stream. The end marker frees it.
                requests.put(_END)
                self._requests = queue.SimpleQueue()
                for pending in self._pending.values():
                    self._requests.put(pending.request)
                if self._closing:
                    self._requests.put(_END)
                self._work.clear()
            if idle:
                if not self._pending:
                    self._work.wait()  # no move waits: reconnect when the next one comes
                continue
            time.sleep(min(BACKOFF_MAX, BACKOFF_INITIAL * 2 ** (max(failures, 1) - 1)))
            if waits_for_replica and not self._replica_ready_in_time():
                with self._lock:
                    self._fail_all(
                        Unavailable(
                            grpc.StatusCode.UNAVAILABLE,
                            "",
                            "no replica was ready within the deadline of the moves waiting",
                        )
                    )
                return

    def _replica_ready_in_time(self) -> bool:
        """Wait until the channel is ready (a replica accepts connections), at most until the
        earliest deadline of the moves waiting; whether it became ready in time."""
        with self._lock:
            deadlines = [pending.deadline for pending in self._pending.values()]
        if not deadlines or self._channel is None:
            return True
        remaining = min(deadlines) - time.monotonic()
        if remaining <= 0:
            return False
        ready = grpc.channel_ready_future(self._channel)
        try:
            ready.result(timeout=remaining)
        except grpc.FutureTimeoutError:
            ready.cancel()
            return False
        return True

    def _refused_for_size(self, error: grpc.RpcError | None, sent: Sent) -> bool:
        """Whether the service ended the stream refusing a message for its size (lock held):
        then it is never sent again (`batching`): the limit goes below its size, so a batch's
        moves go again in smaller messages, and a move refused alone fails with the refusal."""
        refused = refused_for_size(error, sent, self._pending)
        if refused is None or self._limit is None or error is None:
            return False
        tags, size, named = refused
        details = error.details() if isinstance(error, grpc.Call) else None
        self._limit.refused(size, details, named)
        if len(tags) == 1 and (pending := self._pending.pop(tags[0], None)) is not None:
            pending.future.set_exception(from_rpc_error(error))
        return True

    def _answer(
        self, response: service_pb2.PlayStreamResponse | service_pb2.StreamMoveResult
    ) -> None:
        if isinstance(response, service_pb2.PlayStreamResponse) and response.HasField("batch"):
            for result in response.batch.results:  # each as if it had come alone
                self._answer(result)
            return
        with self._lock:
            pending = self._pending.pop(response.tag, None)
        if pending is None:  # pragma: no cover - the service answers each tag once
            return
        if response.HasField("error"):
            pending.future.set_exception(from_stream_error(response.error))
            return
        update = response.applied.game
        try:
            if update.HasField("view"):
                game = Game.from_pb(update, pending.game.seat_tokens, previous=pending.game)
            else:
                game = follow_game(pending.game, update)
        except CannotFollow as exc:
            _log.warning("asking GetView: cannot follow the table from the events: %s", exc)
            self._fetch_view(pending, update)
            return
        except Exception as exc:  # noqa: BLE001 - the move's caller gets it; the reader goes on
            pending.future.set_exception(exc)
            return
        pending.future.set_result(game)

    def _fetch_view(self, pending: _Pending, update: game_pb2.GameUpdate) -> None:
        """Answer `pending` with `update` and the view GetView gives for its state, without
        waiting for it here (the reader thread has the other answers to route)."""
        future = pending.future
        with self._lock:
            self._fetching.add(future)
        request = service_pb2.GetViewRequest(state_token=update.state_token)
        try:
            call = self._stub.GetView.future(
                request, timeout=self.default_timeout, metadata=request_metadata(update.game_id)
            )
        except Exception as exc:  # noqa: BLE001 - the move's caller gets it; the reader goes on
            with self._lock:
                self._fetching.discard(future)
            future.set_exception(from_rpc_error(exc) if isinstance(exc, grpc.RpcError) else exc)
            return

        def done(answered: grpc.Future[service_pb2.GetViewResponse]) -> None:
            try:
                view = View.from_pb(answered.result().view)
                future.set_result(
                    Game.from_pb(update, pending.game.seat_tokens, view, previous=pending.game)
                )
            except grpc.RpcError as error:
                future.set_exception(from_rpc_error(error))
            except Exception as exc:  # noqa: BLE001 - the move's caller gets it
                future.set_exception(exc)
            finally:
                with self._lock:
                    self._fetching.discard(future)

        call.add_done_callback(done)

    def _fail_all(self, error: TienLenError) -> None:
        """Fail every waiting move and every later submit with `error` (lock held)."""
        self._failed = error
        for pending in self._pending.values():
            pending.future.set_exception(error)
        self._pending.clear()
