"""The exact endgame solver and the listed deals: exact against brute force, bounded by its node
budget, stopped by its caller.

The brute force below is the definition the solver must meet: every move the engine lists
(`legal_moves`), made by the engine's validating `apply`, every position searched again each
time it is reached (no table), each seat keeping the first of its best moves in the policy's
order (`policy_in`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tienlen_rules import Abandoned, build_rules, game, new_game
from tienlen_rules.bots import make_bot, observe
from tienlen_rules.bots.base import unseen_cards
from tienlen_rules.bots.deals import deal_count, enumerated_deals
from tienlen_rules.bots.policy import playout_play, policy_in
from tienlen_rules.bots.solver import Solver, Value, final_value, live_cards
from tienlen_rules.cards import parse_set
from tienlen_rules.state import GameState, Move

from .test_bots_play_legally import PRESETS, players_for


def brute_force(state: GameState) -> Value:
    """Max-n by the definition: no table, validated moves, ties to the policy's move."""
    if state.over:
        return final_value(state)
    seat = state.to_act
    moves = game.legal_moves(state, seat)
    plays, _ = game.legal_plays(state, seat)
    first = policy_in(state, seat, plays)
    first_cards = () if first is None else tuple(c for c in range(52) if first.cards >> c & 1)
    moves.sort(key=lambda m: not (m.is_pass if first is None else m.cards == first_cards))
    best: Value | None = None
    for move in moves:
        value = brute_force(game.apply(state, move)[0])
        if best is None or value[seat] > best[seat]:
            best = value
    assert best is not None
    return best


def endgame(variant: str, seed: int, cards: int) -> GameState | None:
    """The first position of a `counting` self-play game of this deal with at most `cards`
    cards left in play (None when the game ends first)."""
    rules = build_rules(variant)
    state, _ = new_game(rules, players_for(variant), seed=seed)
    while not state.over and live_cards(state) > cards:
        state = game.apply_in_turn(state, playout_play(state))
    return None if state.over else state


def small_endgame(variant: str, seed: int, nodes: int) -> GameState | None:
    """The first position of a `counting` self-play game of this deal that the solver solves
    in at most `nodes` nodes (Đếm lá ends at the first player out, often with many cards in
    play: its endgames are found by size, not by cards)."""
    rules = build_rules(variant)
    state, _ = new_game(rules, players_for(variant), seed=seed)
    while not state.over:
        small = live_cards(state) <= 12 or min(h.bit_count() for h in state.hands) <= 2
        if small and Solver(budget=nodes).value(state) is not None:
            return state
        state = game.apply_in_turn(state, playout_play(state))
    return None


@pytest.mark.parametrize("variant", PRESETS)
def test_the_solver_values_small_endgames_as_brute_force_does(variant: str) -> None:
    solved = 0
    for seed in range(8):
        state = small_endgame(variant, seed, nodes=120)
        if state is None or state.to_act < 0:
            continue
        expected = brute_force(state)
        solver = Solver(budget=100_000)
        assert solver.value(state) == expected
        best = solver.best(state)
        assert best is not None
        assert best[1] == expected
        solved += 1
    assert solved >= 3


def test_the_solver_finds_the_order_that_wins_where_the_policy_loses() -> None:
    # Two players, seat 1 to lead. The policy sheds its lowest card, 4S, and loses: seat 0
    # beats it, takes the 2C round and goes out on 5H. Led first, the pair of 5s (which seat 0
    # cannot answer) leaves 4S and QH, and seat 0 can no longer stop seat 1 going out first.
    rules = build_rules("southern")
    state, _ = new_game(
        rules,
        2,
        hands=[parse_set("5H 9S 2C"), parse_set("4S 5S 5D QH")],
        first_game=False,
        leader=1,
    )
    policy = playout_play(state)
    assert policy is not None
    assert policy.cards == parse_set("4S")
    solver = Solver(budget=10_000)
    best = solver.best(state)
    assert best is not None
    move, value = best
    assert move is not None
    assert move.cards == parse_set("5S 5D")
    assert value == brute_force(state)
    assert value[1] > 0 > value[0]
    after_policy = solver.value(game.apply_in_turn(state, policy))
    assert after_policy is not None
    assert after_policy[1] < 0


def test_a_solve_past_its_node_budget_gives_up_within_it() -> None:
    state = endgame("southern", 3, cards=14)
    assert state is not None
    solver = Solver(budget=50)
    assert solver.value(state) is None
    assert solver.nodes == 51  # the node that found the budget spent is counted, none after


def test_a_solve_stops_at_the_callers_stop() -> None:
    state = endgame("southern", 3, cards=14)
    assert state is not None
    checks = 0

    def should_stop() -> bool:
        nonlocal checks
        checks += 1
        return checks > 2

    solver = Solver(budget=100_000, should_stop=should_stop)
    with pytest.raises(Abandoned):
        solver.value(state)
    assert checks == 3
    assert solver.nodes == 3 * 64


# --------------------------------------------------------------------------- listed deals


def _late(seed: int, fits: Callable[[GameState], bool]) -> GameState:
    """The first position of a greedy self-play game from this deal on where seat 0 is to act
    and `fits` says yes."""
    greedy = make_bot("greedy")
    rng = random.Random(seed)
    rules = build_rules("southern")
    for deal in range(seed, seed + 200):
        state, _ = new_game(rules, 4, seed=deal)
        while not state.over:
            if state.to_act == 0 and fits(state):
                return state
            move: Move = greedy.choose(observe(state, state.to_act), rng)
            state, _ = game.apply(state, move)
    raise AssertionError("no such position")


def _holding(state: GameState) -> int:
    return sum(1 for p in state.places if not p)


def test_with_one_opponent_left_the_only_deal_is_the_true_one() -> None:
    state = _late(1, lambda s: _holding(s) == 2)
    obs = observe(state, 0)
    assert deal_count(obs) == 1
    (only,) = enumerated_deals(obs)
    assert only.hands == state.hands
    assert only.dealt == state.dealt


def test_the_listed_deals_are_every_deal_that_fits_once() -> None:
    state = _late(2, lambda s: _holding(s) >= 3 and deal_count(observe(s, 0)) <= 2000)
    obs = observe(state, 0)
    count = deal_count(obs)
    assert count > 1
    deals = list(enumerated_deals(obs))
    assert len(deals) == count
    assert len({d.hands for d in deals}) == count
    assert state.hands in {d.hands for d in deals}
    for d in deals:
        assert d.hands[0] == obs.hand
        assert tuple(h.bit_count() for h in d.hands) == obs.hand_counts
        others = 0
        for seat in (1, 2, 3):
            others |= d.hands[seat]
        assert others == unseen_cards(obs)
