"""Chop classes (RULES §5): what a play is for chopping, as `ChopClass` members that know the
type and length of the plays they name — the chop tables, move generation and penalty values
read those, never a parsed name — while a member's text is the name settlements carry."""

from __future__ import annotations

import pytest

from tienlen_rules import ChopClass, Kind, build_rules, chop_class, classify, parse_set
from tienlen_rules.combinations import target_class

SOUTHERN = build_rules("southern")
DAU = build_rules("dau")
NORTHERN = build_rules("northern")


@pytest.mark.parametrize(
    ("variant", "play", "expected"),
    [
        ("southern", "2S", ChopClass.TWO),
        ("southern", "2S 2D", ChopClass.PAIR_OF_TWOS),
        ("southern", "2S 2C 2D", ChopClass.TRIPLE_OF_TWOS),
        ("southern", "6S 6C 6D 6H", ChopClass.FOUR_OF_A_KIND),
        ("southern", "3S 3C 4S 4C 5S 5C", ChopClass.THREE_PAIRS),
        ("southern", "7S 7C 8S 8C 9S 9C 10S 10C", ChopClass.FOUR_PAIRS),
        ("dau", "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9S 9C", ChopClass.SEVEN_PAIRS),
        ("dau", "4S 4C 4D 5S 5C 5D 6S 6C 6D", ChopClass.THREE_TRIPLES),
        ("northern", "3H 4H 5H 6H 7H", ChopClass.SUITED_STRAIGHT_5),
        ("northern", "5S 6S 7S 8S 9S 10S JS QS", ChopClass.SUITED_STRAIGHT_8),
    ],
)
def test_a_play_s_chop_class_has_the_play_s_type_and_length(
    variant: str, play: str, expected: ChopClass
) -> None:
    combo = classify(parse_set(play), build_rules(variant))
    assert combo is not None
    assert chop_class(combo) is expected
    assert (expected.kind, expected.length) == (combo.kind, combo.length)


@pytest.mark.parametrize(
    "play", ["7S", "AH", "8S 8C", "QS QC QD", "9S 10C JD", "3S 4C 5D 6H 7S", "3S 4S 5S 6S"]
)
def test_plays_below_2s_that_are_no_bomb_have_no_chop_class(play: str) -> None:
    combo = classify(parse_set(play), SOUTHERN)
    assert combo is not None
    assert chop_class(combo) is None
    assert target_class(combo) is None


def test_four_2s_are_a_four_of_a_kind_but_no_chop_target() -> None:
    combo = classify(parse_set("2S 2C 2D 2H"), SOUTHERN)
    assert combo is not None
    assert combo.kind == Kind.FOUR_OF_A_KIND
    assert chop_class(combo) is ChopClass.FOUR_OF_A_KIND
    assert target_class(combo) is None


def test_the_chop_tables_and_penalty_values_are_keyed_by_chop_classes() -> None:
    for rules in (
        SOUTHERN,
        DAU,
        NORTHERN,
        build_rules("northern", {"suited_straight_chops": True}),
    ):
        keys = {*rules.chop_targets, *rules.out_of_turn, *rules.bomb_values}
        keys |= {t for targets in rules.chop_targets.values() for t in targets}
        assert all(type(k) is ChopClass for k in keys), rules.variant
    assert SOUTHERN.bomb_values[ChopClass.FOUR_PAIRS] == SOUTHERN.penalty_four_pairs


def test_a_chop_class_is_written_as_the_name_a_settlement_carries() -> None:
    names = {c: f"{c}" for c in ChopClass}
    assert names[ChopClass.TWO] == "2"
    assert names[ChopClass.PAIR_OF_TWOS] == "22"
    assert names[ChopClass.FOUR_OF_A_KIND] == "four"
    assert names[ChopClass.FOUR_PAIRS] == "4pairs"
    assert names[ChopClass.THREE_TRIPLES] == "3triples"
    assert names[ChopClass.SUITED_STRAIGHT_5] == "straight5"
    assert len(set(names.values())) == len(ChopClass)
