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

from tienlen_rules.combinations import target_class
from tienlen_rules.movegen import has_out_of_turn_chop
from tienlen_rules.state import GameState


def chop_open(state: GameState) -> bool:
    """Whether the play on the table is one some bomb could chop out of turn at this table,
    whoever holds one (the public signal for a host's pause)."""
    table = state.table
    if table is None or state.to_act < 0 or not state.rules.out_of_turn:
        return False
    target = target_class(table)
    return target is not None and any(
        target in state.rules.chop_targets.get(bomb, ()) for bomb in state.rules.out_of_turn
    )


def chop_seats(state: GameState) -> tuple[int, ...]:
    """The seats that could chop the table out of turn now, in claim order: nearest after the
    table's player first. Every seat still holding cards in play (not frozen, not placed, not
    forfeited; on auto or not, but not a seat whose player left, which can't act) other than the
    table's player and the seat to act (whose chop is a play in turn) that holds such a bomb."""
    if not chop_open(state):
        return ()
    table = state.table
    assert table is not None
    rules = state.rules
    n = state.players
    owner = state.table_seat
    seats = []
    for step in range(1, n):
        seat = (owner + step) % n
        if (
            seat == state.to_act
            or state.places[seat]
            or state.departed >> seat & 1
            or not has_out_of_turn_chop(state.hands[seat], table, rules)
        ):
            continue
        seats.append(seat)
    return tuple(seats)


def first_claim(state: GameState, claimants: tuple[int, ...] | list[int]) -> int:
    """Of the seats that claimed a chop of the table together, the one that takes it (RULES
    §9.5): the nearest after the table's player in turn order; -1 when none could."""
    order = chop_seats(state)
    return next((seat for seat in order if seat in claimants), -1)
