"""`TienLenClient`: the Python client of the Tiến Lên engine service (thin: it decides no rule).

    with TienLenClient("127.0.0.1:50051") as client:
        game = client.new_game(variant="southern", players=4, seed=7)
        game = client.play(game, game.to_act, ["3S"])

Every call has a deadline (`timeout`, default 5 s, per call overridable). Every RPC of the
service is a pure function of its request, so the channel retries UNAVAILABLE and
RESOURCE_EXHAUSTED automatically (the gRPC service config's retryPolicy, with backoff); with
several addresses the channel balances calls over them (`round_robin`). Errors come back as
typed exceptions (`tienlen_client.errors`); an illegal move raises `MoveRejected`.

Game hosts should make moves with ``update_view="basic"`` (on the client, per call, or on a
`play_stream`): the service then leaves the spectator view out of its answer (about half the
bytes and a third less work per move) and the client follows the view from the answer's
events (`tienlen_client.follow`), so the returned `Game` is the same as with the full answer.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Final, Self, TypeVar

import grpc

from tienlen.v1 import cards_pb2, game_pb2, moves_pb2, rules_pb2, service_pb2, service_pb2_grpc
from tienlen_client.cards import CardsLike, cards, move, texts
from tienlen_client.channel import (
    DEFAULT_ATTEMPTS,
    RETRY_BACKOFF_INITIAL,
    RETRY_BACKOFF_MAX,
    channel_target,
    service_config,
)
from tienlen_client.checks import check_move, check_seat, combination_type_value
from tienlen_client.combination import Combination
from tienlen_client.errors import TienLenError, connection_lost, from_rpc_error
from tienlen_client.follow import (
    CannotFollow,
    UpdateView,
    apply_request,
    check_update_view,
    follow_game,
)
from tienlen_client.models import Game, LegalMove, Validation, View
from tienlen_client.record import GameRecord
from tienlen_client.record_log import GameLog, replay_error
from tienlen_client.request_ids import request_metadata
from tienlen_client.rules import Rules
from tienlen_client.stream import MoveStream

DEFAULT_TIMEOUT: Final = 5.0
DEAL_KEY_ENV: Final = "TIENLEN_DEAL_KEY"
"""The environment variable a host's client reads its deal key from (`TienLenClient`)."""

_Resp = TypeVar("_Resp")

_log = logging.getLogger("tienlen_client")


class TienLenClient:
    """A channel to the service and one method per action; use it as a context manager.

    `address`: ``"host:port"``, a target URI (``"dns:///tienlen:50051"``) or a list of IP
    ``host:port`` addresses. `credentials`: TLS channel credentials (default: plaintext).
    `timeout`: the default deadline of each call, in seconds. `max_attempts`: attempts per
    call for the transient codes (1: no retries). `health_check`: watch each replica's gRPC health and send
    nothing to one that is draining (default: on for a list of several addresses; off for one
    address, where the health watch would follow whichever replica a proxy picks).
    `update_view`: how moves (`play`, `pass_turn`, `play_stream`) are answered by default:
    ``"full"`` (the service sends the spectator view) or ``"basic"`` (it doesn't, and the
    client follows the view from the events: the same `Game`, less work for the service).
    `options`: extra channel arguments. `record_hands`: at every seeded or random deal, ask
    each seat's dealt hand (one GetView per seat, with its seat token) so that `game.record()`
    can write the game's record (docs/RECORDS.md); explicit deals need no call. `deal_key`:
    the service's deal key (its ``--deal-key-file``), sent with every seeded or explicit deal
    (`new_game`, `next_game`): the host's credential, never a player's (docs/SECURITY.md);
    default: the ``TIENLEN_DEAL_KEY`` environment variable, else none.
    """

    def __init__(
        self,
        address: str | Sequence[str],
        *,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = DEFAULT_ATTEMPTS,
        health_check: bool | None = None,
        update_view: UpdateView = "full",
        options: Iterable[tuple[str, object]] = (),
        record_hands: bool = False,
        deal_key: str | None = None,
    ) -> None:
        self.update_view = check_update_view(update_view)
        self.record_hands = record_hands
        self._deal_key = deal_key if deal_key is not None else os.environ.get(DEAL_KEY_ENV, "")
        target = channel_target(address)
        if health_check is None:
            health_check = not isinstance(address, str) and len(address) > 1
        channel_options: list[tuple[str, object]] = [
            ("grpc.service_config", service_config(max_attempts, health_check=health_check)),
            ("grpc.enable_retries", 1),
            *options,
        ]
        if credentials is None:
            self._channel = grpc.insecure_channel(target, options=channel_options)
        else:
            self._channel = grpc.secure_channel(target, credentials, options=channel_options)
        self._stub = service_pb2_grpc.TienLenEngineStub(self._channel)
        self.timeout = timeout
        self.max_attempts = max_attempts

    # --- lifetime -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the channel."""
        self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- games --------------------------------------------------------------------------------

    def new_game(
        self,
        variant: str = "southern",
        players: int | None = None,
        *,
        seed: int | None = None,
        hands: Sequence[CardsLike] | None = None,
        options: Mapping[str, object] | None = None,
        first_game: bool = True,
        leader: int | None = None,
        dealer: int = 0,
        timeout: float | None = None,
    ) -> Game:
        """Deal a new game: random, or from `seed`, or the explicit `hands` (card text per
        seat). `options` overrides rule options by name (values as text or Python values)."""
        request = service_pb2.NewGameRequest(
            rules=rules_pb2.RuleSetSpec(
                variant=variant, options={k: _option_text(v) for k, v in (options or {}).items()}
            ),
            players=players or 0,
            first_game=first_game,
            leader=leader,
            dealer=dealer,
        )
        _set_deal(request, seed, hands, self._deal_key)
        response = self._call(self._stub.NewGame, request, timeout)
        game = Game.from_pb(response.game, tuple(response.seat_tokens))
        return self._logged(game, hands, (), timeout)

    def play(
        self,
        game: Game,
        seat: int,
        cards_: CardsLike,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """Play cards for `seat`; raises `MoveRejected` (with the reason code) when illegal.
        `update_view`: this move's answer, ``"full"`` or ``"basic"`` (default: the client's)."""
        return self._apply(game, seat, move(cards_), timeout, update_view)

    def pass_turn(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """Pass for `seat`; raises `MoveRejected` when the seat may not pass. `update_view`:
        as for `play`."""
        return self._apply(game, seat, move(None), timeout, update_view)

    def next_game(
        self,
        game: Game,
        *,
        seed: int | None = None,
        hands: Sequence[CardsLike] | None = None,
        timeout: float | None = None,
    ) -> Game:
        """Deal the next game of the match (the same seat tokens stay valid)."""
        request = service_pb2.NextGameRequest(state_token=game.state)
        _set_deal(request, seed, hands, self._deal_key)
        response = self._call(self._stub.NextGame, request, timeout, game.raw.game_id)
        earlier = _earlier_records(game)
        return self._logged(Game.from_pb(response.game, game.seat_tokens), hands, earlier, timeout)

    def play_stream(
        self,
        *,
        update_view: UpdateView | None = None,
        batch: bool = False,
        max_request_bytes: int | None = None,
    ) -> MoveStream:
        """A `MoveStream`: moves of many tables over one PlayStream call, about half the server
        CPU per move of `play`/`pass_turn` (for game hosts). Close it (or use it as a context
        manager) when done; it answers every move sent before closing. `update_view`: how its
        moves are answered by default (default: the client's). `batch`: the moves submitted
        while the stream is busy go together in one message (PlayStreamRequest.batch, less
        server CPU per move), as many as fit the service's request limit: `max_request_bytes`
        if given, else the limit the service tells each stream (`tienlen_client.batching`).
        Only for services that know batches (this version on), so off by default: a replica
        from before them would not answer a batch."""
        return MoveStream(
            self._stub,
            channel=self._channel,
            timeout=self.timeout,
            max_attempts=self.max_attempts,
            update_view=self.update_view if update_view is None else update_view,
            batch=batch,
            max_request_bytes=max_request_bytes,
        )

    # --- questions ----------------------------------------------------------------------------

    def validate(
        self, game: Game, seat: int, cards_: CardsLike | None, *, timeout: float | None = None
    ) -> Validation:
        """Dry run: would playing `cards_` (or passing, when None) be legal for `seat`?"""
        check_seat(game, seat)
        request = service_pb2.ValidateMoveRequest(
            state_token=game.state,
            seat=seat,
            seat_token=game.seat_token(seat),
            move=move(cards_),
        )
        response = self._call(self._stub.ValidateMove, request, timeout, game.raw.game_id)
        return Validation(
            legal=response.legal,
            combination=Combination.from_pb(response.combination)
            if response.HasField("combination")
            else None,
            chop=response.chop,
            reason=response.reason,
            message=response.message,
        )

    def legal_moves(
        self,
        game: Game,
        seat: int,
        *,
        combination_type: str | None = None,
        length: int = 0,
        page_size: int = 0,
        timeout: float | None = None,
    ) -> list[LegalMove]:
        """Every legal move of `seat` now (all pages), optionally one group: a combination type
        (``"PAIR"``, ``"STRAIGHT"``, ...) and length."""
        check_seat(game, seat)
        type_value = moves_pb2.COMBINATION_TYPE_UNSPECIFIED
        if combination_type is not None:
            type_value = combination_type_value(combination_type)
        moves: list[LegalMove] = []
        token = ""
        while True:
            request = service_pb2.ListLegalMovesRequest(
                state_token=game.state,
                seat=seat,
                seat_token=game.seat_token(seat),
                page_size=page_size,
                page_token=token,
                filter=service_pb2.MoveGroup(type=type_value, length=length)
                if type_value or length
                else None,
            )
            response = self._call(self._stub.ListLegalMoves, request, timeout, game.raw.game_id)
            moves += [_legal_move(m) for m in response.moves]
            token = response.next_page_token
            if not token:
                return moves

    def view(self, game: Game, seat: int | None = None, *, timeout: float | None = None) -> View:
        """What `seat` sees (its own hand), or a spectator (`seat` None: no hands)."""
        if seat is not None:
            check_seat(game, seat)
        request = service_pb2.GetViewRequest(
            state_token=game.state,
            seat=seat,
            seat_token=game.seat_token(seat) if seat is not None else "",
        )
        return View.from_pb(self._call(self._stub.GetView, request, timeout, game.raw.game_id).view)

    def suggest(
        self, game: Game, seat: int, bot: str = "", *, timeout: float | None = None
    ) -> LegalMove | None:
        """A bot's suggested move for `seat` (not applied); None when the seat has nothing to
        do now (not its turn and no out-of-turn play, or the game is over)."""
        check_seat(game, seat)
        request = service_pb2.SuggestMoveRequest(
            state_token=game.state, seat=seat, seat_token=game.seat_token(seat), bot=bot
        )
        response = self._call(self._stub.SuggestMove, request, timeout, game.raw.game_id)
        if not response.HasField("move"):
            return None
        return _legal_move(
            service_pb2.LegalMove(move=response.move, combination=response.combination)
        )

    def describe_rules(self, *, timeout: float | None = None) -> Rules:
        """Every preset (variant), rule option and bot (for a settings screen)."""
        request = service_pb2.DescribeRulesRequest()
        return Rules.from_pb(self._call(self._stub.DescribeRules, request, timeout))

    # --- records (tienlen_client.record, docs/RECORDS.md) ---------------------------------------

    def record(
        self, game: Game, names: Sequence[str] = (), *, timeout: float | None = None
    ) -> GameRecord:
        """`game`'s record, as `game.record()`, asking each seat's hand (GetView, with its seat
        token) when the client does not know the dealt hands: a seat's dealt hand is what it
        holds now plus what it played."""
        log = game.log
        if log is not None and not log.hands_known:
            played: list[set[str]] = [set() for _ in range(game.players)]
            for recorded in log.moves:
                played[recorded.seat].update(recorded.cards)
            hands = [
                [*self.view(game, seat, timeout=timeout).hand, *played[seat]]
                for seat in range(game.players)
            ]
            game = dataclasses.replace(game, log=log.with_hands(hands))
        return game.record(tuple(names))

    def replay(self, record: GameRecord | str, *, timeout: float | None = None) -> Game:
        """Have the service replay a record (a `GameRecord` or its text) from the deal, every
        move checked as ApplyMove checks it: the Game after the last move (a new match, with
        its own seat tokens), whose settlement is the record's. An illegal move raises
        `RecordMoveRejected` (a `MoveRejected`) with its 1-based `move_number` and the rule's
        `reason`; a malformed record `InvalidRequest` naming the field; a record whose stated
        result is not the replay's `InvalidRequest` with reason RECORD_RESULT_MISMATCH; text
        that is not a record `RecordParseError` (line, column) before any call."""
        if isinstance(record, str):
            record = GameRecord.from_text(record)
        request = service_pb2.ReplayGameRequest(record=record.to_pb())
        try:
            response = self._call(self._stub.ReplayGame, request, timeout)
        except TienLenError as error:
            raise replay_error(error) from None
        game = Game.from_pb(response.game, tuple(response.seat_tokens))
        return dataclasses.replace(game, log=GameLog.of_record(record))

    def _logged(
        self,
        game: Game,
        hands: Sequence[CardsLike] | None,
        earlier: tuple[GameRecord, ...],
        timeout: float | None,
    ) -> Game:
        """`game` (just dealt) with its log: the hands given, or asked when `record_hands`."""
        known: list[list[str]] | None = None
        if hands is not None:
            known = [list(texts(cards(hand))) for hand in hands]
        elif self.record_hands:
            known = [
                list(self.view(game, seat, timeout=timeout).hand) for seat in range(game.players)
            ]
        return dataclasses.replace(game, log=GameLog.dealt(game.raw, known, earlier))

    # --- plumbing -----------------------------------------------------------------------------

    def _apply(
        self,
        game: Game,
        seat: int,
        wire_move: moves_pb2.Move,
        timeout: float | None,
        update_view: UpdateView | None,
    ) -> Game:
        check_move(game, seat)
        wanted = self.update_view if update_view is None else check_update_view(update_view)
        request = apply_request(game, seat, wire_move, wanted)
        update = self._call(self._stub.ApplyMove, request, timeout, game.raw.game_id).game
        if update.HasField("view"):  # asked for, or a service that always sends it
            return Game.from_pb(update, game.seat_tokens, previous=game)
        return self._follow(game, update, timeout)

    def _follow(self, game: Game, update: game_pb2.GameUpdate, timeout: float | None) -> Game:
        """The Game after an answer without a view: followed from the events, or, when they
        can't be followed, with the view GetView gives for the new state."""
        try:
            return follow_game(game, update)
        except CannotFollow as exc:
            _log.warning("asking GetView: cannot follow the table from the events: %s", exc)
        request = service_pb2.GetViewRequest(state_token=update.state_token)
        view = self._call(self._stub.GetView, request, timeout, update.game_id).view
        return Game.from_pb(update, game.seat_tokens, View.from_pb(view), previous=game)

    def _call(
        self,
        method: Callable[..., _Resp],
        request: object,
        timeout: float | None,
        game_id: bytes = b"",
    ) -> _Resp:
        """One call, within one deadline for all its attempts. The channel's retry policy
        re-sends the transient codes; a call whose stream was torn down after its answer began
        (`connection_lost`: a replica killed behind a proxy) is sent again here, up to
        `max_attempts` in all, with the same backoff and the same request id. `game_id`: the
        game the call is about (call metadata a balancer hashes: `request_ids`)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        metadata = request_metadata(game_id)
        for attempt in range(1, self.max_attempts + 1):
            try:
                return method(
                    request, timeout=max(0.0, deadline - time.monotonic()), metadata=metadata
                )
            except grpc.RpcError as error:
                if attempt == self.max_attempts or not connection_lost(error):
                    raise from_rpc_error(error) from None
                backoff = random.uniform(0.5, 1.0) * min(  # noqa: S311 - jitter, not a secret
                    RETRY_BACKOFF_MAX, RETRY_BACKOFF_INITIAL * 2 ** (attempt - 1)
                )
                if time.monotonic() + backoff >= deadline:
                    raise from_rpc_error(error) from None
                _log.info("sending the call again: its stream was reset (%s)", error.details())
                time.sleep(backoff)
        raise AssertionError("unreachable: the last attempt returns or raises")


def _earlier_records(game: Game) -> tuple[GameRecord, ...]:
    """The match's records up to `game`, for the next game's log (what is known of them)."""
    if game.log is None:
        return ()
    if not game.log.hands_known:
        return game.log.earlier
    return (*game.log.earlier, game.record())


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _set_deal(
    request: service_pb2.NewGameRequest | service_pb2.NextGameRequest,
    seed: int | None,
    hands: Sequence[CardsLike] | None,
    deal_key: str,
) -> None:
    if seed is not None and hands is not None:
        raise ValueError("give a seed or explicit hands, not both")
    if seed is not None:
        request.seed = seed
    elif hands is not None:
        request.explicit.hands.extend(cards_pb2.Hand(cards=cards(hand)) for hand in hands)
    if seed is not None or hands is not None:
        request.deal_key = deal_key  # only the host chooses a deal


def _legal_move(msg: service_pb2.LegalMove) -> LegalMove:
    if msg.move.WhichOneof("action") == "pass_turn":
        return LegalMove(is_pass=True, cards=(), combination=None, chop=False)
    return LegalMove(
        is_pass=False,
        cards=texts(msg.move.play.cards),
        combination=Combination.from_pb(msg.combination) if msg.HasField("combination") else None,
        chop=msg.chop,
    )
