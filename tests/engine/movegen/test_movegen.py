"""Legal-move generation agrees exactly with `classify` and `beat` (RULES §3, §5, §6).

The brute-force oracle enumerates every subset of a small hand and keeps those the classifier
accepts (and, against a table, those `beat` accepts): generation must produce exactly that set,
each combination once, and the arithmetic counts must match it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers.datafile import Leads, leads_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen_rules import listing, movegen
from tienlen_rules.beating import Beat, beat, is_out_of_turn_chop
from tienlen_rules.cards import FULL_DECK, format_cards, parse_set
from tienlen_rules.combinations import Combination, Kind, chop_class, classify
from tienlen_rules.ruleset import RuleSet, build_rules

PRESET_NAMES = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")
RULE_SETS: tuple[RuleSet, ...] = (
    *(build_rules(v) for v in PRESET_NAMES),
    build_rules("northern", {"suited_straight_chops": True}),
    build_rules("southern", {"suited_straight_chops": True, "out_of_turn_chops": False}),
    # Odd combinations an API caller may ask for: generation must still agree with classify.
    # (Following suit needs pairs of one colour and straights of one suit: the Northern table
    # with mixed ones is played without following suit.)
    build_rules(
        "northern",
        {
            "consecutive_pairs": True,
            "same_colour_pairs": False,
            "single_suit_straights": False,
            "follow_suit": False,
        },
    ),
    build_rules(
        "southern",
        {
            "follow_suit": True,
            "same_colour_pairs": True,
            "single_suit_straights": True,
            "consecutive_triples": True,
        },
    ),
)
RULE_IDS = [
    r.variant + ("+" + ",".join(k for k, _ in r.overrides) if r.overrides else "")
    for r in RULE_SETS
]
SOUTHERN, NORTHERN, HUE, DA_NANG, DAU = (
    build_rules(v) for v in ("southern", "northern", "hue", "da_nang", "dau")
)

BRUTE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def classified_subsets(hand: int, rules: RuleSet) -> set[Combination]:
    """The oracle: every non-empty subset of the hand that classifies."""
    found: set[Combination] = set()
    sub = hand
    while sub:
        combo = classify(sub, rules)
        if combo is not None:
            found.add(combo)
        sub = (sub - 1) & hand
    return found


@st.composite
def dense_hands(draw: st.DrawFn, max_cards: int = 10, avoid: int = 0) -> int:
    """Up to `max_cards` cards packed into neighbouring ranks, each rank holding 0-4 cards (plus
    maybe some 2s), so that straights, consecutive pairs and triples and bombs are common."""
    low = draw(st.integers(0, 11))
    width = draw(st.integers(1, min(7, 13 - low)))
    hand = 0
    for rank in range(low, low + width):
        suits = draw(st.sets(st.integers(0, 3), max_size=4))
        hand |= sum(1 << (4 * rank + s) for s in suits)
    if draw(st.booleans()):
        hand |= draw(st.integers(0, 15)) << 48
    hand &= ~avoid
    cards = [c for c in range(52) if hand >> c & 1]
    keep = draw(st.permutations(cards))[:max_cards] if len(cards) > max_cards else cards
    return sum(1 << c for c in keep)


@st.composite
def hand_and_table(draw: st.DrawFn, rules: RuleSet) -> tuple[int, Combination]:
    """A hand and a play on the table made of other cards: a uniformly drawn group (type and
    length) of a dense opposing hand, then a play in it, so bombs and 2s are common tables."""
    hand = draw(dense_hands())
    other = draw(dense_hands(max_cards=12, avoid=hand).filter(bool))
    plays = movegen.combination_list(other, rules)
    groups = sorted({listing.group_key(c) for c in plays})
    group = draw(st.sampled_from(groups))
    table = draw(st.sampled_from([c for c in plays if listing.group_key(c) == group]))
    return hand, table


BOMB_SHAPES = (
    ("four", 1, 4),
    ("pairs", 3, 2),
    ("pairs", 4, 2),
    ("pairs", 5, 2),
    ("pairs", 6, 2),
    ("triples", 3, 3),
    ("suited", 5, 1),
)


@st.composite
def bomb_hands(draw: st.DrawFn) -> int:
    """A bomb (four of a kind, consecutive pairs or triples, a same-suit straight) with a few
    more cards around it."""
    shape, ranks, per_rank = draw(st.sampled_from(BOMB_SHAPES))
    low = draw(st.integers(0, 12 - ranks if shape != "four" else 12))
    suit = draw(st.integers(0, 3))
    hand = 0
    for rank in range(low, low + ranks):
        suits = [suit] if shape == "suited" else draw(st.permutations(range(4)))[:per_rank]
        hand |= sum(1 << (4 * rank + s) for s in suits)
    extra = draw(dense_hands(max_cards=max(1, 12 - hand.bit_count()), avoid=hand))
    return hand | extra


@st.composite
def bomb_hand_and_target(draw: st.DrawFn, rules: RuleSet) -> tuple[int, Combination]:
    """A bomb-rich hand and a table that bombs may chop (a 2, 2s, a bomb) whenever one exists."""
    hand = draw(bomb_hands())
    other = draw(bomb_hands()) & ~hand | (draw(st.integers(1, 15)) << 48) & ~hand
    plays = movegen.combination_list(other, rules) if other else []
    targets = [c for c in plays if chop_class(c)] or plays
    if not targets:
        return hand, Combination(Kind.SINGLE, 1, 0, 1)
    return hand, draw(st.sampled_from(targets))


def rules_and_hand_and_table() -> st.SearchStrategy[tuple[RuleSet, int, Combination]]:
    return st.sampled_from(RULE_SETS).flatmap(
        lambda r: st.one_of(hand_and_table(r), bomb_hand_and_target(r)).map(
            lambda ht: (r, ht[0], ht[1])
        )
    )


# --------------------------------------------------------------------------- leading


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@BRUTE
@given(hand=dense_hands())
def test_every_combination_a_hand_forms_is_generated_once(rules: RuleSet, hand: int) -> None:
    generated = movegen.combination_list(hand, rules)
    assert len(generated) == len(set(generated)), format_cards(hand)
    assert set(generated) == classified_subsets(hand, rules), format_cards(hand)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@BRUTE
@given(hand=dense_hands(max_cards=18))
def test_counting_is_arithmetic_and_matches_generation(rules: RuleSet, hand: int) -> None:
    generated = movegen.combination_list(hand, rules)
    assert movegen.count_combinations(hand, rules) == len(generated)
    assert movegen.count_by_group(hand, rules) == listing.group_counts(generated)
    assert list(movegen.combinations_in(hand, rules)) == generated


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@settings(max_examples=60, deadline=None)
@given(hand=dense_hands(max_cards=13))
def test_a_page_group_holds_exactly_the_plays_of_its_type_and_length(
    rules: RuleSet, hand: int
) -> None:
    generated = movegen.combination_list(hand, rules)
    for kind in Kind:
        for length in range(1, 13):
            group = movegen.plays_in_group(hand, rules, kind, length)
            expected = [c for c in generated if listing.group_key(c) == (kind, length)]
            assert sorted(group, key=listing.sort_key) == sorted(expected, key=listing.sort_key)


@pytest.mark.parametrize("case", leads_cases(Path(__file__).with_name("leads.perft")))
def test_a_hand_leads_exactly_the_plays_of_each_type_and_length_that_the_rules_allow(
    case: Leads,
) -> None:
    """leads.perft, block by block (RULES §3, §6): the counts worked out by hand agree with the
    brute-force model, with the generated list and with the arithmetic counts."""
    where = case.line.where
    assert sum(case.counts.values()) == case.total, where  # the block adds up
    model = Counter(listing.group_key(c) for c in classified_subsets(case.hand, case.rules))
    assert dict(model) == case.counts, where
    generated = movegen.combination_list(case.hand, case.rules)
    assert listing.group_counts(generated) == case.counts, where
    assert len(generated) == case.total, where
    assert movegen.count_by_group(case.hand, case.rules) == case.counts, where
    assert movegen.count_combinations(case.hand, case.rules) == case.total, where


def test_a_straight_never_holds_a_two() -> None:
    plays = movegen.combination_list(parse_set("KS AS 2S QC"), SOUTHERN)
    straights = {format_cards(c.cards) for c in plays if c.kind == Kind.STRAIGHT}
    assert straights == {"QC KS AS"}


def test_northern_pairs_are_one_colour_and_straights_one_suit() -> None:
    hand = parse_set("5S 5C 5D 6S 6H 7S 7D")
    plays = movegen.combination_list(hand, NORTHERN)
    pairs = {format_cards(c.cards) for c in plays if c.kind == Kind.PAIR}
    straights = {format_cards(c.cards) for c in plays if c.kind == Kind.STRAIGHT}
    assert pairs == {"5S 5C"}
    assert straights == {"5S 6S 7S"}
    assert not any(c.kind == Kind.CONSECUTIVE_PAIRS for c in plays)


@pytest.mark.parametrize(
    "text",
    [
        "3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D 7S 7C 7D 8S 8C 8D",  # 18 cards, six triples
        "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9S 10S JS QS KS AS",  # a long run, many straights
        "3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 7S 7C",  # fours in a row
    ],
)
def test_big_dau_hands_count_without_generating_and_still_agree(text: str) -> None:
    hand = parse_set(text)
    count = movegen.count_combinations(hand, DAU)
    assert count > 1000
    assert count == len(movegen.combination_list(hand, DAU))


# --------------------------------------------------------------------------- beating


@BRUTE
@given(case=rules_and_hand_and_table())
def test_plays_beating_are_exactly_the_plays_beat_accepts(
    case: tuple[RuleSet, int, Combination],
) -> None:
    rules, hand, table = case
    expected = {c for c in classified_subsets(hand, rules) if beat(c, table, rules)[0] != Beat.NO}
    generated = list(movegen.plays_beating(hand, table, rules))
    assert len(generated) == len(set(generated))
    assert set(generated) == expected, (format_cards(hand), table)
    assert movegen.has_beat(hand, table, rules) == bool(expected), (format_cards(hand), table)
    assert movegen.beating_list(hand, table, rules) == generated


@BRUTE
@given(case=rules_and_hand_and_table())
def test_out_of_turn_chops_are_exactly_the_bombs_allowed_out_of_turn(
    case: tuple[RuleSet, int, Combination],
) -> None:
    rules, hand, table = case
    expected = {c for c in classified_subsets(hand, rules) if is_out_of_turn_chop(c, table, rules)}
    generated = list(movegen.out_of_turn_chops(hand, table, rules))
    assert len(generated) == len(set(generated))
    assert set(generated) == expected
    assert movegen.has_out_of_turn_chop(hand, table, rules) == bool(expected)


def test_leading_lists_every_combination() -> None:
    hand = parse_set("3S 3C 4D")
    assert movegen.beating_list(hand, None, SOUTHERN) == movegen.combination_list(hand, SOUTHERN)


def table(text: str, rules: RuleSet = SOUTHERN) -> Combination:
    combo = classify(parse_set(text), rules)
    assert combo is not None
    return combo


def plays_text(hand: str, on: str, rules: RuleSet = SOUTHERN) -> set[str]:
    return {
        format_cards(c.cards)
        for c in movegen.plays_beating(parse_set(hand), table(on, rules), rules)
    }


def test_a_single_is_beaten_by_any_higher_card() -> None:
    assert plays_text("5S 5H 9C", "5D") == {"5H", "9C"}


def test_three_consecutive_pairs_chop_a_single_two_in_the_south() -> None:
    assert plays_text("3S 3C 4S 4C 5S 5C", "2H") == {"3S 3C 4S 4C 5S 5C"}


def test_three_consecutive_pairs_do_not_chop_in_hue_and_da_nang() -> None:
    for rules in (HUE, DA_NANG):
        assert not movegen.has_beat(parse_set("3S 3C 4S 4C 5S 5C"), table("2H", rules), rules)


def test_four_of_a_kind_chops_a_pair_of_twos_and_three_consecutive_pairs() -> None:
    assert plays_text("7S 7C 7D 7H", "2S 2H") == {"7S 7C 7D 7H"}
    assert plays_text("7S 7C 7D 7H", "JS JC QS QC KS KC") == {"7S 7C 7D 7H"}


def test_a_bomb_chops_its_own_kind_only_when_higher() -> None:
    assert plays_text("7S 7C 7D 7H", "8S 8C 8D 8H") == set()
    assert plays_text("9S 9C 9D 9H", "8S 8C 8D 8H") == {"9S 9C 9D 9H"}


def test_four_consecutive_pairs_chop_out_of_turn_in_the_south() -> None:
    hand = parse_set("3S 3C 4S 4C 5S 5C 6S 6C 9D")
    chops = {format_cards(c.cards) for c in movegen.out_of_turn_chops(hand, table("2D"), SOUTHERN)}
    assert chops == {"3S 3C 4S 4C 5S 5C 6S 6C"}
    assert list(movegen.out_of_turn_chops(hand, table("KD"), SOUTHERN)) == []


def test_da_nang_four_consecutive_pairs_do_not_chop_a_single_two() -> None:
    hand = parse_set("3S 3C 4S 4C 5S 5C 6S 6C")
    assert not movegen.has_beat(hand, table("2D", DA_NANG), DA_NANG)
    assert movegen.has_beat(hand, table("2D 2H", DA_NANG), DA_NANG)


def test_dau_six_consecutive_pairs_chop_a_triple_of_twos() -> None:
    hand = parse_set("3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C")
    plays = plays_text(format_cards(hand), "2S 2C 2D", DAU)
    assert plays == {format_cards(hand)}


def test_northern_singles_follow_suit_and_a_two_goes_on_any_single() -> None:
    assert plays_text("6S 9D KH 2C", "5H", NORTHERN) == {"KH", "2C"}


def test_northern_pairs_follow_the_table_pairs_colour() -> None:
    assert plays_text("9S 9C 10D 10H", "5D 5H", NORTHERN) == {"10D 10H"}


def test_northern_pair_of_twos_is_beaten_only_by_a_chop() -> None:
    assert plays_text("2D 2H", "2S 2C", NORTHERN) == set()
    assert plays_text("6S 6C 6D 6H", "2S 2C", NORTHERN) == {"6S 6C 6D 6H"}


def test_nothing_beats_the_highest_two_without_a_bomb() -> None:
    no_bombs = parse_set("3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH 2D")
    assert not movegen.has_beat(no_bombs, table("2H"), SOUTHERN)
    assert not movegen.has_beat(
        FULL_DECK & ~parse_set("2H"), table("2H"), build_rules("southern", {"chop_table": "none"})
    )
    assert movegen.has_beat(parse_set("3S 3C 3D 3H"), table("2H"), SOUTHERN)


# --------------------------------------------------------------------------- paging helpers


def test_group_counts_are_in_sort_order() -> None:
    plays = movegen.combination_list(parse_set("3S 3C 4S 5S 5C"), SOUTHERN)
    counts = listing.group_counts(plays)
    assert list(counts) == sorted(counts)
    assert counts == dict(sorted(Counter(listing.group_key(c) for c in plays).items()))


def test_plays_containing_keeps_the_plays_with_the_starting_card() -> None:
    plays = movegen.combination_list(parse_set("3S 3C 4D 5H"), SOUTHERN)
    kept = movegen.plays_containing(plays, 0)
    assert {format_cards(c.cards) for c in kept} == {"3S", "3S 3C", "3S 4D 5H"}
