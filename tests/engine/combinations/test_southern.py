"""Combinations (*bộ bài*) and beating the table (*đè*), RULES §3, Southern game.

Classification is checked on the pure function `classify`, comparison (`beat`) by the cases of
`relations.txt` beside this file, and the refusals a player sees through `game.apply` with
explicit hands.
"""

from __future__ import annotations

import pytest
from helpers.moves import SOUTHERN, combo, must, refusal, run, start

from tienlen_rules.cards import parse_card, parse_set
from tienlen_rules.combinations import Kind, classify
from tienlen_rules.errors import Reason

# --------------------------------------------------------------------------- classification


@pytest.mark.parametrize(
    ("cards", "kind", "length", "top"),
    [
        ("7D", Kind.SINGLE, 1, "7D"),
        ("2H", Kind.SINGLE, 1, "2H"),
        ("9S 9H", Kind.PAIR, 2, "9H"),
        ("2S 2C", Kind.PAIR, 2, "2C"),
        ("KS KD KH", Kind.TRIPLE, 3, "KH"),
        ("2S 2D 2H", Kind.TRIPLE, 3, "2H"),
        ("3S 4D 5C", Kind.STRAIGHT, 3, "5C"),
        ("10H JS QD KC AS", Kind.STRAIGHT, 5, "AS"),
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", Kind.STRAIGHT, 12, "AS"),  # the dragon
        ("3S 3C 4D 4H 5S 5H", Kind.CONSECUTIVE_PAIRS, 3, "5H"),
        ("QS QC KS KC AS AH", Kind.CONSECUTIVE_PAIRS, 3, "AH"),
        ("6S 6C 7S 7C 8S 8C 9S 9C", Kind.CONSECUTIVE_PAIRS, 4, "9C"),
        ("8S 8C 8D 8H", Kind.FOUR_OF_A_KIND, 4, "8H"),
        ("2S 2C 2D 2H", Kind.FOUR_OF_A_KIND, 4, "2H"),
    ],
)
def test_each_combination_type_is_recognised(cards: str, kind: Kind, length: int, top: str) -> None:
    found = must(cards)
    assert (found.kind, found.length, found.top) == (kind, length, parse_card(top))
    assert found.cards == parse_set(cards)


def test_the_dragon_is_the_twelve_card_straight_three_to_ace_in_any_suits() -> None:
    dragon = must("3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH")
    assert (dragon.kind, dragon.length) == (Kind.STRAIGHT, 12)


@pytest.mark.parametrize(
    "cards",
    [
        "KS AS 2S",  # a straight can't hold a 2
        "AS 2S 3S",  # nor wrap round
        "QS KS AS 2S",
        "3S 4S",  # a straight needs 3 cards
        "3S 4S 6S",  # with no gap
        "3S 3C 4S 4C",  # consecutive pairs need 3 pairs
        "KS KC AS AC 2S 2C",  # and no 2
        "3S 3C 4S 4C 6S 6C",  # and no gap
        "3S 3C 4S 5S 5C",  # one rank short of a pair
        "3S 3C 3D 4S 4C 4D 5S 5C 5D",  # consecutive triples are Đấu only
        "3S 4S 4C",
        "3S 3C 3D 4S",  # not a full house, nothing
        "5S 9D",
    ],
)
def test_cards_that_form_no_southern_combination_are_not_a_play(cards: str) -> None:
    assert combo(cards) is None


def test_a_set_of_cards_has_exactly_one_classification() -> None:
    """33 44 55 is consecutive pairs, never a pair and a straight; 3 4 5 is one straight."""
    assert must("3S 3C 4S 4C 5S 5C").kind == Kind.CONSECUTIVE_PAIRS
    assert classify(parse_set("3S 3C 4S 4C 5S 5C"), SOUTHERN) == classify(
        parse_set("5C 5S 4C 4S 3C 3S"), SOUTHERN
    )


def test_playing_cards_that_form_no_combination_is_refused() -> None:
    state = start("3S 4S 6S", "7D")
    assert refusal(state, "0: 3S 4S 6S") == Reason.NOT_A_COMBINATION


# --------------------------------------------------------------------------- comparison


def test_a_play_of_another_type_is_refused_with_wrong_type_or_length() -> None:
    state = run(start("3S 4S 5S", "6D 6H 9C"), "0: 3S")
    assert refusal(state, "1: 6D 6H") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_lower_play_of_the_same_type_is_refused_with_does_not_beat() -> None:
    state = run(start("3S 9H", "9D 4C"), "0: 9H")
    assert refusal(state, "1: 9D") == Reason.DOES_NOT_BEAT


def test_a_higher_play_of_the_same_type_beats_the_table() -> None:
    state = run(start("3S 4S 5S 9S", "6D 7D 8D 9D"), "0: 3S 4S 5S", "1: 6D 7D 8D")
    assert state.table is not None
    assert (state.table_seat, state.table.cards) == (1, parse_set("6D 7D 8D"))
