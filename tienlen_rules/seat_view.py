"""What one seat may see (*bài trên tay*): its own hand, never another's.

A spectator (seat -1) sees no hands at all. Everything else on the table is public: card
counts, the play to beat, who passed, places, frozen players, the cards played so far.
"""

from __future__ import annotations

from typing import NamedTuple

from tienlen_rules.cards import CardSet
from tienlen_rules.combinations import Combination
from tienlen_rules.state import GameState

SPECTATOR = -1


class SeatView(NamedTuple):
    """The table as `seat` sees it (`hand` is 0 for a spectator)."""

    seat: int
    hand: CardSet
    hand_counts: tuple[int, ...]
    table: Combination | None
    table_seat: int
    to_act: int
    passed: int
    places: tuple[int, ...]
    frozen: int
    must_include: int
    first_game: bool
    over: bool
    game_number: int
    totals: tuple[int, ...]
    played: CardSet
    variant: str


def view(state: GameState, seat: int = SPECTATOR) -> SeatView:
    """The view of `seat` (or a spectator); raises ValueError for a seat not at the table."""
    if not SPECTATOR <= seat < state.players:
        raise ValueError(f"seat {seat} is not at this table of {state.players}")
    return SeatView(
        seat=seat,
        hand=state.hands[seat] if seat >= 0 else 0,
        hand_counts=tuple(h.bit_count() for h in state.hands),
        table=state.table,
        table_seat=state.table_seat,
        to_act=state.to_act,
        passed=state.passed,
        places=state.places,
        frozen=state.frozen,
        must_include=state.must_include,
        first_game=state.first_game,
        over=state.to_act < 0,
        game_number=state.match.game_number,
        totals=state.match.totals,
        played=state.played,
        variant=state.rules.variant,
    )
