"""The game state (*ván bài*): one immutable record from which everything else is computed.

A state is a value: `apply` never mutates it, it returns a new one, so the same state and move
always give the same next state and a rejected move leaves nothing changed. Everything the
service needs to continue a game travels in it (the service signs it into an opaque token).
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from tienlen_rules.cards import CardSet
from tienlen_rules.combinations import Combination
from tienlen_rules.ruleset import RuleSet


class ChopPayment(NamedTuple):
    """A settled chop chain: `payer` (-1: nobody) pays `payee` `amount` chips for `cards`."""

    payer: int
    payee: int
    amount: int
    cards: CardSet


#: `places[seat]` of an empty seat (RULES §9.1: a seat may be empty; seat numbers never change
#: during a match). Not 0, so that every rule that looks for seats still playing skips it.
EMPTY_SEAT = -1


class Match(NamedTuple):
    """What carries from game to game (RULES §9): the game number, each seat's running total,
    the seed that derives the next seeded deal (-1: random deals), and the dealer (Đấu).

    Who sits where (§9.1): `player_ids` are the host's opaque ids of the seats' players ("" for
    none given, and for an empty seat; () when no seat has one); `occupants` tell the people in
    one seat apart (0 for the players the match was dealt for, a random nonzero number for each
    newcomer; () while every seat holds one of the former), so that a newcomer's seat token is
    not a leaver's. `bankrolls` (§9.2) are the chips each seat may lose in this game, as given at
    its deal (() when the host gives none). The empty tuples keep the hot paths' checks cheap."""

    game_number: int
    totals: tuple[int, ...]
    seed: int
    dealer: int
    player_ids: tuple[str, ...] = ()
    occupants: tuple[int, ...] = ()
    bankrolls: tuple[int, ...] = ()


class GameState(NamedTuple):
    """Everything about one game in progress or over.

    Seats are 0..n-1 in turn order. `table` is the play to beat (None while a round is being
    led) and `table_seat` who made it. `passed` is a bitmask of seats out of this round
    (*qua tay*). `chain` lists the plays of the chop chain in progress, the chopped play first,
    as (seat, cards) pairs, and `chain_victim_out` whether the last chopped play was its
    player's last cards. `places[seat]` is 0 while the seat still plays. `unplayed` is a bitmask
    of seats that have not played a card this game (for *cóng*). `winning_play` is the play with
    which the winner went out (for *ba mù*). `compensation_seat` is the first seat that passed
    while it alone could beat a table that only one player had played to (*đền bài*), or -1.

    A table's people (RULES §9): an empty seat has `places[seat] == EMPTY_SEAT` and no cards.
    `timeouts[seat]` counts the seat's time-outs in a row (over rounds and games; () while every
    count is 0), `auto` the seats on auto (*tự động đánh*), `departed` the seats whose player
    left during this game, and `forfeited` those of them that stopped playing at once
    (`leave_mid_game` = forfeit).
    """

    rules: RuleSet
    hands: tuple[CardSet, ...]
    dealt: tuple[CardSet, ...]
    to_act: int
    must_include: int
    table: Combination | None
    table_seat: int
    passed: int
    chain: tuple[tuple[int, CardSet], ...]
    chain_victim_out: bool
    places: tuple[int, ...]
    frozen: int
    unplayed: int
    chop_payments: tuple[ChopPayment, ...]
    first_game: bool
    steal_open: bool
    instant_winner: int
    instant_pattern: str
    compensation_seat: int
    winning_play: CardSet
    move_count: int
    match: Match
    timeouts: tuple[int, ...] = ()
    auto: int = 0
    departed: int = 0
    forfeited: int = 0

    @property
    def players(self) -> int:
        """How many seats the table has (seats 0..players-1, some of them maybe empty)."""
        return len(self.hands)

    @property
    def seated(self) -> int:
        """Bitmask of the occupied seats."""
        return _seated(self.places)

    @property
    def seated_count(self) -> int:
        """How many players sit at the table (every rule that counts players counts these)."""
        return len(self.places) - self.places.count(EMPTY_SEAT)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.to_act < 0

    @property
    def winner(self) -> int:
        """The seat in first place, or -1 while nobody has won."""
        for seat, place in enumerate(self.places):
            if place == 1:
                return seat
        return -1

    def in_play(self, seat: int) -> bool:
        """Whether the seat still holds cards and takes turns (not finished, not frozen)."""
        return self.places[seat] == 0

    @property
    def played(self) -> CardSet:
        """Every card played so far this game: what the seats were dealt and no longer hold.
        A seat's hand is what is left of its dealt cards and no card is dealt twice, so the
        sums of the masks (exact in C for 52-bit ints) are their unions: half the cost of
        or-ing them, on every answer's view."""
        return sum(self.dealt) - sum(self.hands)


@lru_cache(maxsize=4096)
def _seated(places: tuple[int, ...]) -> int:
    # Looked up: a game has a handful of `places` tuples, and passes ask (đền bài's evidence).
    mask = 0
    for seat, place in enumerate(places):
        if place != EMPTY_SEAT:
            mask |= 1 << seat
    return mask


_FIELD_INDEX = {name: index for index, name in enumerate(GameState._fields)}
_new_tuple = tuple.__new__


def replaced(state: GameState, /, **changes: object) -> GameState:
    """`state._replace(**changes)` at half its cost: every move makes one or two new states
    (a NamedTuple's `_replace` pops every one of the fields from the keywords)."""
    values: list[object] = list(state)
    try:
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
    except KeyError as exc:
        raise ValueError(f"GameState has no field {exc.args[0]!r}") from None
    result: GameState = _new_tuple(GameState, values)
    return result


class TableAction(StrEnum):
    """What the host reports for a seat at a live table (RULES §9.3, §9.4), as a move."""

    TIMEOUT = "timeout"
    """The seat's time ran out: the engine plays its time-out move (`timeout_action`)."""
    LEAVE = "leave"
    """The seat's player left during the game (`leave_mid_game`)."""


class Move(NamedTuple):
    """A seat's action: play `cards` (in the order given, duplicates kept so they can be
    refused) or pass when `cards` is empty and `is_pass` is set; or, with `action`, what the
    host reports for the seat (a time-out, a leave: `cards` empty, `is_pass` False)."""

    seat: int
    cards: tuple[int, ...]
    is_pass: bool
    action: TableAction | None = None


def play(seat: int, cards: tuple[int, ...] | list[int]) -> Move:
    """A move that plays these cards."""
    return Move(seat, tuple(cards), is_pass=False)


def pass_turn(seat: int) -> Move:
    """A move that passes (*bỏ lượt*)."""
    return Move(seat, (), is_pass=True)


def timeout(seat: int) -> Move:
    """The host's report that the seat's time ran out (RULES §9.3)."""
    return Move(seat, (), is_pass=False, action=TableAction.TIMEOUT)


def leave(seat: int) -> Move:
    """The host's report that the seat's player left during the game (RULES §9.4)."""
    return Move(seat, (), is_pass=False, action=TableAction.LEAVE)
