"""Every hint is bounded, and every bot stops when its caller says so (docs/BOTS.md, *Cost*).

A hint (SuggestMove) is a bot's move plus its explanation. Whatever the position — any deal
a record may replay — a bot that does not search costs a bounded number of calls per legal
play of the seat: the explanation asks "can anyone beat this?" without building the unseen
cards' runs, and looks for a line of bosses only where the policy does (RUN_OUT_CARDS). Every
bot, search or not, is handed the caller's stop signal and gives up with `Abandoned`.
"""

from __future__ import annotations

import pytest
from helpers.work import calls_made

from tienlen_rules import (
    BOTS,
    LEVELS,
    Abandoned,
    build_rules,
    new_game,
    observe,
    suggest,
    suggest_move,
)
from tienlen_rules.bots.plan import _plan_cost
from tienlen_rules.cards import FULL_DECK, parse_set
from tienlen_rules.state import GameState

SEARCHES = {"montecarlo", "expert", "hard"}
EVERY_BOT = [*BOTS, *(level.name for level in LEVELS)]
CHEAP_BOTS = [name for name in EVERY_BOT if name not in SEARCHES]
#: A hint's calls per legal play of the seat: choosing weighs each play's plan once, and the
#: explanation asks a few bit tests (about 26 per play measured; thousands before).
CALLS_PER_PLAY = 40


def dau_opening(hand: str) -> GameState:
    """A Đấu game (no instant wins) whose seat 0 leads `hand`, 18 cards, as a replay deals it."""
    rules = build_rules("dau", {"instant_wins": "none"})
    own = parse_set(hand)
    rest = [c for c in range(52) if FULL_DECK & ~own >> c & 1]
    others = (sum(1 << c for c in rest[0::2][:17]), sum(1 << c for c in rest[1::2][:17]))
    state, _ = new_game(rules, 3, hands=(own, *others), leader=0, first_game=False)
    return state


LONG_STRAIGHT = dau_opening("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 6C 7C 8C 9C 10C JC")
MOST_PLAYS = dau_opening("6S 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 9S 9C 9D 9H 10S 10D 10H")


@pytest.mark.parametrize("state", [LONG_STRAIGHT, MOST_PLAYS], ids=["long-straight", "most-plays"])
@pytest.mark.parametrize("bot", CHEAP_BOTS)
def test_a_hint_costs_a_bounded_number_of_calls_per_legal_play(bot: str, state: GameState) -> None:
    plays = len(observe(state, 0).plays)
    _plan_cost.cache_clear()  # the worst case: no plan remembered from an earlier hint
    cost = calls_made(lambda: suggest(state, 0, bot, seed=1))
    assert cost < CALLS_PER_PLAY * plays, f"{cost} calls for {plays} plays"


@pytest.mark.parametrize("bot", EVERY_BOT)
def test_every_bot_stops_when_its_caller_no_longer_wants_the_hint(bot: str) -> None:
    with pytest.raises(Abandoned):
        suggest(LONG_STRAIGHT, 0, bot, seed=1, should_stop=lambda: True)
    with pytest.raises(Abandoned):
        suggest_move(LONG_STRAIGHT, 0, bot, seed=1, should_stop=lambda: True)


@pytest.mark.parametrize("bot", CHEAP_BOTS)
def test_a_stop_signal_that_never_fires_changes_no_hint(bot: str) -> None:
    assert suggest(MOST_PLAYS, 0, bot, seed=3, should_stop=lambda: False) == suggest(
        MOST_PLAYS, 0, bot, seed=3
    )
