"""Invariants of a live table (RULES §9) over random matches of every preset: the host's
time-outs and leaves (played out and forfeited), seat changes between games, bankrolls. At every
step the cards are conserved and exactly one seat may act; every settlement adds up, stays
zero-sum where the rules say so, charges no seat more than its bankroll under the loss cap, and
never more than the preset's `max_loss_stakes`."""

from __future__ import annotations

import random

import pytest

import tienlen_rules as engine
from tienlen_rules import PRESETS, build_rules, max_loss_stakes, settle
from tienlen_rules.invariants import check_cards, check_settlement, check_turn

MATCHES = 12
"""Random matches per case: a count, so every machine plays the same seeded games."""


def _host_move(state: engine.GameState, rng: random.Random, left: bool) -> engine.Move:
    """What a host sends next: a seat on auto's time-out, now and then a time-out or a leave,
    else a random legal move of a random seat (out-of-turn chops and steals included)."""
    if state.auto >> state.to_act & 1 or rng.random() < 0.15:
        return engine.timeout(state.to_act)
    if not left and rng.random() < 0.04:
        seats = [s for s in range(state.players) if state.places[s] == 0]
        return engine.leave(rng.choice(seats))
    seat = rng.randrange(state.players)
    moves = engine.legal_moves(state, seat) or engine.legal_moves(state, state.to_act)
    return rng.choice(moves) if moves else engine.timeout(state.to_act)


def _changes(state: engine.GameState, rng: random.Random, n: int) -> engine.SeatChanges:
    """A seat change now and then: one player leaves, newcomers fill some empty seats (a table
    of 3 seats stays full)."""
    staying = [
        s for s in range(state.players) if state.places[s] >= 0 and not state.departed >> s & 1
    ]
    minimum = state.rules.min_bankroll_stakes * state.rules.stake
    if state.match.bankrolls:
        net = settle(state).net
        staying = [s for s in staying if state.match.bankrolls[s] + net[s] >= minimum]
    if len(staying) > 2 and rng.random() < 0.5:
        staying.remove(rng.choice(staying))
    free = [s for s in range(n) if s not in staying]
    wanted = n - len(staying) if n == 3 else rng.randint(max(0, 2 - len(staying)), len(free))
    newcomers = tuple(
        engine.Newcomer(
            s,
            f"n{state.match.game_number}-{s}",
            minimum + rng.randrange(1, 30) * 100 if state.match.bankrolls else None,
        )
        for s in rng.sample(free, wanted)
    )
    return engine.SeatChanges(tuple(staying), newcomers)


def _check_money(state: engine.GameState) -> None:
    result = settle(state)
    check_settlement(state, result)
    bound = max_loss_stakes(state.rules) * state.rules.stake
    for seat, net in enumerate(result.net):
        assert -net <= bound, f"seat {seat} lost {-net}, over the bound {bound}"
        chips = state.match.bankrolls
        if chips and state.rules.loss_cap == "bankroll":
            assert -net <= chips[seat], f"seat {seat} lost {-net} of its {chips[seat]} chips"
    for transfer in result.transfers:
        assert transfer.owed == 0 or 0 <= transfer.amount < transfer.owed


CASES = [
    *((variant, {}) for variant in PRESETS),
    ("southern", {"leave_mid_game": "forfeit"}),
    ("dem_la", {"leave_mid_game": "forfeit", "min_bankroll_stakes": "0"}),
    ("hue", {"leave_mid_game": "forfeit", "timeout_action": "bot"}),
    ("dau", {"leave_mid_game": "forfeit", "first_game_when_winner_leaves": "false"}),
    ("southern", {"loss_cap": "none", "auto_after_timeouts": "0"}),
]


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_a_live_table_keeps_every_invariant(variant: str, options: dict[str, str]) -> None:
    for seed in range(MATCHES):
        rng = random.Random(f"{variant}-{sorted(options.items())}-{seed}")
        rules = build_rules(variant, options)
        n = 3 if rules.deal_all_cards else 4
        minimum = rules.min_bankroll_stakes * rules.stake
        chips = (
            [minimum + rng.randrange(0, 10) * rules.stake for _ in range(n)] if seed % 2 else None
        )
        state, events = engine.new_game(rules, n, seed=seed, bankrolls=chips)
        for _ in range(3):
            left = False
            while not state.over:
                check_turn(state)
                move = _host_move(state, rng, left)
                left |= move.action is engine.TableAction.LEAVE
                after, events = engine.apply(state, move)
                check_cards(after, state, events)
                state = after
            check_turn(state)
            _check_money(state)
            state, events = engine.next_game(
                state, seed=rng.randrange(2**32), changes=_changes(state, rng, n)
            )
