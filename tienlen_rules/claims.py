"""Out-of-turn chops at a live table (RULES §9.5): who could claim one, and who takes it.

A bomb that may chop out of turn (§5, *chặt không cần vòng*) may do so until the table's play is
beaten or the round ends: passes don't close the chance. The engine tells the host, never the
other seats, which seats could chop out of turn now (`chop_seats`), so a host needs no polling.
A host that pauses for claims pauses whenever the table is open to an out-of-turn chop
(`chop_open`: some bomb could chop it, whoever holds one), so that the pause tells the table
nothing. When several seats claim, the one nearest after the player whose play is being
chopped, in turn order, takes it: `chop_seats` lists them in that order.
"""

from __future__ import annotations

from typing import Final

from tienlen_rules.combinations import target_class
from tienlen_rules.movegen import has_out_of_turn_chop
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState


def chop_open(state: GameState) -> bool:
    """Whether the play on the table is one some bomb could chop out of turn at this table,
    whoever holds one (the public signal for a host's pause)."""
    table = state.table
    if table is None or state.to_act < 0:
        return False
    known = state.rules.open_tables.get(table.cards)
    if known is None:
        known = state.rules.open_tables[table.cards] = (
            target_class(table) in state.rules.out_of_turn_targets
        )
    return known


def chop_seats(state: GameState) -> tuple[int, ...]:
    """The seats that could chop the table out of turn now, in claim order: nearest after the
    table's player first. Every seat still holding cards in play (not frozen, not placed, not
    forfeited; on auto or not, but not a seat whose player left, which can't act) other than the
    table's player and the seat to act (whose chop is a play in turn) that holds such a bomb."""
    table = state.table
    if table is None or not chop_open(state):
        return ()
    rules, owner, to_act, hands, places, departed = (
        state.rules,
        state.table_seat,
        state.to_act,
        state.hands,
        state.places,
        state.departed,
    )
    # Looked up: the view and the answer of a move ask alike, and passes leave it unchanged.
    # Keyed by plain numbers (a rule set hashes in Python), the rule set kept beside them.
    key = (id(rules), table.cards, owner, to_act, hands, places, departed)
    known = _SEATS.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    n = len(hands)
    seats = []
    for step in range(1, n):
        seat = (owner + step) % n
        if (
            seat == to_act
            or places[seat]
            or departed >> seat & 1
            or not has_out_of_turn_chop(hands[seat], table, rules)
        ):
            continue
        seats.append(seat)
    found = tuple(seats)
    if len(_SEATS) >= _SEATS_SIZE:
        _SEATS.clear()
    _SEATS[key] = (rules, found)
    return found


# The claim orders found lately (see `chop_seats`), each with the rule set it was found under.
_SEATS: Final[dict[tuple[object, ...], tuple[RuleSet, tuple[int, ...]]]] = {}
_SEATS_SIZE: Final = 4096


def first_claim(state: GameState, claimants: tuple[int, ...] | list[int]) -> int:
    """Of the seats that claimed a chop of the table together, the one that takes it (RULES
    §9.5): the nearest after the table's player in turn order; -1 when none could."""
    order = chop_seats(state)
    return next((seat for seat in order if seat in claimants), -1)
