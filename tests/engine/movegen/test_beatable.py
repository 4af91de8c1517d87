"""Whether a hand can beat a play is answered without building the hand's runs (RULES §3, §7).

`has_beat` is asked at every pass (compensation, *đền bài*) and by the bots of every card they
have not seen: 34 unseen cards hold over half a million 12-card straights. The answer must agree
with the plays generation finds, on hands far larger than the brute-force tests' (up to 20
cards, every preset and option mix), and cost a few dozen calls however many runs there are.
"""

from __future__ import annotations

import pytest
from helpers.work import calls_made
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen_rules import movegen
from tienlen_rules.beatable import has_suited_run
from tienlen_rules.cards import format_cards, parse_set
from tienlen_rules.combinations import Combination, classify
from tienlen_rules.ruleset import RuleSet, build_rules

from .test_movegen import RULE_IDS, RULE_SETS

DAU = build_rules("dau")
NORTHERN_CHOPS = build_rules("northern", {"suited_straight_chops": True})
EVERY_UNSEEN = "3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 8C 8D 8H 9C 9D 9H 10C 10D 10H"


def play(text: str, rules: RuleSet) -> Combination:
    combo = classify(parse_set(text), rules)
    assert combo is not None
    return combo


@st.composite
def large_hand_and_table(draw: st.DrawFn) -> tuple[RuleSet, int, Combination]:
    """A rule set, a hand of 12-20 cards and a sequence (or any play) of other cards."""
    rules = draw(st.sampled_from(RULE_SETS))
    deck = draw(st.permutations(range(52)))
    size = draw(st.integers(12, 20))
    hand = sum(1 << c for c in deck[:size])
    other = sum(1 << c for c in deck[size : size + 13])
    plays = movegen.combination_list(other, rules)
    runs = [c for c in plays if c.length >= 3] or plays
    return rules, hand, draw(st.sampled_from(runs))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=large_hand_and_table())
def test_has_beat_agrees_with_the_plays_generation_finds_on_large_hands(
    case: tuple[RuleSet, int, Combination],
) -> None:
    rules, hand, table = case
    found = next(movegen.plays_beating(hand, table, rules), None) is not None
    assert movegen.has_beat(hand, table, rules) == found, (format_cards(hand), table)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_can_a_twelve_card_straight_be_beaten_costs_a_few_dozen_calls(rules: RuleSet) -> None:
    # Three or four unseen cards on every rank 3..A: 3^12 twelve-card straights to build.
    unseen = parse_set(EVERY_UNSEEN + " JC JD JH QC QD QH KC KD KH AC AD 2S 2C")
    table = play("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", build_rules("dau"))
    assert calls_made(lambda: movegen.has_beat(unseen, table, rules)) < 300


def test_a_long_run_of_pairs_is_beaten_only_by_a_higher_one() -> None:
    table = play("3S 3C 4S 4C 5S 5C 6S 6C 7S 7C", DAU)
    assert movegen.has_beat(parse_set(EVERY_UNSEEN), table, DAU)
    assert not movegen.has_beat(parse_set("3D 3H 4D 4H 5D 5H 6D 6H 7D 8H"), table, DAU)


def test_a_northern_straight_is_beaten_in_its_suit_or_chopped_by_a_same_suit_one() -> None:
    table = play("5H 6H 7H", NORTHERN_CHOPS)
    # Higher, but in spades: it neither follows suit nor chops a straight of its own length.
    assert not movegen.has_beat(parse_set("6S 7S 8S"), table, NORTHERN_CHOPS)
    assert movegen.has_beat(parse_set("6H 7H 8H"), table, NORTHERN_CHOPS)


def test_a_same_suit_straight_needs_its_ranks_in_one_suit() -> None:
    assert has_suited_run(parse_set("3S 4S 5S 6S 7S"), 5)
    assert not has_suited_run(parse_set("3S 4S 5S 6C 7S"), 5)
    assert not has_suited_run(parse_set("JD QD KD AD 2D"), 5)  # a 2 ends no straight
