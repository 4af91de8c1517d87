"""Combinations (*bộ bài*), RULES §3: classify a set of cards under a rule set.

single (*rác*), pair (*đôi*), triple (*sám cô*), straight (*sảnh*; 3..A is the dragon, *sảnh
rồng*), consecutive pairs (*đôi thông*), four of a kind (*tứ quý*), consecutive triples (*sám cô
thông*, Đấu). A set of cards has at most one classification.

Classification works on the rank nibbles of the 52-bit mask: `rank_counts` packs each rank's
count into its nibble, so "every rank present holds exactly k cards" is ``counts == k * present``
and "the ranks are consecutive" is a lookup of the present-rank pattern in `_RUNS`.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Final, NamedTuple, Self

from tienlen_rules.cards import (
    BLACK,
    DECK_SIZE,
    LOWEST_TWO,
    RANK_TWO,
    RED,
    SUIT_MASKS,
    CardSet,
    rank_counts,
    ranks_present,
)

if TYPE_CHECKING:  # the rule set's chop tables are built from `ChopClass`, so it comes later
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


class ChopClass(StrEnum):
    """What a play is for chopping (RULES §5): a 2, a pair or a triple of 2s, or a bomb (*hàng*):
    a four of a kind, a run of consecutive pairs or triples, a same-suit straight of 5+ cards
    (Northern option). The chop tables (`chop_tables`) are written in these classes.

    Each member carries its combination type and length, so legal-move generation, penalty
    values and the rotten split read them instead of decoding a name. Its text ("2", "22",
    "222", "four", "4pairs", "3triples", "straight5") is the name the docs and a settlement's
    rotten parts use; being a `StrEnum`, a member hashes as fast as a string on the hot path.
    """

    kind: Kind
    length: int

    def __new__(cls, label: str, kind: Kind, length: int) -> Self:
        """A member: its text, and the type and length of the plays it names."""
        member = str.__new__(cls, label)
        member._value_ = label
        member.kind = kind
        member.length = length
        return member

    TWO = "2", SINGLE, 1
    PAIR_OF_TWOS = "22", PAIR, 2
    TRIPLE_OF_TWOS = "222", TRIPLE, 3
    FOUR_OF_A_KIND = "four", FOUR_OF_A_KIND, 4
    THREE_PAIRS = "3pairs", CONSECUTIVE_PAIRS, 3
    FOUR_PAIRS = "4pairs", CONSECUTIVE_PAIRS, 4
    FIVE_PAIRS = "5pairs", CONSECUTIVE_PAIRS, 5
    SIX_PAIRS = "6pairs", CONSECUTIVE_PAIRS, 6
    SEVEN_PAIRS = "7pairs", CONSECUTIVE_PAIRS, 7
    EIGHT_PAIRS = "8pairs", CONSECUTIVE_PAIRS, 8
    NINE_PAIRS = "9pairs", CONSECUTIVE_PAIRS, 9
    TEN_PAIRS = "10pairs", CONSECUTIVE_PAIRS, 10
    ELEVEN_PAIRS = "11pairs", CONSECUTIVE_PAIRS, 11
    TWELVE_PAIRS = "12pairs", CONSECUTIVE_PAIRS, 12
    THREE_TRIPLES = "3triples", CONSECUTIVE_TRIPLES, 3
    FOUR_TRIPLES = "4triples", CONSECUTIVE_TRIPLES, 4
    FIVE_TRIPLES = "5triples", CONSECUTIVE_TRIPLES, 5
    SIX_TRIPLES = "6triples", CONSECUTIVE_TRIPLES, 6
    SEVEN_TRIPLES = "7triples", CONSECUTIVE_TRIPLES, 7
    EIGHT_TRIPLES = "8triples", CONSECUTIVE_TRIPLES, 8
    NINE_TRIPLES = "9triples", CONSECUTIVE_TRIPLES, 9
    TEN_TRIPLES = "10triples", CONSECUTIVE_TRIPLES, 10
    ELEVEN_TRIPLES = "11triples", CONSECUTIVE_TRIPLES, 11
    TWELVE_TRIPLES = "12triples", CONSECUTIVE_TRIPLES, 12
    SUITED_STRAIGHT_5 = "straight5", STRAIGHT, 5
    SUITED_STRAIGHT_6 = "straight6", STRAIGHT, 6
    SUITED_STRAIGHT_7 = "straight7", STRAIGHT, 7
    SUITED_STRAIGHT_8 = "straight8", STRAIGHT, 8
    SUITED_STRAIGHT_9 = "straight9", STRAIGHT, 9
    SUITED_STRAIGHT_10 = "straight10", STRAIGHT, 10
    SUITED_STRAIGHT_11 = "straight11", STRAIGHT, 11
    SUITED_STRAIGHT_12 = "straight12", STRAIGHT, 12


#: The chop class of N consecutive pairs, by N.
CONSECUTIVE_PAIRS_CLASSES: Final = {c.length: c for c in ChopClass if c.kind == CONSECUTIVE_PAIRS}

# Chop classes looked up by type (and length), built once: classifying a bomb on the move path
# builds nothing and reads no enum member.
_TWO_CLASS = {c.kind: c for c in ChopClass if c.kind <= TRIPLE}
_FOUR_CLASS = ChopClass.FOUR_OF_A_KIND
_SEQUENCE_CLASS = {
    (c.kind, c.length): c for c in ChopClass if c.kind in {CONSECUTIVE_PAIRS, CONSECUTIVE_TRIPLES}
}
_SUITED_STRAIGHT_CLASS: dict[int, ChopClass | None] = dict.fromkeys(range(1, 14)) | {
    c.length: c for c in ChopClass if c.kind == STRAIGHT
}


def chop_class(combo: Combination) -> ChopClass | None:
    """What the play is for chopping (see `chop_tables`); None when it is nothing special."""
    kind, length, top, cards = combo
    if kind <= TRIPLE:
        return _TWO_CLASS[kind] if top >= LOWEST_TWO else None
    if kind == FOUR_OF_A_KIND:
        return _FOUR_CLASS
    if kind == STRAIGHT:
        suited = cards & SUIT_MASKS[top & 3] == cards
        return _SUITED_STRAIGHT_CLASS[length] if suited else None
    return _SEQUENCE_CLASS[kind, length]


def target_class(combo: Combination) -> ChopClass | None:
    """What the play is as a chop target: its chop class, except that four 2s can't be
    chopped (RULES §5), whatever the table."""
    if combo.kind == FOUR_OF_A_KIND and combo.top >= LOWEST_TWO:
        return None
    return chop_class(combo)


def class_tops(chop: ChopClass, *, as_target: bool) -> tuple[int, int]:
    """The top cards ``[low, high)`` of the plays of class `chop`, as `chop_class` (a bomb) or
    `target_class` (a chop target, `as_target`) names them: a 2, a pair or a triple of 2s has
    a 2 on top; four 2s are a four of a kind but no target (RULES §5); any other class, any
    top. A same-suit straight also needs its suit, which no top card tells
    (`chop_tables.by_shape` flags it). The same rule as those two functions, as data for the
    tables built once per rule set."""
    if chop.kind <= TRIPLE:
        return LOWEST_TWO, DECK_SIZE
    if chop.kind == FOUR_OF_A_KIND and as_target:
        return 0, LOWEST_TWO
    return 0, DECK_SIZE
