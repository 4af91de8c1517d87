"""Events: what each transition did, in order, so a frontend can animate from events alone.

Every `apply` returns the events of that step; `new_game` returns the deal's. Events are frozen
records with a seat where one acted. The service maps each to a `tienlen.v1.Event` message.
"""

from __future__ import annotations

from dataclasses import dataclass

from tienlen_rules.cards import CardSet
from tienlen_rules.combinations import Kind


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A new game was dealt (*chia bài*); `leader` leads, `must_include` is the card the first
    lead must contain (-1: any), `first_game` says whether first-game rules apply, `hand_sizes`
    how many cards each seat holds after the deal (2s laid down by four 3s already removed)."""

    game_number: int
    leader: int
    must_include: int
    first_game: bool
    dealer: int
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """`seat` played `cards` forming `kind` of `length`; `chop` if it chopped the table
    (*chặt*), `out_of_turn` for a chop or steal made out of turn, `steal` for *cướp cái*."""

    seat: int
    cards: CardSet
    kind: Kind
    length: int
    chop: bool
    out_of_turn: bool
    steal: bool
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    """`seat` passed (*bỏ lượt*); `held_beat` records whether it held a legal beat (for *đền
    bài*; None when not examined: the compensation rule is off). It stays in the engine: on
    the wire it would tell the table about a hand."""

    seat: int
    held_beat: bool | None


@dataclass(frozen=True, slots=True)
class ChopSettled:
    """A chop chain ended (*chặt chồng*): `payer` (-1: nobody, Huế last card) pays `payee`
    `amount` chips for `cards` (every chopped play of the chain). `victim_out`: the last
    chopped play was its player's last cards (why nobody pays, under `void` or `chopper_only`)."""

    payer: int
    payee: int
    amount: int
    cards: CardSet
    links: int
    victim_out: bool = False


@dataclass(frozen=True, slots=True)
class RoundWon:
    """Everyone else passed: the round (*vòng*) is over; `seat` made the last play and `leader`
    leads the next round (another seat when `seat` has gone out: *hưởng sái*)."""

    seat: int
    leader: int


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """`seat` went out and takes `place` (1 = first); `ranked_last` when going out on a 2 or
    four of a kind made it last under the rules."""

    seat: int
    place: int
    ranked_last: bool


@dataclass(frozen=True, slots=True)
class PlayersFrozen:
    """Cóng / cháy bài: these seats had not played when a player went out (the winner, or as
    `freeze_at` says); they take the last places and take no more turns (under the card count,
    *đếm lá*, the game ends there)."""

    seats: tuple[int, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class InstantWin:
    """Tới trắng: `seat` won on the deal with `pattern` (e.g. "four_twos")."""

    seat: int
    pattern: str


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """`seat` is now to act."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game has ended; `places[seat]` is each seat's place."""

    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TimedOut:
    """`seat`'s time ran out (RULES §9.3): the events that follow are its time-out move;
    `timeouts` is how many time-outs in a row it now has."""

    seat: int
    timeouts: int


@dataclass(frozen=True, slots=True)
class AutoPlay:
    """`seat` is now on auto (*tự động đánh*, `on`) or off it (RULES §9.3): on after
    `auto_after_timeouts` time-outs in a row or when its player left (play_out), off once the
    seat makes a move itself."""

    seat: int
    on: bool


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """`seat`'s player left during the game (RULES §9.4). `forfeit`: the seat stopped at once and
    took `place` (0 under play_out: the seat plays on, on auto, and leaves before the next
    game)."""

    seat: int
    forfeit: bool
    place: int


@dataclass(frozen=True, slots=True)
class SeatVacated:
    """Between games (NextGame, RULES §9.1): `seat`'s player left the table, with `player_id`
    and its final match `total`. The seat is empty unless a newcomer took it (`SeatTaken`)."""

    seat: int
    player_id: str
    total: int


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """Between games (NextGame, RULES §9.1): a newcomer sat down in `seat` (`player_id`, "" when
    the host gave none), with a match total of 0."""

    seat: int
    player_id: str


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
)
