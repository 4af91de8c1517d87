"""Statistical strength tests (slow): greedy beats random, Monte-Carlo beats greedy.

Duplicate format, to cancel the luck of the deal: for each seeded deal and each seat, the deal
is played once with the tested bot in that seat against three baseline bots, and once with a
baseline bot in that seat; the difference of that seat's settled net is one paired sample. The
95% confidence interval of the mean difference must exclude parity (zero).

Run with: .venv/bin/python -m pytest -m slow tests/engine/bots/test_bots_strength.py
"""

from __future__ import annotations

import math
import random
import statistics

import pytest

import tienlen_rules
from tienlen_rules.bots import make_bot
from tienlen_rules.ruleset import build_rules
from tienlen_rules.settlement import settle
from tools.simulate import GameRecord, LocalTable, play_game

SOUTHERN = build_rules("southern")
Z95 = 1.959963984540054


def seat_net(bots: list[str], seed: int, seat: int) -> float:
    """One first game from `seed`; the seat's net in stakes."""
    state, _ = tienlen_rules.new_game(SOUTHERN, len(bots), seed=seed)
    final, _ = play_game(
        state, [make_bot(b) for b in bots], random.Random(seed), LocalTable(), GameRecord(state)
    )
    return settle(final).net[seat] / SOUTHERN.stake


def paired_differences(tested: str, baseline: str, deals: int) -> list[float]:
    diffs = []
    for seed in range(deals):
        for seat in range(4):
            bots = [baseline] * 4
            with_tested = [*bots[:seat], tested, *bots[seat + 1 :]]
            diffs.append(seat_net(with_tested, seed, seat) - seat_net(bots, seed, seat))
    return diffs


def interval(samples: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(samples)
    half = Z95 * statistics.stdev(samples) / math.sqrt(len(samples))
    return mean, mean - half, mean + half


@pytest.mark.slow
def test_greedy_beats_random() -> None:
    mean, low, high = interval(paired_differences("greedy", "random", deals=60))
    assert low > 0, f"greedy - random: {mean:+.2f} stakes a game, 95% CI [{low:+.2f}, {high:+.2f}]"


@pytest.mark.slow
def test_monte_carlo_beats_greedy() -> None:
    mean, low, high = interval(paired_differences("montecarlo", "greedy", deals=100))
    assert low > 0, (
        f"montecarlo - greedy: {mean:+.2f} stakes a game, 95% CI [{low:+.2f}, {high:+.2f}]"
    )
