"""The record of a followed game: `GameLog`, and the errors of writing or replaying records.

`GameLog` is what a `Game` carries to make its record: the facts of the deal and the moves,
taken from the answers the client followed (nothing is added to the state token).
`TienLenClient.replay` has the service check a record; a move it refuses is raised as a
`RecordMoveRejected`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc

from tienlen.v1 import cards_pb2, events_pb2, game_pb2
from tienlen_client.cards import RANKS, SUITS, card, texts
from tienlen_client.errors import MoveRejected, TienLenError
from tienlen_client.record import GameRecord, MatchRecord, RecordedMove, RecordResult
from tienlen_client.record_syntax import strength

if TYPE_CHECKING:
    from tienlen_client.models import Game, Settlement

RECORD_ILLEGAL_MOVE: Final = "RECORD_ILLEGAL_MOVE"


class RecordMoveRejected(MoveRejected):
    """The service refused move `move_number` (1-based) of a replayed record; `reason` is the
    rule's code (``DOES_NOT_BEAT``, ...), `field` the record field at fault."""

    def __init__(
        self,
        move_number: int,
        reason: str,
        message: str,
        metadata: dict[str, str],
        field_violations: tuple[tuple[str, str], ...],
    ) -> None:
        super().__init__(
            grpc.StatusCode.INVALID_ARGUMENT, reason, message, metadata, field_violations
        )
        self.move_number = move_number
        self.field = metadata.get("field", "")


class RecordUnavailable(TienLenError):  # noqa: N818 - a condition, as the other errors
    """The client can't write this game's record: it does not know the dealt hands (a seeded
    or random deal, with a client made without ``record_hands=True``). `client.record(game)`
    asks the service for them."""

    def __init__(self, detail: str) -> None:
        super().__init__(grpc.StatusCode.FAILED_PRECONDITION, "RECORD_UNAVAILABLE", detail)


# --- the log of a followed game --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameLog:
    """What the client followed of one game: the deal (its rules, table and match position as
    the deal's answer gave them, in `deal`: a record without moves or result), whether the
    dealt hands are known (`hands_known`: not for a seeded or random deal the client did not
    ask about), and every move since, from the answers' events (each move produces exactly one
    Played or Passed event, after a TimedOut for the host's time-out; a leave is its
    PlayerLeft). `earlier`: the records of the match's earlier games. `played`: every play made
    (a time-out's included), for the dealt hands a seat's view gives back (`with_hands`)."""

    deal: GameRecord
    hands_known: bool
    moves: tuple[RecordedMove, ...] = ()
    earlier: tuple[GameRecord, ...] = ()
    played: tuple[RecordedMove, ...] = ()

    @classmethod
    def dealt(
        cls,
        update: game_pb2.GameUpdate,
        hands: Sequence[Sequence[str]] | None,
        earlier: tuple[GameRecord, ...] = (),
    ) -> GameLog:
        """The log of a game just dealt (a NewGame or NextGame answer, which carries a view)."""
        view = update.view
        leader = next(
            (e.game_started.leader for e in update.events if e.HasField("game_started")),
            view.to_act,
        )
        deal = GameRecord(
            variant=view.rules.variant or "southern",
            players=view.players,
            dealer=view.dealer,
            leader=leader,
            first_game=view.first_game,
            game_number=view.game_number,
            match_totals=tuple(s.match_total for s in view.seats),
            hands=() if hands is None else tuple(_canonical(h) for h in hands),
            options=tuple(sorted(view.rules.options.items())),
            replayed=update.replayed or view.replayed,
            **_people(view),
        )
        return cls(deal, hands is not None, (), earlier)

    @classmethod
    def of_record(cls, record: GameRecord) -> GameLog:
        """The log of a replayed record: its deal and its moves, in a match the service marked
        replayed (the game's record says so)."""
        deal = dataclasses.replace(record, moves=(), result=None, replayed=True)
        return cls(deal, hands_known=True, moves=record.moves)

    def followed(self, update: game_pb2.GameUpdate) -> GameLog:
        """The log after a move's answer."""
        moves = tuple(_moves(update.events))
        if not moves:
            return self
        played = tuple(
            RecordedMove(e.played.seat, texts(e.played.combination.cards))
            for e in update.events
            if e.HasField("played")
        )
        return dataclasses.replace(self, moves=self.moves + moves, played=self.played + played)

    def with_hands(self, hands: Sequence[Sequence[str]]) -> GameLog:
        """The same log, the dealt hands known."""
        deal = dataclasses.replace(self.deal, hands=tuple(_canonical(h) for h in hands))
        return dataclasses.replace(self, deal=deal, hands_known=True)

    def record(self, settlement: Settlement | None, names: Sequence[str] = ()) -> GameRecord:
        """The game's record (RecordUnavailable when the dealt hands are unknown)."""
        if not self.hands_known:
            raise RecordUnavailable(
                "the client does not know this game's dealt hands (a seeded or random deal):"
                " make the client with record_hands=True, or ask client.record(game)"
            )
        return dataclasses.replace(
            self.deal,
            moves=self.moves,
            result=None if settlement is None else RecordResult.of(settlement),
            names=tuple(names) or self.deal.names,
        )


def _canonical(hand: Sequence[str] | str) -> tuple[str, ...]:
    tokens = hand.replace(",", " ").split() if isinstance(hand, str) else list(hand)
    return tuple(sorted((_name(card(t)) for t in tokens), key=strength))


def _name(wire: cards_pb2.Card) -> str:
    return RANKS[wire.rank - 1] + SUITS[wire.suit - 1]


def _people(view: game_pb2.TableView) -> dict[str, Any]:
    """The table's people at a deal (RULES §9), as the GameRecord fields of that name: each
    only when it says something."""
    seats = view.seats
    return {
        "empty_seats": tuple(s.seat for s in seats if s.empty),
        "player_ids": tuple(s.player_id for s in seats) if any(s.player_id for s in seats) else (),
        "bankrolls": tuple(s.bankroll for s in seats)
        if any(s.HasField("bankroll") for s in seats)
        else (),
        "timeouts": tuple(s.timeouts for s in seats) if any(s.timeouts for s in seats) else (),
        "auto_seats": tuple(s.seat for s in seats if s.auto),
    }


def _moves(events: Sequence[events_pb2.Event]) -> Iterator[RecordedMove]:
    """The moves of an answer's events: a play or a pass, the host's time-out (its TimedOut,
    then the play or pass it made, which the record does not repeat) or a leave."""
    timed_out = -1
    for event in events:
        kind = event.WhichOneof("kind")
        if kind == "timed_out":
            timed_out = event.timed_out.seat
            yield RecordedMove(timed_out, timeout=True)
        elif kind == "player_left":
            yield RecordedMove(event.player_left.seat, leave=True)
        elif kind == "played" and event.played.seat != timed_out:
            yield RecordedMove(event.played.seat, texts(event.played.combination.cards))
        elif kind == "passed" and event.passed.seat != timed_out:
            yield RecordedMove(event.passed.seat)


def record_of(game: Game, names: Sequence[str] = ()) -> GameRecord:
    """`game`'s record from its log (RecordUnavailable without one, or without the hands)."""
    if game.log is None:
        raise RecordUnavailable("this Game carries no log (it was not made by TienLenClient)")
    return game.log.record(game.settlement, names)


def match_record_of(game: Game) -> MatchRecord:
    """The match so far: the earlier games the client followed, then `game`."""
    if game.log is None:
        raise RecordUnavailable("this Game carries no log (it was not made by TienLenClient)")
    return MatchRecord((*game.log.earlier, record_of(game)))


def replay_error(error: TienLenError) -> TienLenError:
    """A ReplayGame refusal as raised to the caller: an illegal move becomes a
    RecordMoveRejected (a MoveRejected) with its 1-based `move_number` and the rule's reason."""
    if error.reason != RECORD_ILLEGAL_MOVE:
        return error
    meta = error.metadata
    try:
        number = int(meta.get("move_number", ""))
    except ValueError:
        return error
    return RecordMoveRejected(
        number, meta.get("move_reason", error.reason), error.message, meta, error.field_violations
    )
