"""A search stops when its caller no longer wants the move.

`suggest_move(..., should_stop=...)` hands the Monte-Carlo bot a cheap check it asks before
every playout; once the check says True the search ends with `Abandoned`. The engine knows
nothing of calls or deadlines: only the callable.
"""

from __future__ import annotations

import pytest

from tienlen_rules import Abandoned, build_rules, new_game, suggest_move


def test_the_montecarlo_search_stops_at_the_first_check_that_says_stop() -> None:
    state, _ = new_game(build_rules("southern"), 4, seed=0)
    checks = 0

    def should_stop() -> bool:
        nonlocal checks
        checks += 1
        return checks > 3

    with pytest.raises(Abandoned):
        suggest_move(state, state.to_act, "montecarlo", seed=1, should_stop=should_stop)
    assert checks == 4  # three playouts, then the check that stopped it


def test_a_check_that_never_says_stop_changes_nothing() -> None:
    state, _ = new_game(build_rules("southern"), 4, seed=0)
    plain = suggest_move(state, state.to_act, "montecarlo", seed=1)
    watched = suggest_move(state, state.to_act, "montecarlo", seed=1, should_stop=lambda: False)
    assert watched == plain
