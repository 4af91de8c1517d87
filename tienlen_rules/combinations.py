"""Combinations (*bộ bài*), RULES §3: classify a set of cards under a rule set.

single (*rác*), pair (*đôi*), triple (*sám cô*), straight (*sảnh*; 3..A is the dragon, *sảnh
rồng*), consecutive pairs (*đôi thông*), four of a kind (*tứ quý*), consecutive triples (*sám cô
thông*, Đấu). A set of cards has at most one classification.

Classification works on the rank nibbles of the 52-bit mask: `rank_counts` packs each rank's
count into its nibble, so "every rank present holds exactly k cards" is ``counts == k * present``
and "the ranks are consecutive" is a lookup of the present-rank pattern in `_RUNS`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from tienlen_rules.cards import (
    BLACK,
    LOWEST_TWO,
    RANK_TWO,
    RED,
    SUIT_MASKS,
    CardSet,
    rank_counts,
    ranks_present,
)
from tienlen_rules.ruleset import RuleSet


class Kind(IntEnum):
    """Combination types. Values are part of the wire contract (`CombinationType`)."""

    SINGLE = 1
    PAIR = 2
    TRIPLE = 3
    STRAIGHT = 4
    CONSECUTIVE_PAIRS = 5
    FOUR_OF_A_KIND = 6
    CONSECUTIVE_TRIPLES = 7


# The members as module constants: on CPython 3.11 reading `Kind.X` costs about 100 ns, a module
# constant a few; classification and legal-move generation read them millions of times.
SINGLE, PAIR, TRIPLE, STRAIGHT, CONSECUTIVE_PAIRS, FOUR_OF_A_KIND, CONSECUTIVE_TRIPLES = Kind


class Combination(NamedTuple):
    """A classified play: its type, its length (cards in a straight, pairs or triples in a
    sequence, else the card count), its top card (the strongest card, which decides
    comparisons) and its cards."""

    kind: Kind
    length: int
    top: int
    cards: CardSet

    @property
    def top_rank(self) -> int:
        """Rank index of the strongest card."""
        return self.top >> 2


def _runs() -> dict[int, tuple[int, int]]:
    """Present-rank patterns of 1..12 consecutive ranks without the 2: pattern -> (low, n)."""
    runs: dict[int, tuple[int, int]] = {}
    for low in range(RANK_TWO):
        pattern = 0
        for n in range(1, RANK_TWO - low + 1):
            pattern |= 1 << (4 * (low + n - 1))
            runs[pattern] = (low, n)
    return runs


_RUNS = _runs()


def classify(cards: CardSet, rules: RuleSet) -> Combination | None:
    """The combination these cards form under `rules`, or None if they form none."""
    n = cards.bit_count()
    if n == 0:
        return None
    top = cards.bit_length() - 1
    if n == 1:
        return Combination(SINGLE, 1, top, cards)
    present = ranks_present(cards)
    if present & (present - 1) == 0:  # one rank
        return _same_rank(cards, n, top, rules)
    run = _RUNS.get(present)
    if run is None or run[1] < 3:
        return None
    counts = rank_counts(cards)
    ranks = run[1]
    if counts == present:
        if rules.single_suit_straights and cards & SUIT_MASKS[top & 3] != cards:
            return None
        return Combination(STRAIGHT, ranks, top, cards)
    if counts == 2 * present and rules.consecutive_pairs:
        return Combination(CONSECUTIVE_PAIRS, ranks, top, cards)
    if counts == 3 * present and rules.consecutive_triples:
        return Combination(CONSECUTIVE_TRIPLES, ranks, top, cards)
    return None


def _same_rank(cards: CardSet, n: int, top: int, rules: RuleSet) -> Combination | None:
    if n == 2:
        if rules.same_colour_pairs and cards & BLACK != cards and cards & RED != cards:
            return None
        return Combination(PAIR, 2, top, cards)
    if n == 3:
        return Combination(TRIPLE, 3, top, cards)
    return Combination(FOUR_OF_A_KIND, 4, top, cards)


_TWO_CLASS = {SINGLE: "2", PAIR: "22", TRIPLE: "222"}
# Chop classes of runs, by (kind, length), and of same-suit straights, by length: built once so
# that classifying a bomb on the move path formats no string.
_SEQUENCE_CLASS = {
    (kind, n): f"{n}{word}"
    for kind, word in ((CONSECUTIVE_PAIRS, "pairs"), (CONSECUTIVE_TRIPLES, "triples"))
    for n in range(1, 14)
}
_SUITED_STRAIGHT_CLASS = {n: f"straight{n}" if n >= 5 else "" for n in range(1, 14)}


def chop_class(combo: Combination) -> str:
    """What the play is for chopping (see `chop_tables`); "" when it is nothing special."""
    kind, length, top, cards = combo
    if kind <= TRIPLE:
        return _TWO_CLASS[kind] if top >= LOWEST_TWO else ""
    if kind == FOUR_OF_A_KIND:
        return "four"
    if kind == STRAIGHT:
        suited = cards & SUIT_MASKS[top & 3] == cards
        return _SUITED_STRAIGHT_CLASS[length] if suited else ""
    return _SEQUENCE_CLASS[kind, length]


def target_class(combo: Combination) -> str:
    """What the play is as a chop target: its chop class, except that four 2s can't be
    chopped (RULES §5), whatever the table."""
    if combo.kind == FOUR_OF_A_KIND and combo.top >= LOWEST_TWO:
        return ""
    return chop_class(combo)
