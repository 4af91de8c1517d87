"""What happened in a step, as plain records: `game.events` (cards as text, seats as ints).

One record per `tienlen.v1.Event` kind (events.proto), in the order the service gives them:
a deal starts with `GameStarted` (after NextGame's seat changes, `SeatVacated` and
`SeatTaken`); a move is its `Played` or `Passed`, then what followed from it (a chop chain
paid, a round won, a seat out, seats frozen, the turn passing, the end). The host's reports
(RULES §9) are steps too: a time-out is `TimedOut` then the move it made (and `AutoPlay` when
the seat goes on auto), a leave is `PlayerLeft`. Events carry only public information: never
the cards of a hand.

A kind added to the contract after this client was generated comes as `UnknownEvent` (its
wire message in `raw`), so an older client still reads a newer service's answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from tienlen.v1 import events_pb2
from tienlen_client.cards import text, texts
from tienlen_client.combination import Combination


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A deal (chia bài): game `game_number` of the match; `leader` leads, with `must_include`
    in the first play (``"3S"``; None: any play); `hand_sizes` by seat."""

    game_number: int
    leader: int
    must_include: str | None
    first_game: bool
    dealer: int
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """`seat` played `combination`; `chop` (chặt: paid when its chain ends), `out_of_turn`
    (a chop without waiting for the turn, or a steal), `steal` (cướp cái); `cards_left` after."""

    seat: int
    combination: Combination
    chop: bool
    out_of_turn: bool
    steal: bool
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    """`seat` passed (bỏ lượt)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ChopSettled:
    """A chop chain ended (chặt chồng): `payer` (-1: nobody) pays `payee` `amount` chips for
    the chopped `cards`, over `links` chops. `victim_out`: the last chopped play was its
    player's last cards, which is why nobody pays."""

    payer: int
    payee: int
    amount: int
    cards: tuple[str, ...]
    links: int
    victim_out: bool = False


@dataclass(frozen=True, slots=True)
class RoundWon:
    """Everyone else passed: `seat` won the round (vòng); `leader` leads the next one."""

    seat: int
    leader: int


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """`seat` went out in `place` (1 = first); `ranked_last` when going out on a 2 or a four of
    a kind ranked it last under the rules."""

    seat: int
    place: int
    ranked_last: bool


@dataclass(frozen=True, slots=True)
class PlayersFrozen:
    """Cóng (cháy bài): `seats` had not played a card when the first player went out; they
    take `places` (same order), the last ones."""

    seats: tuple[int, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class InstantWin:
    """Tới trắng: `seat` won on the deal with `pattern` (``"four_twos"``, ``"dragon"``, ...)."""

    seat: int
    pattern: str


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """`seat` is now to act."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The end: each seat's `places` (index = seat, 1 = first); the settlement follows."""

    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The host reported that `seat`'s time ran out (RULES §9.3): the events that follow are
    the move its time-out made; `timeouts` is its count of time-outs in a row now."""

    seat: int
    timeouts: int


@dataclass(frozen=True, slots=True)
class AutoPlay:
    """`seat` went on auto (`on`: tự động đánh, after its time-outs in a row, or because its
    player left) or came off it (it moved itself). The host plays a seat on auto with a
    time-out at once on each of its turns."""

    seat: int
    on: bool


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """`seat`'s player left during the game (RULES §9.4): it plays on, on auto, and the next
    game drops it; or it `forfeit`ed, stopping at once in `place` (0 while it plays)."""

    seat: int
    forfeit: bool
    place: int


@dataclass(frozen=True, slots=True)
class SeatVacated:
    """Between games (NextGame): `seat`'s player (`player_id`, the host's) left the table with
    the final match `total` in chips; the seat is empty unless a newcomer sits down in it."""

    seat: int
    player_id: str
    total: int


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """Between games (NextGame): a newcomer (`player_id`, the host's) sat down in `seat`, with
    a match total of 0 and a seat token of its own."""

    seat: int
    player_id: str


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event of a kind newer than this client: its wire message is `raw`."""

    raw: events_pb2.Event


Event = (
    GameStarted
    | Played
    | Passed
    | ChopSettled
    | RoundWon
    | PlayerFinished
    | PlayersFrozen
    | InstantWin
    | TurnPassed
    | GameOver
    | TimedOut
    | AutoPlay
    | PlayerLeft
    | SeatVacated
    | SeatTaken
    | UnknownEvent
)
"""Any one of the records above."""


def event_from_pb(msg: events_pb2.Event) -> Event:
    """The record of one wire event."""
    kind = msg.WhichOneof("kind")
    if kind == "game_started":
        e = msg.game_started
        return GameStarted(
            e.game_number,
            e.leader,
            text(e.must_include) if e.HasField("must_include") else None,
            e.first_game,
            e.dealer,
            tuple(e.hand_sizes),
        )
    if kind == "played":
        p = msg.played
        combination = Combination.from_pb(p.combination)
        return Played(p.seat, combination, p.chop, p.out_of_turn, p.steal, p.cards_left)
    if kind == "passed":
        return Passed(msg.passed.seat)
    if kind == "chop_settled":
        c = msg.chop_settled
        return ChopSettled(c.payer, c.payee, c.amount, texts(c.cards), c.links, c.victim_out)
    if kind == "round_won":
        return RoundWon(msg.round_won.seat, msg.round_won.leader)
    if kind == "player_finished":
        f = msg.player_finished
        return PlayerFinished(f.seat, f.place, f.ranked_last)
    if kind == "players_frozen":
        return PlayersFrozen(tuple(msg.players_frozen.seats), tuple(msg.players_frozen.places))
    if kind == "instant_win":
        return InstantWin(msg.instant_win.seat, msg.instant_win.pattern)
    if kind == "turn_passed":
        return TurnPassed(msg.turn_passed.seat)
    if kind == "game_over":
        return GameOver(tuple(msg.game_over.places))
    return _table_event(msg)


def _table_event(msg: events_pb2.Event) -> Event:
    """The record of an event of a live table (RULES §9), or UnknownEvent."""
    kind = msg.WhichOneof("kind")
    if kind == "timed_out":
        return TimedOut(msg.timed_out.seat, msg.timed_out.timeouts)
    if kind == "auto_play":
        return AutoPlay(msg.auto_play.seat, msg.auto_play.on)
    if kind == "player_left":
        left = msg.player_left
        return PlayerLeft(left.seat, left.forfeit, left.place)
    if kind == "seat_vacated":
        vacated = msg.seat_vacated
        return SeatVacated(vacated.seat, vacated.player_id, vacated.total)
    if kind == "seat_taken":
        return SeatTaken(msg.seat_taken.seat, msg.seat_taken.player_id)
    return UnknownEvent(msg)
