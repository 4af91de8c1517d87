"""RULES §3 sentence by sentence: the combinations (*bộ bài*) and how each is beaten, under
every preset that plays them.

Each test quotes the rule-book sentence it proves. `tests/engine/combinations/test_southern.py` proves the
Southern table; these tests run the same sentences through the regional presets.
"""

from __future__ import annotations

import pytest
from helpers.tables import Beat, Reason, combo, later, relation, rules

from tienlen_rules.combinations import Kind

ANY_SUIT_PRESETS = ("southern", "hue", "da_nang", "dau", "dem_la")

# (type, lower, higher, longer): plays of one ordinary type, and one of the same type but
# another length, that every any-suit preset compares the same way.
ORDINARY = [
    ("single", "9S", "9H", None),
    ("pair", "KS KD", "KC KH", None),
    ("triple", "5S 5C 5D", "6S 6C 6D", None),
    ("straight", "4S 5C 6D", "4C 5D 6H", "4S 5C 6D 7H"),
    ("straight", "9S 10C JD QH KS", "10S JC QD KH AS", "9S 10C JD QH KS AH"),
]


@pytest.mark.parametrize("variant", ANY_SUIT_PRESETS)
@pytest.mark.parametrize(("kind", "lower", "higher", "longer"), ORDINARY)
def test_s3_to_beat_a_play_you_must_play_the_same_type_the_same_length_and_a_higher_top_card(
    variant: str, kind: str, lower: str, higher: str, longer: str | None
) -> None:
    """§3: "To beat a play you must play the same type, the same length, and a higher top
    card"; the table: a pair is "compared by highest card", a straight by "same length only;
    highest card"."""
    ruleset = rules(variant)
    assert relation(higher, lower, ruleset) == Beat.BEATS, kind
    assert relation(lower, higher, ruleset) == Beat.NO
    if longer is not None:
        assert relation(longer, lower, ruleset) == Beat.NO
        assert relation(lower, longer, ruleset) == Beat.NO


@pytest.mark.parametrize("variant", ANY_SUIT_PRESETS)
def test_s3_a_play_of_another_type_is_refused_as_the_wrong_type_in_every_preset(
    variant: str,
) -> None:
    """§3: "To beat a play you must play the same type" — a triple on a pair, a pair on a
    single and a straight on a triple are refused with WRONG_TYPE_OR_LENGTH."""
    t = later(variant, "4S 4C 9D", "KS KC KD 5S 6C 7D QH", "8H", leader=0)
    t.play(0, "4S 4C")
    assert t.refused(1, "KS KC KD") == Reason.WRONG_TYPE_OR_LENGTH
    assert t.refused(1, "5S 6C 7D") == Reason.WRONG_TYPE_OR_LENGTH
    assert t.refused(1, "QH") == Reason.WRONG_TYPE_OR_LENGTH


@pytest.mark.parametrize("variant", ANY_SUIT_PRESETS)
def test_s3_a_straight_holds_no_2_in_any_preset(variant: str) -> None:
    """§3: straight — "≥3 cards of consecutive ranks, one card per rank, no 2"."""
    ruleset = rules(variant)
    assert combo("KS AC 2D", ruleset) is None
    assert combo("AS 2C 3D", ruleset) is None  # the 2 does not wrap round to the 3
    found = combo("QS KC AD", ruleset)
    assert found is not None
    assert found.kind == Kind.STRAIGHT


@pytest.mark.parametrize("variant", ANY_SUIT_PRESETS)
def test_s3_the_dragon_is_the_twelve_card_straight_three_to_ace(variant: str) -> None:
    """§3: "`3..A` (12 cards) is the dragon (sảnh rồng)" — a straight of 12, beaten only by a
    higher dragon (same length only)."""
    ruleset = rules(variant)
    low = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
    high = "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AH"
    found = combo(low, ruleset)
    assert found is not None
    assert (found.kind, found.length) == (Kind.STRAIGHT, 12)
    assert relation(high, low, ruleset) == Beat.BEATS
    assert relation(low, high, ruleset) == Beat.NO


def test_s3_consecutive_triples_hold_no_2_in_dau() -> None:
    """§3: consecutive triples — "≥3 triples of consecutive ranks, no 2"."""
    dau = rules("dau")
    assert combo("KS KC KD AS AC AD 2S 2C 2D", dau) is None
    found = combo("QS QC QD KS KC KD AS AC AD", dau)
    assert found is not None
    assert (found.kind, found.length) == (Kind.CONSECUTIVE_TRIPLES, 3)


@pytest.mark.parametrize("variant", ["southern", "northern", "hue", "da_nang", "dem_la"])
def test_s3_consecutive_triples_are_a_playable_combination_only_in_dau(variant: str) -> None:
    """§3: consecutive triples (sám cô thông) — "a playable combination only in Đấu"."""
    assert combo("4S 4C 4D 5S 5C 5D 6S 6C 6D", rules(variant)) is None
    assert combo("4S 4C 4D 5S 5C 5D 6S 6C 6D", rules("dau")) is not None


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang", "dau", "dem_la"])
def test_s3_the_same_cards_have_one_classification(variant: str) -> None:
    """§3: "A play must be exactly one combination; the same cards can't form two types" —
    33 44 55 is consecutive pairs (never two pairs and more), 3333 a four of a kind (never two
    pairs), under every preset that plays them."""
    ruleset = rules(variant)
    pairs = combo("3S 3C 4S 4C 5S 5C", ruleset)
    four = combo("3S 3C 3D 3H", ruleset)
    assert pairs is not None
    assert four is not None
    assert (pairs.kind, pairs.length) == (Kind.CONSECUTIVE_PAIRS, 3)
    assert (four.kind, four.length) == (Kind.FOUR_OF_A_KIND, 4)
    assert combo("3S 3C 4S 4C", ruleset) is None  # two pairs are no combination


ORDINARY_PLAYS = (
    "AS",
    "AS AC",
    "AS AC AD",
    "9S 10S JS QS KS AS",
    "9S 9C 9D 10S 10C 10D JS JC JD QS QC QD",
)


@pytest.mark.parametrize(
    ("variant", "ordinary"),
    [
        (variant, play)
        for variant in ("southern", "hue", "da_nang", "northern", "dau", "dem_la")
        for play in ORDINARY_PLAYS
        if combo(play, rules(variant)) is not None  # a combination under this preset
    ],
)
def test_s3_only_bombs_can_chop_a_2(variant: str, ordinary: str) -> None:
    """§3: "'Bombs' (hàng) are consecutive pairs (3+ pairs), four of a kind, and in Đấu
    consecutive triples: the combinations that can chop." — no single, pair, triple, straight
    (even of one suit) or run of 4 triples goes on a single 2."""
    assert relation(ordinary, "2S", rules(variant)) == Beat.NO
