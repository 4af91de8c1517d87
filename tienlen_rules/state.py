"""The game state (*ván bài*): one immutable record from which everything else is computed.

A state is a value: `apply` never mutates it, it returns a new one, so the same state and move
always give the same next state and a rejected move leaves nothing changed. Everything the
service needs to continue a game travels in it (the service signs it into an opaque token).
"""

from __future__ import annotations

from functools import reduce
from operator import or_
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


class Match(NamedTuple):
    """What carries from game to game (RULES §9): the game number, each seat's running total,
    the seed that derives the next seeded deal (-1: random deals), the dealer (Đấu), and
    whether the match was replayed from a record rather than dealt (kept by every game)."""

    game_number: int
    totals: tuple[int, ...]
    seed: int
    dealer: int
    replayed: bool = False


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

    @property
    def players(self) -> int:
        """How many seats are at the table."""
        return len(self.hands)

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
        """Every card played so far this game."""
        return reduce(or_, self.dealt, 0) & ~reduce(or_, self.hands, 0)


_FIELD_INDEX = {name: index for index, name in enumerate(GameState._fields)}
_new_tuple = tuple.__new__


def replaced(state: GameState, /, **changes: object) -> GameState:
    """`state._replace(**changes)` at half its cost: every move makes one or two new states
    (a NamedTuple's `_replace` pops every one of the 22 fields from the keywords)."""
    values: list[object] = list(state)
    try:
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
    except KeyError as exc:
        raise ValueError(f"GameState has no field {exc.args[0]!r}") from None
    result: GameState = _new_tuple(GameState, values)
    return result


class Move(NamedTuple):
    """A seat's action: play `cards` (in the order given, duplicates kept so they can be
    refused) or pass when `cards` is empty and `is_pass` is set."""

    seat: int
    cards: tuple[int, ...]
    is_pass: bool


def play(seat: int, cards: tuple[int, ...] | list[int]) -> Move:
    """A move that plays these cards."""
    return Move(seat, tuple(cards), is_pass=False)


def pass_turn(seat: int) -> Move:
    """A move that passes (*bỏ lượt*)."""
    return Move(seat, (), is_pass=True)
