"""Helpers for the table tests (RULES §9): a finished game of four, and seat changes."""

from __future__ import annotations

from helpers.tables import later
from tienlen_rules import Event, GameState, Newcomer, SeatChanges, next_game

# A later game of four (seat 0 leads): seat 3 goes out first, then 0, then 1; seat 2 is last.
FOUR = ("3S 4S", "5D 6D", "7H 8H", "9C 10C")


def four_finished(variant: str = "southern", **options: object) -> GameState:
    """FOUR played out: places 2, 3, 4, 1 (seat 3 won)."""
    table = later(variant, *FOUR, options=options)
    table.play(0, "3S").play(1, "5D").play(2, "7H").play(3, "9C").passes(0, 1, 2)
    table.play(3, "10C").passes(0, 1, 2).play(0, "4S").play(1, "6D")
    assert table.over
    assert table.places == (2, 3, 4, 1)
    return table.state


def changed(
    state: GameState, staying: tuple[int, ...], *newcomers: Newcomer, **deal: object
) -> tuple[GameState, tuple[Event, ...]]:
    """The next game after these seat changes (RULES §9.1), dealt as `deal` says."""
    return next_game(state, changes=SeatChanges(staying, newcomers), **deal)  # type: ignore[arg-type]
