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
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import grpc

from tienlen.v1 import game_pb2, moves_pb2, service_pb2
from tienlen_client.calls import DEFAULT_TIMEOUT, ServiceCalls
from tienlen_client.cards import CardsLike, cards, move, texts
from tienlen_client.channel import DEFAULT_ATTEMPTS
from tienlen_client.checks import check_move, check_seat, combination_type_value
from tienlen_client.combination import Combination
from tienlen_client.deals import new_game_request, next_game_request
from tienlen_client.errors import TienLenError
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
from tienlen_client.rules import Rules
from tienlen_client.stream import MoveStream
from tienlen_client.table import LEAVE_MOVE, TIMEOUT_MOVE, Newcomer, seat_tokens_after

DEAL_KEY_ENV: Final = "TIENLEN_DEAL_KEY"
"""The environment variable a host's client reads its deal key from (`TienLenClient`)."""

_log = logging.getLogger("tienlen_client")


class TienLenClient(ServiceCalls):
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
    (`new_game`, `next_game`), and with every move and spectator view so that a service that
    checks seat tokens names the seats that could chop out of turn (`game.chop_seats`): the
    host's credential, never a player's (docs/SECURITY.md); default: the ``TIENLEN_DEAL_KEY``
    environment variable, else none.
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
        super().__init__(
            address,
            credentials=credentials,
            timeout=timeout,
            max_attempts=max_attempts,
            health_check=health_check,
            options=options,
        )
        self.update_view = check_update_view(update_view)
        self.record_hands = record_hands
        self._deal_key = deal_key if deal_key is not None else os.environ.get(DEAL_KEY_ENV, "")

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
        player_ids: Sequence[str] | None = None,
        bankrolls: Sequence[int] | None = None,
        timeout: float | None = None,
    ) -> Game:
        """Deal a new game: random, or from `seed`, or the explicit `hands` (card text per
        seat). `options` overrides rule options by name (values as text or Python values).
        At a table of people (docs/HOSTS.md): `player_ids`, the host's own id of each seat's
        player, and `bankrolls`, each seat's chips (a seat below the table's minimum:
        `MoveRejected` BANKROLL_TOO_LOW, naming the seat and its shortfall)."""
        request = new_game_request(
            variant,
            players,
            seed=seed,
            hands=hands,
            options=options,
            first_game=first_game,
            leader=leader,
            dealer=dealer,
            player_ids=player_ids,
            bankrolls=bankrolls,
            deal_key=self._deal_key,
        )
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

    def timeout(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """The host's report that `seat`, the seat to act, ran out of time (RULES §9.3): the
        service plays the table's time-out move for it (by default a pass, or its lowest single
        that may lead); after `auto_after_timeouts` in a row the seat is on auto. Another seat:
        `MoveRejected` NOT_YOUR_TURN."""
        return self._apply(game, seat, TIMEOUT_MOVE, timeout, update_view)

    def leave(
        self,
        game: Game,
        seat: int,
        *,
        timeout: float | None = None,
        update_view: UpdateView | None = None,
    ) -> Game:
        """The host's report that `seat`'s player left during the game (RULES §9.4): the
        table's `leave_mid_game` decides (play out on auto, or forfeit; `refuse`: MoveRejected
        LEAVE_REFUSED). The game goes on for the others."""
        return self._apply(game, seat, LEAVE_MOVE, timeout, update_view)

    def next_game(
        self,
        game: Game,
        *,
        seed: int | None = None,
        hands: Sequence[CardsLike] | None = None,
        leaving: Iterable[int] = (),
        joining: Sequence[Newcomer] = (),
        bankrolls: Sequence[int] | None = None,
        timeout: float | None = None,
    ) -> Game:
        """Deal the next game of the match (the seat tokens of the players who stay stay
        valid). Between games players may leave (`leaving`: their seats) and newcomers sit down
        (`joining`, each in a seat that is empty for the next game); a seat whose player left
        during the game leaves by itself. The newcomers' seat tokens take their seats in
        `seat_tokens` (a leaver's becomes ""). `bankrolls`: each seat's chips for the next game
        (default: carried, each newcomer bringing its `Newcomer.bankroll`). `hands`: one per
        seat of the next game's table, "" for an empty seat."""
        joining = tuple(joining)
        request = next_game_request(
            game,
            seed=seed,
            hands=hands,
            leaving=leaving,
            joining=joining,
            bankrolls=bankrolls,
            deal_key=self._deal_key,
        )
        response = self._call(self._stub.NextGame, request, timeout, game.raw.game_id)
        staying = request.seating.staying if request.HasField("seating") else None
        tokens = seat_tokens_after(game, response.game.view.players, response.seat_tokens, staying)
        earlier = _earlier_records(game)
        return self._logged(Game.from_pb(response.game, tokens), hands, earlier, timeout)

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
            timeout=self.default_timeout,
            max_attempts=self.max_attempts,
            update_view=self.update_view if update_view is None else update_view,
            batch=batch,
            max_request_bytes=max_request_bytes,
            deal_key=self._deal_key,
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
            deal_key=self._deal_key if seat is None else "",
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
            for event in log.played:
                played[event.seat].update(event.cards)
            hands = [
                []
                if seat in log.deal.empty_seats
                else [*self.view(game, seat, timeout=timeout).hand, *played[seat]]
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
                [] if info.empty else list(self.view(game, seat, timeout=timeout).hand)
                for seat, info in enumerate(game.view.seats)
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
        request = apply_request(game, seat, wire_move, wanted, self._deal_key)
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
        request = service_pb2.GetViewRequest(
            state_token=update.state_token, deal_key=self._deal_key
        )
        view = self._call(self._stub.GetView, request, timeout, update.game_id).view
        return Game.from_pb(update, game.seat_tokens, View.from_pb(view), previous=game)


def _earlier_records(game: Game) -> tuple[GameRecord, ...]:
    """The match's records up to `game`, for the next game's log (what is known of them)."""
    if game.log is None:
        return ()
    if not game.log.hands_known:
        return game.log.earlier
    return (*game.log.earlier, game.record())


def _legal_move(msg: service_pb2.LegalMove) -> LegalMove:
    if msg.move.WhichOneof("action") == "pass_turn":
        return LegalMove(is_pass=True, cards=(), combination=None, chop=False)
    return LegalMove(
        is_pass=False,
        cards=texts(msg.move.play.cards),
        combination=Combination.from_pb(msg.combination) if msg.HasField("combination") else None,
        chop=msg.chop,
    )
