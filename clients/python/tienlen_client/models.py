"""Plain Python records of what the service returns, with cards as text (``"3S"``).

(`tienlen_client.events`: the records of `game.events`; `tienlen_client.rules`: DescribeRules.)

Each record keeps the protobuf message it came from in `raw`, for anything not copied here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tienlen.v1 import game_pb2, settlement_pb2
from tienlen_client.cards import texts
from tienlen_client.combination import Combination
from tienlen_client.events import Event, event_from_pb

__all__ = [  # Combination is re-exported: it was defined here before it had its own module
    "Combination",
    "Game",
    "LegalMove",
    "RottenPart",
    "SeatInfo",
    "Settlement",
    "Transfer",
    "Validation",
    "View",
]

if TYPE_CHECKING:
    from tienlen_client.record import GameRecord, MatchRecord
    from tienlen_client.record_log import GameLog


def _enum_name(prefix: str, name: str) -> str:
    return name.removeprefix(prefix)


@dataclass(frozen=True, slots=True)
class Transfer:
    """`payer` (-1: nobody) pays `payee` `amount` chips for `reason` (``"PLACE"``, ``"CHOP"``,
    ``"ROTTEN"``, ``"FROZEN"``, ``"INSTANT_WIN"``, ...) and `cards`, if any. `owed`: what was
    owed when the loss cap cut the payment (RULES §9.2: nobody loses more than its bankroll;
    `amount` is what is paid), else 0."""

    payer: int
    payee: int
    amount: int
    reason: str
    cards: tuple[str, ...]
    owed: int = 0


@dataclass(frozen=True, slots=True)
class RottenPart:
    """One 2 or bomb left in a hand at the end (thối): `label`, `cards`, `amount` chips."""

    seat: int
    label: str
    cards: tuple[str, ...]
    amount: int


@dataclass(frozen=True, slots=True)
class Settlement:
    """A finished game's money: `transfers`, each seat's `net`, `places`, the `rotten` split."""

    transfers: tuple[Transfer, ...]
    net: tuple[int, ...]
    places: tuple[int, ...]
    rotten: tuple[RottenPart, ...]
    zero_sum: bool
    raw: settlement_pb2.Settlement = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, msg: settlement_pb2.Settlement) -> Settlement:
        """From the wire message."""
        return cls(
            transfers=tuple(
                Transfer(
                    t.payer,
                    t.payee,
                    t.amount,
                    _enum_name("TRANSFER_REASON_", settlement_pb2.TransferReason.Name(t.reason)),
                    texts(t.cards),
                    t.owed,
                )
                for t in msg.transfers
            ),
            net=tuple(msg.net),
            places=tuple(msg.places),
            rotten=tuple(RottenPart(r.seat, r.label, texts(r.cards), r.amount) for r in msg.rotten),
            zero_sum=msg.zero_sum,
            raw=msg,
        )


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What everyone may know about a seat. At a table of people (RULES §9): `empty` (nobody
    sits there this game), `auto` (on auto: the host plays its time-outs at once), `left` (its
    player left during this game), `forfeited`, the host's `player_id`, its `timeouts` in a row
    and its `bankroll` at this game's deal (None: the table plays without bankrolls)."""

    seat: int
    cards_left: int
    place: int
    passed: bool
    frozen: bool
    match_total: int
    empty: bool = False
    auto: bool = False
    left: bool = False
    forfeited: bool = False
    player_id: str = ""
    timeouts: int = 0
    bankroll: int | None = None

    @classmethod
    def from_pb(cls, s: game_pb2.SeatStatus) -> SeatInfo:
        """From the wire message."""
        return cls(
            s.seat,
            s.cards_left,
            s.place,
            s.passed,
            s.frozen,
            s.match_total,
            s.empty,
            s.auto,
            s.left,
            s.forfeited,
            s.player_id,
            s.timeouts,
            s.bankroll if s.HasField("bankroll") else None,
        )


@dataclass(frozen=True, slots=True)
class View:
    """The table as a seat (with its own `hand`) or a spectator (`seat` None, no hand) sees it.
    `replayed`: the match was replayed from a record (ReplayGame), not dealt by the service.
    `chop_seats`: the seats that could chop the table out of turn now, in claim order (only in
    the host's spectator view, RULES §9.5); `chop_open`: whether some bomb could (public)."""

    seat: int | None
    hand: tuple[str, ...]
    players: int
    seats: tuple[SeatInfo, ...]
    table: Combination | None
    table_seat: int | None
    to_act: int | None
    must_include: str | None
    finished: bool
    first_game: bool
    game_number: int
    played: tuple[str, ...]
    replayed: bool
    chop_seats: tuple[int, ...]
    chop_open: bool
    raw: game_pb2.TableView = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, msg: game_pb2.TableView) -> View:
        """From the wire message."""
        return cls(
            seat=msg.seat if msg.HasField("seat") else None,
            hand=texts(msg.hand),
            players=msg.players,
            seats=tuple(SeatInfo.from_pb(s) for s in msg.seats),
            table=Combination.from_pb(msg.table) if msg.HasField("table") else None,
            table_seat=msg.table_seat if msg.HasField("table_seat") else None,
            to_act=msg.to_act if msg.HasField("to_act") else None,
            must_include=texts([msg.must_include])[0] if msg.HasField("must_include") else None,
            finished=msg.finished,
            first_game=msg.first_game,
            game_number=msg.game_number,
            played=texts(msg.played),
            replayed=msg.replayed,
            chop_seats=tuple(msg.chop_seats),
            chop_open=msg.chop_open,
            raw=msg,
        )


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the client holds it: the opaque `state` token, the `seat_tokens` (passed
    automatically with every call made for a seat), who is `to_act` (None once over),
    whether it is `finished`, its `settlement` once over, the last step's `events`
    (`tienlen_client.events` records) and the spectator `view`. Its repr is a short summary
    (no token bytes).

    `raw` is the GameUpdate as it came: after a move made with ``update_view="basic"`` its
    `view` is unset and `view` here is the one the client followed from the events
    (`tienlen_client.follow`)."""

    state: bytes
    seat_tokens: tuple[str, ...]
    to_act: int | None
    finished: bool
    settlement: Settlement | None
    events: tuple[Event, ...]
    view: View
    raw: game_pb2.GameUpdate = field(repr=False, compare=False)
    #: What the client followed of this game, for `record()` (tienlen_client.record).
    log: GameLog | None = field(default=None, repr=False, compare=False)

    @property
    def players(self) -> int:
        """The number of seats (empty ones included)."""
        return self.view.players

    @property
    def game_id(self) -> bytes:
        """The match's id (the same across NextGame): with `game_number` and `move_number`, the
        key a host compare-and-sets its stored state on (docs/SECURITY.md)."""
        return self.raw.game_id

    @property
    def game_number(self) -> int:
        """The game's number in its match (1, 2, ...)."""
        return self.raw.game_number

    @property
    def move_number(self) -> int:
        """0 after the deal, one more per accepted move."""
        return self.raw.move_number

    @property
    def chop_seats(self) -> tuple[int, ...]:
        """The seats that could chop the play on the table out of turn now, in claim order
        (RULES §9.5): when several claim, the first listed takes it. For the host only (with
        seat tokens required, the client's deal key must be the service's)."""
        return tuple(self.raw.chop_seats)

    @property
    def chop_open(self) -> bool:
        """Whether the table holds a play some bomb could chop out of turn (a host that pauses
        for claims pauses exactly then)."""
        return self.raw.chop_open

    @classmethod
    def from_pb(
        cls,
        msg: game_pb2.GameUpdate,
        seat_tokens: tuple[str, ...],
        view: View | None = None,
        *,
        previous: Game | None = None,
    ) -> Game:
        """From the wire message and the seat tokens of the match. `view`: the spectator view
        when the message has none (an UPDATE_VIEW_BASIC answer); the message's own view wins.
        `previous`: the Game the message answers a move on (its log goes on)."""
        if msg.HasField("view"):
            view = View.from_pb(msg.view)
        elif view is None:
            raise ValueError(
                "the GameUpdate carries no view (UPDATE_VIEW_BASIC) and none was given"
            )
        return cls(
            state=msg.state_token,
            seat_tokens=seat_tokens,
            to_act=msg.to_act if msg.HasField("to_act") else None,
            finished=msg.finished,
            settlement=Settlement.from_pb(msg.settlement) if msg.HasField("settlement") else None,
            events=tuple(event_from_pb(e) for e in msg.events),
            view=view,
            raw=msg,
            log=None if previous is None or previous.log is None else previous.log.followed(msg),
        )

    def seat_token(self, seat: int) -> str:
        """The token of `seat` ("" when the game has none for it)."""
        return self.seat_tokens[seat] if 0 <= seat < len(self.seat_tokens) else ""

    def record(self, names: tuple[str, ...] = ()) -> GameRecord:
        """The record of the game so far (docs/RECORDS.md), from the answers the client followed;
        `names`: the players' names, one per seat. RecordUnavailable when the client does not
        know the dealt hands (see `tienlen_client.record`)."""
        from tienlen_client.record_log import record_of

        return record_of(self, names)

    def match_record(self) -> MatchRecord:
        """The records of the match's games the client followed, this one last."""
        from tienlen_client.record_log import match_record_of

        return match_record_of(self)

    def __repr__(self) -> str:
        """``Game(game 1, 4 players, to_act=2, table='7S 7H (pair)', cards_left=(13, 11, 13,
        13))``: what a reader needs, never the tokens."""
        state = "finished" if self.finished else f"to_act={self.to_act}"
        table = f"table={str(self.view.table)!r}, " if self.view.table is not None else ""
        left = tuple(s.cards_left for s in self.view.seats)
        return (
            f"Game(game {self.view.game_number}, {self.players} players, {state}, "
            f"{table}cards_left={left})"
        )


@dataclass(frozen=True, slots=True)
class Validation:
    """ValidateMove's answer: `legal`; for a legal play its `combination` and whether it
    `chop`s; for an illegal move the `reason` code and `message`."""

    legal: bool
    combination: Combination | None
    chop: bool
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class LegalMove:
    """One legal move: a pass (`is_pass`) or a play of `cards` forming `combination`."""

    is_pass: bool
    cards: tuple[str, ...]
    combination: Combination | None
    chop: bool
