"""Game records (*biên bản ván bài*) and the engine: what ReplayGame does with a `GameRecord`.

A record (protos/tienlen/v1/record.proto, docs/RECORDS.md) is checked by playing it again:
its hands are dealt with its rules, table, dealer, leader and match position exactly as NewGame
deals an explicit deal, then every move goes through `engine.apply`, the step ApplyMove takes,
in order. The first move the rules refuse stops the replay with `IllegalRecordMove` (its 1-based
number, the rule's reason, the field path); a malformed field is a `FieldError` naming its path
under ``record``. A record that states a result must reach it: a game still being played after
the last move, or another settlement, is refused (RECORD_RESULT_MISMATCH), so a replay that
stopped early is never passed off as the game the record describes.

Bounded: at most `MAX_MOVES` moves and `MAX_BYTES` bytes (RECORD_TOO_LARGE), checked before
anything is dealt; a game number and match totals that leave the match room to go on from the
replay (`MAX_GAME_NUMBER`, `MAX_MATCH_TOTAL`). Pure: protobuf in, engine values out; the
servicer encodes the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import tienlen_rules as engine
from tienlen_rules import IllegalMove, Match, Reason, SetupError, format_cards, settle
from tienlen_service import codec
from tienlen_service.codec import FieldError

if TYPE_CHECKING:
    from tienlen.v1 import record_pb2, settlement_pb2
    from tienlen_rules import Event, GameState, Move

#: At most this many moves in a record. A game has at most 52 plays and, between two plays,
#: fewer passes than seats: a few hundred moves at the very most.
MAX_MOVES: Final = 1000
#: At most this many bytes of GameRecord (a played-out game is about 2 KiB).
MAX_BYTES: Final = 16 * 1024
#: At most this many characters in a player's name.
MAX_NAME_CHARS: Final = 64
#: At most this many transfers in a stated result (a game settles a few dozen at most).
MAX_TRANSFERS: Final = 256
#: The most time-outs in a row a record may give a seat at its deal.
MAX_TIMEOUTS: Final = 1_000_000
#: The largest game number a record may give: far beyond any match, and far enough below the
#: wire's int32 that the games played on from the replay (NextGame) can still be numbered.
MAX_GAME_NUMBER: Final = 1_000_000
#: The largest match total a record may give, either way, in chips: a thousand times the most
#: any one rule option may pay (codec.MAX_OPTION_CHIPS), a thousandth of the wire's int64, so
#: that the nets of the games played on from the replay keep the totals inside it.
MAX_MATCH_TOTAL: Final = 1000 * codec.MAX_OPTION_CHIPS

RECORD_ILLEGAL_MOVE: Final = "RECORD_ILLEGAL_MOVE"
RECORD_RESULT_MISMATCH: Final = "RECORD_RESULT_MISMATCH"
RECORD_TOO_LARGE: Final = "RECORD_TOO_LARGE"


class IllegalRecordMove(Exception):  # noqa: N818 - the domain's word, as IllegalMove
    """Move `number` (1-based) of a record is refused by the rules: `reason` is the engine's
    code (DOES_NOT_BEAT, ...), `field` the path of the move's field at fault, `message` why."""

    def __init__(self, number: int, seat: int, reason: str, field: str, message: str) -> None:
        super().__init__(message)
        self.number = number
        self.seat = seat
        self.reason = reason
        self.field = field
        self.message = message

    @property
    def metadata(self) -> dict[str, str]:
        """The ErrorInfo metadata: where the replay stopped and why."""
        return {
            "move_number": str(self.number),
            "move_reason": self.reason,
            "seat": str(self.seat),
            "field": self.field,
        }


def replay(record: record_pb2.GameRecord, field: str = "record") -> tuple[GameState, list[Event]]:
    """Deal `record` and apply every move in order: the final state and every event from the
    deal on. FieldError / SetupError for a malformed record, IllegalRecordMove for the first
    move the rules refuse, FieldError RECORD_RESULT_MISMATCH when the stated result is not the
    replay's."""
    check_size(record, field)
    state, dealt = deal(record, field)
    events: list[Event] = list(dealt)
    for index, recorded in enumerate(record.moves):
        path = f"{field}.moves[{index}]"
        move = _move(recorded, index, path, state.players)
        try:
            state, step = engine.apply(state, move)
        except IllegalMove as exc:
            at = (
                f"{path}.pass_turn"
                if move.is_pass
                else f"{path}.{move.action}"
                if move.action is not None
                else f"{path}.cards"
            )
            raise _illegal(index, move.seat, str(exc.reason), at, exc.message, move) from None
        events += step
    if record.HasField("result"):
        check_result(record.result, state, f"{field}.result")
    return state, events


def check_size(record: record_pb2.GameRecord, field: str) -> None:
    """Refuse a record over the bounds (RECORD_TOO_LARGE), before any work is done on it."""
    size = record.ByteSize()
    if size > MAX_BYTES:
        raise FieldError(
            RECORD_TOO_LARGE, field, f"{size} bytes: a record may hold at most {MAX_BYTES}"
        )
    if len(record.moves) > MAX_MOVES:
        raise FieldError(
            RECORD_TOO_LARGE,
            f"{field}.moves",
            f"{len(record.moves)} moves: a record may hold at most {MAX_MOVES}",
        )
    if len(record.result.transfers) > MAX_TRANSFERS:
        raise FieldError(
            RECORD_TOO_LARGE,
            f"{field}.result.transfers",
            f"{len(record.result.transfers)} transfers: at most {MAX_TRANSFERS}",
        )


def deal(record: record_pb2.GameRecord, field: str) -> tuple[GameState, tuple[Event, ...]]:
    """The record's game as dealt: its explicit hands, rules, table and match position."""
    rules = codec.rules_from_pb(record.rules, f"{field}.rules")
    hands = tuple(
        codec.hand_from_pb(hand.cards, f"{field}.hands[{i}].cards")
        for i, hand in enumerate(record.hands)
    )
    players = record.players or len(hands)
    if not engine.MIN_PLAYERS <= players <= engine.MAX_PLAYERS:
        # Checked before anything is sized by it (the totals, the names).
        raise SetupError(
            "INVALID_PLAYER_COUNT",
            f"{players} players: {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS} play",
            f"{field}.players",
        )
    _check_names(record, players, field)
    totals = tuple(record.match_totals) or (0,) * players
    if len(totals) != players:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{field}.match_totals",
            f"{len(totals)} totals for {players} seats: give one per seat, or none",
        )
    _check_match_position(record, totals, field)
    seated, timeouts, auto = _table(record, players, field)
    try:
        match = Match(
            record.game_number or 1,
            totals,
            -1,
            record.dealer,
            engine.checked_player_ids(list(record.player_ids), players),
            (0,) * players,
            engine.checked_bankrolls(list(record.bankrolls), players),
        )
        return engine.deal_game(
            rules,
            match,
            seated,
            hands=hands,
            first_game=record.first_game,
            leader=record.leader,
            dealer=record.dealer,
            timeouts=timeouts,
            auto=auto,
        )
    except SetupError as exc:
        raise SetupError(
            exc.code, exc.message, _setup_path(exc.field, field), metadata=exc.metadata
        ) from None


def _table(
    record: record_pb2.GameRecord, players: int, field: str
) -> tuple[int, tuple[int, ...], int]:
    """The table's people at the record's deal (RULES §9): the occupied seats' mask, each
    seat's time-outs in a row and the seats on auto."""
    seated = (1 << players) - 1
    for name, seats in (("empty_seats", record.empty_seats), ("auto_seats", record.auto_seats)):
        if any(not 0 <= s < players for s in seats) or len(set(seats)) != len(seats):
            raise FieldError(
                codec.INVALID_ARGUMENT,
                f"{field}.{name}",
                f"seats of this table of {players}, each once",
            )
    for seat in record.empty_seats:
        seated &= ~(1 << seat)
    timeouts = tuple(record.timeouts)
    if len(timeouts) not in (0, players) or any(not 0 <= t <= MAX_TIMEOUTS for t in timeouts):
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{field}.timeouts",
            f"one count per seat (0 to {MAX_TIMEOUTS}), or none",
        )
    auto = sum(1 << s for s in record.auto_seats)
    if auto & ~seated:
        raise FieldError(
            codec.INVALID_ARGUMENT, f"{field}.auto_seats", "an empty seat is not on auto"
        )
    return seated, timeouts, auto


def _setup_path(engine_field: str, field: str) -> str:
    """The record path of an engine SetupError field (``hands[2]`` -> ``record.hands[2]``);
    hand paths from `hand_from_pb` are already full."""
    if engine_field.startswith(field):
        return engine_field
    return f"{field}.{engine_field}" if engine_field else field


def _check_match_position(
    record: record_pb2.GameRecord, totals: tuple[int, ...], field: str
) -> None:
    """The game number and totals must leave room for the match to go on: a replay's state
    token plays on (NextGame adds one to the number and each game's net to the totals), and a
    number or total past the wire's int32 / int64 could not be answered."""
    if not 0 <= record.game_number <= MAX_GAME_NUMBER:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{field}.game_number",
            f"game {record.game_number}: a record's game number is 1 to {MAX_GAME_NUMBER}"
            " (0: unset, read as 1)",
        )
    for seat, total in enumerate(totals):
        if abs(total) > MAX_MATCH_TOTAL:
            raise FieldError(
                codec.INVALID_ARGUMENT,
                f"{field}.match_totals[{seat}]",
                f"{total} chips: a match total is at most {MAX_MATCH_TOTAL} either way",
            )


def _check_names(record: record_pb2.GameRecord, players: int, field: str) -> None:
    names = record.player_names
    if names and len(names) != players:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{field}.player_names",
            f"{len(names)} names for {players} seats: give one per seat, or none",
        )
    for seat, name in enumerate(names):
        if len(name) > MAX_NAME_CHARS or not name.isprintable():
            raise FieldError(
                codec.INVALID_ARGUMENT,
                f"{field}.player_names[{seat}]",
                f"a name is at most {MAX_NAME_CHARS} printable characters",
            )


def _move(recorded: record_pb2.RecordedMove, index: int, path: str, players: int) -> Move:
    """The engine move of recorded move `index` at `path` (malformed: FieldError; a seat not
    at the table: IllegalRecordMove INVALID_SEAT, the rules' word for it)."""
    if not 0 <= recorded.seat < players:
        raise IllegalRecordMove(
            index + 1,
            recorded.seat,
            str(Reason.INVALID_SEAT),
            f"{path}.seat",
            f"move {index + 1}: seat {recorded.seat} is not at this table of {players}",
        )
    kinds = [name for name in ("pass_turn", "timeout", "leave") if getattr(recorded, name)]
    if len(kinds) > 1:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{path}.{kinds[1]}",
            f"a move is one of a play, a pass, a time-out or a leave, not {' and '.join(kinds)}",
        )
    if kinds:
        if recorded.cards:
            raise FieldError(
                codec.INVALID_ARGUMENT,
                f"{path}.cards",
                f"a {kinds[0].replace('_turn', '')} plays no cards: leave them empty",
            )
        make = {"pass_turn": engine.pass_turn, "timeout": engine.timeout, "leave": engine.leave}
        return make[kinds[0]](recorded.seat)
    if not recorded.cards:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            f"{path}.cards",
            "a move plays cards or is a pass (pass_turn), a time-out or a leave",
        )
    return engine.play(recorded.seat, codec.cards_from_pb(recorded.cards, f"{path}.cards"))


def _illegal(
    index: int, seat: int, reason: str, field: str, why: str, move: Move
) -> IllegalRecordMove:
    what = (
        "pass"
        if move.is_pass
        else str(move.action)
        if move.action is not None
        else format_cards(sum(1 << c for c in set(move.cards)))
    )
    return IllegalRecordMove(
        index + 1, seat, reason, field, f"move {index + 1} (seat {seat}: {what}) is illegal: {why}"
    )


def check_result(result: record_pb2.RecordResult, state: GameState, field: str) -> None:
    """The stated result must be the replay's settlement: places, nets and every transfer."""
    if not state.over:
        raise FieldError(
            RECORD_RESULT_MISMATCH,
            field,
            f"the record states a result, but after its {state.move_count} moves the game is"
            f" not over (seat {state.to_act} to act): moves are missing",
        )
    actual = codec.settlement_to_pb(settle(state))
    for name, stated, replayed in (
        ("places", list(result.places), list(actual.places)),
        ("net", list(result.net), list(actual.net)),
    ):
        if stated != replayed:
            raise FieldError(
                RECORD_RESULT_MISMATCH,
                f"{field}.{name}",
                f"the record states {name} {stated}, the replay gives {replayed}",
            )
    stated_transfers = [_transfer_key(t) for t in result.transfers]
    replayed_transfers = [_transfer_key(t) for t in actual.transfers]
    if stated_transfers != replayed_transfers:
        at = next(
            (
                i
                for i, (a, b) in enumerate(zip(stated_transfers, replayed_transfers, strict=False))
                if a != b
            ),
            min(len(stated_transfers), len(replayed_transfers)),
        )
        raise FieldError(
            RECORD_RESULT_MISMATCH,
            f"{field}.transfers[{at}]",
            f"the record states {len(stated_transfers)} transfers, the replay gives"
            f" {len(replayed_transfers)}; they differ from transfer {at + 1} on",
        )


_TransferKey = tuple[int, int, int, int, frozenset[tuple[int, int]], int]


def _transfer_key(transfer: settlement_pb2.Transfer) -> _TransferKey:
    """A transfer as compared: its cards as a set (their order is not part of the result), and
    what was owed when the loss cap cut it (RULES §9.2)."""
    cards = frozenset((int(c.rank), int(c.suit)) for c in transfer.cards)
    return (
        transfer.payer,
        transfer.payee,
        transfer.amount,
        int(transfer.reason),
        cards,
        transfer.owed,
    )
