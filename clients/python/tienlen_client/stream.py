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
stream takes one go with it as one message (PlayStreamRequest.batch, up to MAX_BATCH), each
answered as if alone; off by default, since a replica older than batches would not answer one.

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

from tienlen.v1 import game_pb2, service_pb2
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

if TYPE_CHECKING:
    from collections.abc import Iterator

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
#: The most moves one PlayStream message carries (the service's limit).
MAX_BATCH: Final = 64
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
    a ready replica after a break; without it a break counts as an attempt whatever its code).
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
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.update_view = check_update_view(update_view)
        self._stub = stub
        self._batch = batch
        self._channel = channel
        self.timeout = timeout
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
        check_move(game, seat)
        wanted = self.update_view if update_view is None else check_update_view(update_view)
        apply = apply_request(game, seat, move(cards_), wanted)
        future: Future[Game] = Future()
        with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._closing:
                raise RuntimeError("the move stream is closed")
            tag = str(next(self._tags))
            request = service_pb2.PlayStreamRequest(tag=tag, move=apply)
            deadline = time.monotonic() + self.timeout
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

    def _wait(self, future: Future[Game], timeout: float | None) -> Game:
        limit = self.timeout if timeout is None else timeout
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
            sent: set[str] = set()  # the tags grpc took from this stream's queue
            call = self._stub.PlayStream(
                _drain(requests, sent, batch=self._batch), metadata=request_metadata()
            )
            self._call = call
            error: grpc.RpcError | None = None
            try:
                for response in call:
                    failures = 0
                    self._answer(response)
            except grpc.RpcError as exc:
                error = exc
            with self._lock:
                if self._closing and not self._pending:
                    return
                code = error.code() if isinstance(error, grpc.Call) else None
                retryable = error is None or code in RETRYABLE or connection_lost(error)
                # Idle: no move waits, or the replica ended the stream cleanly (a drain) without
                # losing a move it took; the moves submitted after its end, never sent on it,
                # go to the next stream at once. A stream that broke still counts as an attempt.
                lost = any(tag in sent for tag in self._pending)
                idle = (
                    not self._closing
                    and retryable
                    and (not self._pending or (error is None and not lost))
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

    def _answer(self, response: service_pb2.PlayStreamResponse) -> None:
        if response.batch:  # a batch's answers, each as if it had come alone
            for element in response.batch:
                self._answer(element)
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
                request, timeout=self.timeout, metadata=request_metadata()
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


def _drain(
    requests: queue.SimpleQueue[service_pb2.PlayStreamRequest | None],
    sent: set[str],
    *,
    batch: bool = False,
) -> Iterator[service_pb2.PlayStreamRequest]:
    """The requests of one stream, until its end marker; `sent` gets the tag of each. With
    `batch`, the moves queued by the time one is taken go with it as one message (up to
    MAX_BATCH: PlayStreamRequest.batch); a move alone goes as a message of its own."""
    while (request := requests.get()) is not None:
        sent.add(request.tag)
        moves = [request]
        end = False
        while batch and len(moves) < MAX_BATCH:
            try:
                more = requests.get_nowait()
            except queue.Empty:
                break
            if more is None:
                end = True
                break
            sent.add(more.tag)
            moves.append(more)
        yield request if len(moves) == 1 else service_pb2.PlayStreamRequest(batch=moves)
        if end:
            return
