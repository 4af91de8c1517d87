"""Game records (*biên bản ván bài*): the model of a game written down, and its message.

A `GameRecord` holds everything needed to deal a game again and play it move by move: the
rules (preset and option overrides), the table (players, dealer, leader, first game or not, the
game's number in its match and the totals before it), its people (RULES §9: empty seats, the
host's player ids, bankrolls, time-outs in a row and seats on auto at the deal), the dealt
hands, every move (a seat's cards, a pass, or the host's time-out or leave) and the result
(places, transfers, nets), and the text's own tags (`Event`, `Date`, ...). A match is a
sequence of games: `MatchRecord`.

The record is split by concept, as the Node client's `record.ts` and `record-text.ts`:

    record       the model (`GameRecord`, `MatchRecord`, `RecordedMove`, `RecordResult`), its
                 contract message (`to_pb` / `from_pb`) and JSON (protobuf's mapping)
    record_text  the text form (docs/RECORDS.md): `game_text` writes, `parse_games` reads
                 (`GameRecord.to_text` / `from_text` call them); `record_people` its tags of
                 the table's people, `record_syntax` the tags', numbers' and cards' syntax
    record_log   `GameLog`, what a followed `Game` carries to make its record, and the
                 errors of replaying one (`RecordMoveRejected`, `RecordUnavailable`)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import grpc
from google.protobuf import json_format

from tienlen.v1 import cards_pb2, record_pb2, rules_pb2, settlement_pb2
from tienlen_client.cards import card, texts
from tienlen_client.errors import TienLenError
from tienlen_client.models import Settlement, Transfer

#: The longest record text `from_text` reads.
MAX_TEXT_BYTES: Final = 256 * 1024
#: The most moves a record may hold (the service's bound too).
MAX_MOVES: Final = 1000
#: The most seats at a table.
MAX_PLAYERS: Final = 4

RECORD_PARSE_ERROR: Final = "RECORD_PARSE_ERROR"


class RecordParseError(TienLenError):
    """Text that is not a game record: `line` and `column` (1-based) say where, `detail` what.
    Raised by the client itself (no call is made), with code INVALID_ARGUMENT."""

    def __init__(self, line: int, column: int, detail: str) -> None:
        super().__init__(
            grpc.StatusCode.INVALID_ARGUMENT,
            RECORD_PARSE_ERROR,
            f"line {line}, column {column}: {detail}",
        )
        self.line = line
        self.column = column
        self.detail = detail


# --- the record -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordedMove:
    """One move: `seat` plays `cards` (card text), or passes (`cards` empty); or the host's
    report that the seat's time ran out (`timeout`: the replay plays what the rules give) or
    that its player left during the game (`leave`)."""

    seat: int
    cards: tuple[str, ...] = ()
    timeout: bool = False
    leave: bool = False

    @property
    def is_pass(self) -> bool:
        """Whether the move is a pass."""
        return not (self.cards or self.timeout or self.leave)

    def to_pb(self) -> record_pb2.RecordedMove:
        """The contract's `tienlen.v1.RecordedMove`."""
        return record_pb2.RecordedMove(
            seat=self.seat,
            cards=[card(c) for c in self.cards],
            pass_turn=self.is_pass,
            timeout=self.timeout,
            leave=self.leave,
        )


@dataclass(frozen=True, slots=True)
class RecordResult:
    """The result a record states: each seat's `places` and `net`, and every transfer."""

    places: tuple[int, ...]
    transfers: tuple[Transfer, ...]
    net: tuple[int, ...]

    @classmethod
    def of(cls, settlement: Settlement) -> RecordResult:
        """The result of a settlement."""
        return cls(settlement.places, settlement.transfers, settlement.net)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game from the deal to its result (`result` None: recorded before it ended).

    `options` are the rule overrides as (name, value) text pairs, sorted by name; `hands`
    the dealt hands (card text, weakest first); `match_totals` each seat's total before the
    game; `names` the players' names (empty, or one per seat); `tags` the text's other tags as
    (name, value) pairs — the standard `Event`, `Site`, `Date`, `Round`, `Annotator` first, in
    that order, then any other tag in the order it was read (docs/RECORDS.md), carried by the
    contract's message too (`GameRecord.tags`). `replayed`: the game belonged to a match
    replayed from a record (ReplayGame), not dealt by the service (`TableView.replayed`). The
    table's people (RULES §9): `empty_seats` (increasing; their hands are empty), the host's
    `player_ids` (empty, or one per seat, "" for none), each seat's `bankrolls` at the deal
    (empty: none given), `timeouts` in a row (empty: none) and the `auto_seats`."""

    variant: str
    players: int
    dealer: int
    leader: int
    first_game: bool
    game_number: int
    match_totals: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    moves: tuple[RecordedMove, ...] = ()
    result: RecordResult | None = None
    options: tuple[tuple[str, str], ...] = ()
    names: tuple[str, ...] = ()
    tags: tuple[tuple[str, str], ...] = ()
    replayed: bool = False
    empty_seats: tuple[int, ...] = ()
    player_ids: tuple[str, ...] = ()
    bankrolls: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()
    auto_seats: tuple[int, ...] = ()

    # --- text ---------------------------------------------------------------------------------

    def to_text(self) -> str:
        """The text form (docs/RECORDS.md): tags, a blank line, the moves, a blank line, the
        result. `from_text` reads it back to an equal record (`record_text.game_text`)."""
        from tienlen_client.record_text import game_text

        return game_text(self)

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """The record of one game's text; RecordParseError (line, column) when it is not one."""
        from tienlen_client.record_text import parse_games

        games = parse_games(text)
        if len(games) != 1:
            line = games[1][1] if len(games) > 1 else 1
            raise RecordParseError(
                line, 1, f"{len(games)} games in the text: read a match with MatchRecord.from_text"
            )
        return games[0][0]

    # --- the contract's message ---------------------------------------------------------------

    def to_pb(self) -> record_pb2.GameRecord:
        """The contract's `tienlen.v1.GameRecord`."""
        msg = record_pb2.GameRecord(
            rules=rules_pb2.RuleSetSpec(variant=self.variant, options=dict(self.options)),
            players=self.players,
            player_names=self.names,
            dealer=self.dealer,
            leader=self.leader,
            first_game=self.first_game,
            game_number=self.game_number,
            match_totals=self.match_totals,
            hands=[cards_pb2.Hand(cards=[card(c) for c in hand]) for hand in self.hands],
            moves=[m.to_pb() for m in self.moves],
            tags=[record_pb2.RecordTag(name=name, value=value) for name, value in self.tags],
            replayed=self.replayed,
            empty_seats=self.empty_seats,
            player_ids=self.player_ids,
            bankrolls=self.bankrolls,
            timeouts=self.timeouts,
            auto_seats=self.auto_seats,
        )
        if self.result is not None:
            msg.result.CopyFrom(
                record_pb2.RecordResult(
                    places=self.result.places,
                    transfers=[_transfer_pb(t) for t in self.result.transfers],
                    net=self.result.net,
                )
            )
        return msg

    @classmethod
    def from_pb(cls, msg: record_pb2.GameRecord) -> GameRecord:
        """From the contract's message (cards as text; nothing is checked here)."""
        result = None
        if msg.HasField("result"):
            result = RecordResult(
                tuple(msg.result.places),
                tuple(_transfer(t) for t in msg.result.transfers),
                tuple(msg.result.net),
            )
        return cls(
            variant=msg.rules.variant or "southern",
            players=msg.players,
            dealer=msg.dealer,
            leader=msg.leader,
            first_game=msg.first_game,
            game_number=msg.game_number
            or 1,  # unset: a match's first game, as the service reads it
            match_totals=tuple(msg.match_totals) or (0,) * min(max(msg.players, 0), MAX_PLAYERS),
            hands=tuple(texts(h.cards) for h in msg.hands),
            moves=tuple(
                RecordedMove(m.seat, texts(m.cards), m.timeout, m.leave) for m in msg.moves
            ),
            result=result,
            options=tuple(sorted(msg.rules.options.items())),
            names=tuple(msg.player_names),
            tags=tuple((t.name, t.value) for t in msg.tags),
            replayed=msg.replayed,
            empty_seats=tuple(msg.empty_seats),
            player_ids=tuple(msg.player_ids),
            bankrolls=tuple(msg.bankrolls),
            timeouts=tuple(msg.timeouts),
            auto_seats=tuple(msg.auto_seats),
        )

    def to_json(self) -> str:
        """The record as JSON (protobuf's JSON mapping of `tienlen.v1.GameRecord`)."""
        return json_format.MessageToJson(self.to_pb())

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """From protobuf JSON of `tienlen.v1.GameRecord` (json_format.ParseError if not)."""
        return cls.from_pb(json_format.Parse(text, record_pb2.GameRecord()))


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match: its games in order. Its text is the games' texts, a blank line between."""

    games: tuple[GameRecord, ...]

    def to_text(self) -> str:
        """The games' texts, one after the other."""
        return "\n".join(g.to_text() for g in self.games)

    @classmethod
    def from_text(cls, text: str) -> MatchRecord:
        """Every game of the text, in order; RecordParseError (line, column) if not records."""
        from tienlen_client.record_text import parse_games

        return cls(tuple(game for game, _ in parse_games(text)))

    def to_pb(self) -> record_pb2.MatchRecord:
        """The contract's `tienlen.v1.MatchRecord`."""
        return record_pb2.MatchRecord(games=[g.to_pb() for g in self.games])

    @classmethod
    def from_pb(cls, msg: record_pb2.MatchRecord) -> MatchRecord:
        """From the contract's message."""
        return cls(tuple(GameRecord.from_pb(g) for g in msg.games))


def _transfer_pb(t: Transfer) -> settlement_pb2.Transfer:
    return settlement_pb2.Transfer(
        payer=t.payer,
        payee=t.payee,
        amount=t.amount,
        reason=settlement_pb2.TransferReason.Value("TRANSFER_REASON_" + t.reason),
        cards=[card(c) for c in t.cards],
        owed=t.owed,
    )


def _transfer(t: settlement_pb2.Transfer) -> Transfer:
    reason = settlement_pb2.TransferReason.Name(t.reason).removeprefix("TRANSFER_REASON_")
    return Transfer(t.payer, t.payee, t.amount, reason, texts(t.cards), t.owed)
